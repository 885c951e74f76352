// The ordinary (non-template) functions of comet's headers that a header-only unit compiles
// and a compiled one only declares (comet/core/compiled.hpp): each .ipp, compiled here once.
#include <comet/core/compiled.hpp>

#if !defined(COMET_COMPILED)
#error "src/: the compiled part is built with COMET_COMPILED defined"
#endif
