// Tests of comet/report/json_read.hpp: results.json written by write_json reads back to the
// same records and context; malformed JSON and files of another schema are rejected with one
// line naming the file, the line and what was expected. (A slowed run read back and compared
// by the comet program: the cli test cli_compare_slowed, examples/CMakeLists.txt.)
#include <comet/report/json.hpp>
#include <comet/report/json_read.hpp>
#include <comet/stats/compare.hpp>

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace json_read_test {

/// The message of the invalid_argument `read_results(text, "r.json")` throws ("" if none).
inline std::string error_of(const std::string& text) {
    try {
        comet::read_results(text, "r.json");
    } catch (const comet::invalid_argument& e) {
        return e.what();
    }
    return "";
}

/// A document with one record whose samples are `samples` (JSON text), on line 4.
inline std::string with_samples(const std::string& samples) {
    return "{\"schema_version\": 1,\n\"results\": [\n{\"kernel\": \"echo\", \"params\": {\"size\": 8},\n\"samples\": " + samples + "}\n]}";
}

/// A fresh folder under the system's temporary directory, removed with everything in it.
struct scratch {
    std::filesystem::path path;
    scratch() {
        static std::atomic<int> counter{0};
        path = std::filesystem::temp_directory_path() /
               ("comet-test-json-read-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "-" +
                std::to_string(counter.fetch_add(1)));
        std::filesystem::create_directories(path);
    }
    ~scratch() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    scratch(const scratch&) = delete;
    scratch& operator=(const scratch&) = delete;
};

inline comet::report sample_report() {
    comet::report r;
    r.ctx = comet::make_context("threads", 2);
    r.ctx.command_line = "comet --kernels echo,contention --out 'my report'";
    r.ctx.extra = {{"clock", "steady_clock"}, {"note", "tab\there, quote \" and ünïcode"}};
    r.results.records = {
        {.kernel = "echo",
         .params = {{"size", 8}, {"hops", 1}, {"nodes", 2}, {"reduction", "test_node"}},
         .samples = {3.79821875e-06, 1e-300, 0.1 + 0.2, -1.0 / 3.0},
         .values = {{"order", "round_robin"}, {"closing_barrier", 2.5e-7}, {"exchanges", 12}},
         .overheads = {2e-8, 2.5e-8, 2e-8, 2e-8},
         .iterations = 32,
         .stop = "interval",
         .notes = {"samples shorter than the clock allows"},
         .rounds = {{3, 32}, {1, 16}},
         .invalid = {{3, "negative"}},
         .dropped = {{"late_start", 4}},
         .flags = {{"closing_barrier", "not resolved"}}},
        {.kernel = "contention", .params = {{"size", 486}, {"load", 0.5}, {"mode", "idle"}}, .samples = {1e-5, 2e-5}},
        {.kernel = "barrier", .params = {}, .samples = {}},
    };
    // The file holds every flag a reader must see, a record's own and those its samples call
    // for (echo's 0.3 s is an outlier of its valid three and moves their mean; contention's two
    // samples disagree), and they read back as the record's: to read back equal, each record
    // holds all of them already.
    for (comet::record& rec : r.results.records) rec.flags = comet::assess(rec).flags;
    BOOST_TEST_REQUIRE(r.results.records[0].flags.size() > 1u);
    BOOST_TEST_REQUIRE(r.results.records[0].flags.front().what == "closing_barrier");  // its own first
    return r;
}

}  // namespace json_read_test

BOOST_AUTO_TEST_SUITE(json_read)

