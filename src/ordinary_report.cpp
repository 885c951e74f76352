// The ordinary (non-template) functions of report/: the definitions a header-only unit
// compiles and a compiled one only declares (comet/core/compiled.hpp), compiled here once.
// Every .ipp under include/ is in exactly one src/ordinary_*.cpp (CMakeLists.txt checks it).
#include <comet/core/compiled.hpp>

#if !defined(COMET_COMPILED)
#error "src/: the compiled part is built with COMET_COMPILED defined"
#endif

#include <comet/report/context.ipp>
#include <comet/report/csv.ipp>
#include <comet/report/files.ipp>
#include <comet/report/gbench.ipp>
#include <comet/report/gnuplot.ipp>
#include <comet/report/json.ipp>
#include <comet/report/json/context.ipp>
#include <comet/report/json/derived.ipp>
#include <comet/report/json/record.ipp>
#include <comet/report/json/writer.ipp>
#include <comet/report/json_read.ipp>
#include <comet/report/plot_model.ipp>
#include <comet/report/report.ipp>
#include <comet/report/reporter.ipp>
#include <comet/report/table.ipp>
#include <comet/report/thesis.ipp>
#include <comet/report/thesis_plots.ipp>
