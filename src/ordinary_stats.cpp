// The ordinary (non-template) functions of stats/ and analysis/: the definitions a header-only unit
// compiles and a compiled one only declares (comet/core/compiled.hpp), compiled here once.
// Every .ipp under include/ is in exactly one src/ordinary_*.cpp (CMakeLists.txt checks it).
#include <comet/core/compiled.hpp>

#if !defined(COMET_COMPILED)
#error "src/: the compiled part is built with COMET_COMPILED defined"
#endif

#include <comet/analysis/contention.ipp>
#include <comet/analysis/delays.ipp>
#include <comet/analysis/loggp.ipp>
#include <comet/analysis/overlap.ipp>
#include <comet/analysis/predict.ipp>
#include <comet/analysis/thesis.ipp>
#include <comet/stats/bandwidth.ipp>
#include <comet/stats/commtest.ipp>
#include <comet/stats/compare.ipp>
#include <comet/stats/curves.ipp>
#include <comet/stats/delay_decomposition.ipp>
#include <comet/stats/derived_table.ipp>
#include <comet/stats/distributions.ipp>
#include <comet/stats/fit.ipp>
#include <comet/stats/fit_results.ipp>
#include <comet/stats/growth.ipp>
#include <comet/stats/least_squares.ipp>
#include <comet/stats/rank_reduction.ipp>
#include <comet/stats/summary.ipp>
#include <comet/stats/validity.ipp>