BOOST_AUTO_TEST_CASE(round_trip_through_write_json) {
    const comet::report r = json_read_test::sample_report();
    std::ostringstream os;
    comet::write_json(os, r);
    const comet::results_file back = comet::read_results(os.str(), "results.json");
    BOOST_TEST((back.results == r.results));  // every record: kernel, params, samples bit for bit, ...
    comet::report again = r;
    again.results = back.results;
    std::ostringstream rewritten;
    comet::write_json(rewritten, again);
    BOOST_TEST(rewritten.str() == os.str());  // and written again, the same file
    BOOST_TEST(back.ctx.transport == "threads");
    BOOST_TEST(back.ctx.nodes == 2);
    BOOST_TEST(back.ctx.host == r.ctx.host);
    BOOST_TEST(back.ctx.date == r.ctx.date);
    BOOST_TEST(back.ctx.command_line == r.ctx.command_line);
    BOOST_TEST(back.ctx.comet_version == r.ctx.comet_version);
    BOOST_TEST((back.ctx.extra == r.ctx.extra));
    BOOST_TEST((back.notes == comet::context_notes(r.ctx)));  // as the writer judged the machine
    const std::string noted = "{\"schema_version\": 1, \"context\": {\"notes\": [\"load average 6.47 on 2 cores at the start\"]}, \"results\": []}";
    BOOST_TEST((comet::read_results(noted).notes == std::vector<std::string>{"load average 6.47 on 2 cores at the start"}));
    BOOST_TEST(json_read_test::error_of("{\"schema_version\": 1, \"context\": {\"notes\": [1]}, \"results\": []}") ==
               "r.json:1: context.notes[0]: expected a string, found a number");
}

BOOST_AUTO_TEST_CASE(rounds_must_account_for_every_sample) {
    // The samples per round, round after round (comet --rounds): each at least 1, and together
    // every sample, or the round medians compare tests on would be of the wrong samples.
    const auto doc = [](const std::string& rounds) {
        return "{\"schema_version\": 1,\n\"results\": [\n{\"kernel\": \"echo\", \"params\": {\"size\": 8},\n\"samples\": [1, 2, 3],\n\"rounds\": " +
               rounds + "}\n]}";
    };
    const comet::record one = comet::read_results(doc("[2, 1]")).results.records.at(0);  // schema 1: counts
    BOOST_TEST_REQUIRE(one.rounds.size() == 2u);
    BOOST_TEST(one.rounds[0].samples == 2u);
    BOOST_TEST(one.rounds[1].samples == 1u);
    BOOST_TEST(json_read_test::error_of(doc("[2, 2]")) == "r.json:5: results[0].rounds: the rounds' counts add up to 4, not to the 3 samples");
    BOOST_TEST(json_read_test::error_of(doc("[3, 0]")) == "r.json:5: results[0].rounds[1]: expected an integer >= 1, found a number");
}

BOOST_AUTO_TEST_CASE(schema_2_rounds_carry_their_iterations) {
    const std::string doc = "{\"schema_version\": 2,\n\"results\": [\n{\"kernel\": \"echo\", \"params\": {\"size\": 8},\n\"samples\": [1, 2, 3],\n"
                            "\"rounds\": [{\"samples\": 2, \"iterations\": 1000}, {\"samples\": 1, \"iterations\": 10}]}\n]}";
    const comet::record r = comet::read_results(doc).results.records.at(0);
    BOOST_TEST_REQUIRE(r.rounds.size() == 2u);
    BOOST_TEST((r.rounds[0] == comet::round_count{2, 1000}));
    BOOST_TEST((r.rounds[1] == comet::round_count{1, 10}));
    BOOST_TEST(json_read_test::error_of("{\"schema_version\": 2, \"results\": [{\"kernel\": \"echo\", \"params\": {}, \"samples\": [1], "
                                        "\"invalid\": {\"negative\": [4]}}]}") == "r.json:1: results[0].invalid.negative: sample 4 of 1");
}

