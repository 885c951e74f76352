// comet/report/reporter.hpp — `reporter`: an output of comet's results that anyone can add
// without editing comet. `deliver` hands a report to each reporter in one order: the context,
// then every record, then every derived table, then the whole report once (for what the
// reporter did not take piece by piece: the analyses' figures, the notes, where the run
// stopped). A reporter overrides what it writes:
//
//   struct markdown : comet::reporter {
//       std::ostream& os;
//       explicit markdown(std::ostream& o) : os(o) {}
//       void add(const comet::record& r) override { os << "| " << comet::point_name(r) << " |\n"; }
//       void finish(const comet::report&) override {}
//   };
//   markdown md(std::cout);
//   comet::deliver(rep, md);
//
// comet's own outputs are reporters too, each beside its writer, so a program that writes only
// CSV includes only csv.hpp: `console_reporter` (table.hpp), `csv_reporter` (csv.hpp),
// `json_reporter` (json.hpp), `gbench_reporter` (gbench.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/report/report.hpp>
#include <comet/stats/derived_table.hpp>
#include <comet/stats/record.hpp>

#include <initializer_list>
#include <ostream>
#include <span>

namespace comet {

class reporter {
public:
    virtual ~reporter() = default;
    /// The run's context, first.
    virtual void begin(const context&) {}
    /// Each record, in the report's order.
    virtual void add(const record&) {}
    /// Each derived table, in the report's order, after the records.
    virtual void add(const derived_table&) {}
    /// The whole report, last, once.
    virtual void finish(const report&) = 0;
};

/// Hands `r` to each of `to`, one after the other: begin, add (records, then tables), finish.
/// An exception a reporter raises ends the delivery there.
COMET_DECL void deliver(const report& r, std::span<reporter* const> to);

COMET_DECL void deliver(const report& r, std::initializer_list<reporter*> to);

COMET_DECL void deliver(const report& r, reporter& to);

/// A reporter that writes the whole report to a stream at finish, with `Write(os, report)`:
/// comet's console, results.json and Google Benchmark outputs.
template <auto Write>
class stream_reporter : public reporter {
public:
    explicit stream_reporter(std::ostream& os) : os_(&os) {}
    void finish(const report& r) override { Write(*os_, r); }

private:
    std::ostream* os_;
};

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/reporter.ipp>
#endif
