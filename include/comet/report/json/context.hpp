// comet/report/json/context.hpp — the `context` object of results.json (docs/results-schema.md):
// where and how a run was made — comet's version, host, date, compiler, command line, build,
// the machine's readings, the MPI library, the transport's capabilities, the notes derived from
// the readings, and the user's extra entries.
//
// Only how the context is written: what it holds and how it is gathered is report/context.hpp;
// the Google-Benchmark-compatible JSON writes its own context (report/gbench.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/report/context.hpp>
#include <comet/report/json/writer.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace comet::detail::json {

COMET_DECL void write_context(writer& w, const context& c);

}  // namespace comet::detail::json

#if !defined(COMET_COMPILED)
#include <comet/report/json/context.ipp>
#endif