BOOST_AUTO_TEST_CASE(a_schema_1_file_keeps_its_measured_values_apart) {
    // Schema 1 kept a window's length, a broadcast's closing barrier and the like among the
    // params; read back, they are values, and the point is named as a schema-2 file names it.
    const std::string doc = "{\"schema_version\": 1, \"results\": [{\"kernel\": \"broadcast\", \"params\": "
                            "{\"size\": 8, \"nodes\": 4, \"implementation\": \"native\", \"closing_barrier\": 2e-06}, \"samples\": [1]}]}";
    const comet::record r = comet::read_results(doc).results.records.at(0);
    BOOST_TEST((r.params == comet::params{{"size", std::int64_t{8}}, {"nodes", std::int64_t{4}}}));
    BOOST_TEST((r.values == comet::params{{"implementation", std::string("native")}, {"closing_barrier", 2e-6}}));
    BOOST_TEST(comet::point_name(r) == "broadcast/size:8/nodes:4");
}

BOOST_AUTO_TEST_CASE(an_integral_real_param_reads_back_as_an_integer) {
    comet::report r;
    r.results.records = {{.kernel = "contention", .params = {{"load", 0.0}}, .samples = {1e-6}}};
    std::ostringstream os;
    comet::write_json(os, r);
    const comet::record back = comet::read_results(os.str()).results.records.at(0);
    BOOST_TEST(back.params.integer("load").value_or(-1) == 0);
    BOOST_TEST(comet::point_name(back) == comet::point_name(r.results.records[0]));  // the same point
}

BOOST_AUTO_TEST_CASE(malformed_json_is_one_line_naming_file_and_line) {
    using json_read_test::error_of;
    using json_read_test::with_samples;
    BOOST_TEST(error_of("") == "r.json:1: expected a value, found the end of the file");
    BOOST_TEST(error_of("{\"schema_version\": 1,\n\"results\": [}") == "r.json:2: expected a value, found '}'");
    BOOST_TEST(error_of(with_samples("[1e-6, 2e-6,]")) == "r.json:4: expected a value, found ']'");
    BOOST_TEST(error_of(with_samples("[1e-6 2e-6]")) == "r.json:4: expected ',' or ']' after an array element, found '2'");
    BOOST_TEST(error_of("{\"a\": 1 \"b\": 2}") == "r.json:1: expected ',' or '}' after a member, found '\"'");
    BOOST_TEST(error_of("{\"a\" 1}") == "r.json:1: expected ':' after the member name \"a\", found '1'");
    BOOST_TEST(error_of("{a: 1}") == "r.json:1: expected a member name in quotes, found 'a'");
    BOOST_TEST(error_of("{\"a\": 1, \"a\": 2}") == "r.json:1: duplicate member name \"a\"");
    BOOST_TEST(error_of(with_samples("[NaN]")) == "r.json:4: expected a value, found 'N'");
    BOOST_TEST(error_of(with_samples("[01]")) == "r.json:4: a number has a leading zero");
    BOOST_TEST(error_of(with_samples("[1.]")) == "r.json:4: expected a digit after the decimal point, found ']'");
    BOOST_TEST(error_of(with_samples("[1e]")) == "r.json:4: expected a digit in the exponent, found ']'");
    BOOST_TEST(error_of(with_samples("[-]")) == "r.json:4: expected a digit after '-', found ']'");
    BOOST_TEST(error_of(with_samples("[1e999]")) == "r.json:4: the number 1e999 is out of the range of a double");
    BOOST_TEST(error_of("{\"a\": tru}") == "r.json:1: expected a value, found 't'");
    BOOST_TEST(error_of("{\"a\": \"open") == "r.json:1: expected '\"' to close the string, found the end of the file");
    BOOST_TEST(error_of("{\"a\": \"x\ny\"}") == "r.json:1: expected '\"' to close the string, found a control character (escape it)");
    BOOST_TEST(error_of("{\"a\": \"\\x\"}") ==
               "r.json:1: expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) after '\\', found 'x'");
    BOOST_TEST(error_of("{\"a\": \"\\u12g4\"}") == "r.json:1: expected 4 hex digits after \\u, found 'g'");
    BOOST_TEST(error_of("{\"a\": \"\\udc00\"}") == "r.json:1: a low surrogate \\u escape without a high one before it");
    BOOST_TEST(error_of("{}\n{}") == "r.json:2: expected the end of the file after the value, found '{'");
    BOOST_TEST(error_of("// comment\n{}") == "r.json:1: expected a value, found '/'");
    BOOST_TEST(error_of(std::string(300, '[')) == "r.json:1: nested deeper than 256 levels");
}

