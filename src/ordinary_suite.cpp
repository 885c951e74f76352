// The ordinary (non-template) functions of suite/: the definitions a header-only unit
// compiles and a compiled one only declares (comet/core/compiled.hpp), compiled here once.
// Every .ipp under include/ is in exactly one src/ordinary_*.cpp (CMakeLists.txt checks it).
#include <comet/core/compiled.hpp>

#if !defined(COMET_COMPILED)
#error "src/: the compiled part is built with COMET_COMPILED defined"
#endif

#include <comet/suite/analyses.ipp>
#include <comet/suite/builtin.ipp>
#include <comet/suite/config.ipp>
#include <comet/suite/output.ipp>
#include <comet/suite/suite.ipp>
