// documented_outputs DIR — writes the results.json files the documents' library snippets write,
// for the cli test cli_results_schema, which checks them (and the comet program's own) against
// docs/results-schema.md with scripts/check_results_schema.py:
//   DIR/suite.json    docs/command-line.md's "the suite from your own code": run_suite with
//                     rounds, a context from make_context with describe_capabilities, analyse
//   DIR/own.json      a record a user builds by hand (no sampling engine: no `stop`, no
//                     `iterations`) beside a derived table of their own, written with write_json
// Not a Boost.Test case (test_*.cpp): the verdict is the checker's, which reads only the document.
#include <comet/comet.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <type_traits>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: documented_outputs DIR\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);

    // The snippet, with fixed sampling so that it takes a second.
    comet::threads::run(2, [&](comet::threads::transport& t) {
        comet::result_set r = comet::run_suite(t, {.kernels = {"echo", "barrier", "update_guard"},
                                                   .sampling = comet::fixed_sampling(5, 20), .rounds = 3});
        if (t.rank() != 0) return;
        comet::report rep{.ctx = comet::make_context("mine", t.size()), .results = r};
        rep.ctx.transport_capabilities = comet::describe_capabilities<std::remove_cvref_t<decltype(t)>>();
        comet::analyse(rep);
        std::ofstream os(dir / "suite.json");
        comet::write_json(os, rep);
    });

    // A user's own record and table: what the library writes of them.
    comet::report own{.ctx = comet::make_context("mine", 2)};
    comet::record rec{.kernel = "mine", .samples = {1.0e-6, 1.2e-6, 1.1e-6}};
    rec.params.set("size", 8);
    rec.values.set("form", "send_recv");
    own.results.records.push_back(rec);
    comet::derived_table gains{.name = "mine_gains", .title = "gain by size", .kernel = "mine", .columns = {"size", "gain"}};
    gains.add({std::int64_t{8}, 0.25});
    own.tables.push_back(gains);
    std::ofstream os(dir / "own.json");
    comet::write_json(os, own);
    return os ? 0 : 1;
}