BOOST_AUTO_TEST_CASE(escapes_decode) {
    // \u00e9 is é (2 bytes of UTF-8), \ud83d\ude00 a surrogate pair for U+1F600 (4 bytes).
    const std::string doc = "{\"schema_version\": 1, \"results\": [{\"kernel\": \"\\u00e9\\ud83d\\ude00\\t\\/\", \"params\": {}, \"samples\": []}]}";
    BOOST_TEST(comet::read_results(doc).results.records.at(0).kernel == "\xc3\xa9\xf0\x9f\x98\x80\t/");
}

BOOST_AUTO_TEST_CASE(another_schema_is_named) {
    using json_read_test::error_of;
    using json_read_test::with_samples;
    BOOST_TEST(error_of("[]") == "r.json:1: the document: expected an object (comet's results.json), found an array");
    BOOST_TEST(error_of("{\"context\": {}, \"benchmarks\": []}") == "r.json:1: a Google Benchmark file (gbench.json), not comet's results.json");
    BOOST_TEST(error_of("{\"results\": []}") == "r.json:1: expected a member \"schema_version\" (is it comet's results.json?)");
    BOOST_TEST(error_of("{\n\"schema_version\": 3, \"results\": []}") == "r.json:2: schema_version 3: this comet reads versions 1 and 2");
    BOOST_TEST(error_of("{\"schema_version\": 1}") == "r.json:1: the document: expected a member \"results\"");
    BOOST_TEST(error_of(with_samples("[1e-6, null]")) == "r.json:4: results[0].samples[1]: expected a number, found null");
    BOOST_TEST(error_of(with_samples("{}")) == "r.json:4: results[0].samples: expected an array, found an object");
    BOOST_TEST(error_of("{\"schema_version\": 1, \"results\": [{\"kernel\": 7}]}") == "r.json:1: results[0].kernel: expected a string, found a number");
    BOOST_TEST(error_of("{\"schema_version\": 1, \"results\": [{\"kernel\": \"echo\", \"params\": {\"size\": [8]}, \"samples\": []}]}") ==
               "r.json:1: results[0].params.size: expected an integer, a number or a string, found an array");
    BOOST_TEST(error_of("{\"schema_version\": 1, \"results\": [{\"kernel\": \"echo\", \"params\": {}, \"samples\": [], \"iterations\": -1}]}") ==
               "r.json:1: results[0].iterations: expected an integer >= 0, found a number");
    // Keys this reader does not know are skipped, as the schema asks.
    BOOST_TEST(error_of("{\"schema_version\": 1, \"future\": {\"x\": [1]}, \"results\": []}").empty());
}

BOOST_AUTO_TEST_CASE(files_that_cannot_be_read) {
    const json_read_test::scratch dir;
    const auto missing = dir.path / "missing.json";
    try {
        comet::read_results_file(missing);
        BOOST_TEST(false);
    } catch (const comet::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()) == missing.string() + ": no such file");
    }
    try {
        comet::read_results_file(dir.path);
        BOOST_TEST(false);
    } catch (const comet::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()) == dir.path.string() + ": a folder, not a file");
    }
    std::ofstream(dir.path / "bad.json") << "{\n\n\"schema_version\": 1,,";
    try {
        comet::read_results_file(dir.path / "bad.json");
        BOOST_TEST(false);
    } catch (const comet::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()) == (dir.path / "bad.json").string() + ":3: expected a member name in quotes, found ','");
    }
}

BOOST_AUTO_TEST_SUITE_END()
