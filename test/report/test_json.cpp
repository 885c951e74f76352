// Tests of comet/report/json.hpp (and the context of report/context.hpp it writes): the output
// is valid JSON by a strict RFC 8259 parser written here, keys come in the documented order,
// strings are escaped, NaN and absent values are null, numbers round-trip, identical inputs give
// byte-identical files, a small report matches a golden file character for character, the
// median's interval comes with its coverage (null below 6 samples), a flagged fit is written
// as flagged: `"valid": false`, its flags, and null coefficients, and so are COMMTEST's
// statistics: a flagged a or b is null beside its flags, an unsupported protocol says so. A
// record (schema_version 2) writes its values apart from its params, its statistics over the
// valid samples as n of total with the outliers, its flags (none reported for a point flagged
// as a whole), its invalid samples and dropped measurements by reason, and its rounds.
#include <comet/report/json.hpp>
#include <comet/stats/fit.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace json_test {

/// A parsed JSON value. Objects keep their members in document order (key order is under test).
struct jvalue {
    enum class kind { null, boolean, number, string, array, object } k = kind::null;
    bool b = false;
    double num = 0.0;
    std::string raw;  // the number's token, as written
    std::string str;
    std::vector<jvalue> items;      // array elements, or object member values
    std::vector<std::string> keys;  // object member names, parallel to items

    const jvalue& operator[](std::string_view key) const {
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return items[i];
        throw std::runtime_error("no member " + std::string(key));
    }
    const jvalue& operator[](std::size_t i) const { return items.at(i); }
    bool is_null() const { return k == kind::null; }
};

/// A strict recursive-descent parser of RFC 8259 JSON: rejects NaN/Infinity tokens, trailing
/// commas, leading zeros, raw control characters in strings, lone surrogates, invalid UTF-8 and
/// anything after the top-level value. Throws std::runtime_error naming the offset.
class parser {
public:
    explicit parser(std::string_view text) : s_(text) {}

    jvalue parse() {
        jvalue v = value();
        ws();
        if (i_ != s_.size()) fail("text after the top-level value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error("invalid JSON at offset " + std::to_string(i_) + ": " + why);
    }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    bool eat(char c) {
        if (peek() != c || i_ >= s_.size()) return false;
        ++i_;
        return true;
    }
    void expect(char c) {
        if (!eat(c)) fail(std::string("expected '") + c + "'");
    }
    void ws() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    void literal(std::string_view word) {
        if (s_.substr(i_, word.size()) != word) fail("bad literal");
        i_ += word.size();
    }

    jvalue value() {
        ws();
        jvalue v;
        const char c = peek();
        if (c == '{') {
            v.k = jvalue::kind::object;
            ++i_;
            ws();
            if (eat('}')) return v;
            do {
                ws();
                if (peek() != '"') fail("expected a member name");
                v.keys.push_back(string());
                ws();
                expect(':');
                v.items.push_back(value());
                ws();
            } while (eat(','));
            expect('}');
        } else if (c == '[') {
            v.k = jvalue::kind::array;
            ++i_;
            ws();
            if (eat(']')) return v;
            do {
                v.items.push_back(value());
                ws();
            } while (eat(','));
            expect(']');
        } else if (c == '"') {
            v.k = jvalue::kind::string;
            v.str = string();
        } else if (c == 't') {
            literal("true");
            v.k = jvalue::kind::boolean;
            v.b = true;
        } else if (c == 'f') {
            literal("false");
            v.k = jvalue::kind::boolean;
        } else if (c == 'n') {
            literal("null");
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.k = jvalue::kind::number;
            number(v);
        } else {
            fail("expected a value");
        }
        return v;
    }

    void digits() {
        if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit");
        while (peek() >= '0' && peek() <= '9') ++i_;
    }
    void number(jvalue& v) {
        const std::size_t start = i_;
        eat('-');
        if (peek() == '0') {
            ++i_;
            if (peek() >= '0' && peek() <= '9') fail("leading zero");
        } else {
            digits();
        }
        if (eat('.')) digits();
        if (peek() == 'e' || peek() == 'E') {
            ++i_;
            if (!eat('+')) eat('-');
            digits();
        }
        v.raw = std::string(s_.substr(start, i_ - start));
        v.num = std::strtod(v.raw.c_str(), nullptr);
    }

    unsigned hex4() {
        unsigned u = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = peek();
            unsigned d;
            if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
            else fail("bad \\u escape");
            u = u * 16 + d;
            ++i_;
        }
        return u;
    }
    static void utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }
    std::string string() {
        expect('"');
        std::string out;
        while (true) {
            if (i_ >= s_.size()) fail("unterminated string");
            const auto c = static_cast<unsigned char>(s_[i_]);
            if (c == '"') {
                ++i_;
                return out;
            }
            if (c < 0x20) fail("raw control character in a string");
            if (c == '\\') {
                ++i_;
                const char e = peek();
                ++i_;
                switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xdc00 && cp <= 0xdfff) fail("lone low surrogate");
                    if (cp >= 0xd800 && cp <= 0xdbff) {
                        if (!eat('\\') || !eat('u')) fail("lone high surrogate");
                        const unsigned lo = hex4();
                        if (lo < 0xdc00 || lo > 0xdfff) fail("bad low surrogate");
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    }
                    utf8(out, cp);
                    break;
                }
                default: fail("bad escape");
                }
                continue;
            }
            // Raw UTF-8: check the sequence.
            std::size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                                            : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
            if (len == 0 || i_ + len > s_.size()) fail("invalid UTF-8");
            for (std::size_t k = 1; k < len; ++k)
                if ((static_cast<unsigned char>(s_[i_ + k]) & 0xc0) != 0x80) fail("invalid UTF-8");
            out += s_.substr(i_, len);
            i_ += len;
        }
    }

    std::string_view s_;
    std::size_t i_ = 0;
};

inline jvalue parse(std::string_view text) { return parser(text).parse(); }

inline bool valid(std::string_view text) {
    try {
        parse(text);
        return true;
    } catch (const std::runtime_error&) {
        return false;
    }
}

inline std::string to_json(const comet::report& r) {
    std::ostringstream os;
    comet::write_json(os, r);
    return os.str();
}

/// A context with fixed values, so outputs are reproducible.
inline comet::context fixed_context() {
    comet::context c;
    c.transport = "ipsc860";
    c.nodes = 16;
    c.comet_version = "0.1.0";
    c.host = "node0";
    c.date = "1993-06-01T12:00:00Z";
    c.compiler = "gcc 12.2.0";
    c.command_line = "comet --transport ipsc860";
    return c;
}

inline comet::report sample_report() {
    comet::report r;
    r.ctx = fixed_context();
    r.results.records.push_back({"echo", {{"size", std::int64_t{8}}, {"hops", std::int64_t{1}}}, {84e-6, 83e-6, 90e-6}, {{"order", "round_robin"}}});
    r.results.records.push_back({"overlap", {{"mode", "async"}, {"load", 0.5}}, {1.0 / 3.0}});
    r.results.records.push_back({"barrier", {{"nodes", std::int64_t{16}}}, {}});
    r.fits.push_back({"echo", "small", 79e-6, 0.63e-6, 25e-6, 1e-7, 36, 100.0});
    r.fits.push_back({"echo", "all", 80e-6, 0.5e-6, std::nullopt, 2e-6, 12, std::nullopt});
    r.bandwidth.push_back({"echo", 1, 2.5e6, 486.0, 5000.0});
    r.bandwidth.push_back({"echo", 4, std::numeric_limits<double>::quiet_NaN(), NAN, NAN});
    return r;
}

inline std::vector<std::string> strings(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }

}  // namespace json_test

BOOST_AUTO_TEST_SUITE(json)

using json_test::jvalue;

BOOST_AUTO_TEST_CASE(validator_is_strict) {
    using json_test::valid;
    BOOST_TEST(valid(R"({"a": [1, -0.5, 2e-05, true, null, "x\u00e9\n"]})"));
    BOOST_TEST(!valid(R"({"a": NaN})"));
    BOOST_TEST(!valid(R"({"a": nan})"));
    BOOST_TEST(!valid(R"({"a": Infinity})"));
    BOOST_TEST(!valid(R"({"a": 1,})"));
    BOOST_TEST(!valid(R"([1 2])"));
    BOOST_TEST(!valid(R"({"a": 01})"));
    BOOST_TEST(!valid(R"({"a": 1.})"));
    BOOST_TEST(!valid("{\"a\": \"tab\there\"}"));
    BOOST_TEST(!valid(R"("\ud800")"));
    BOOST_TEST(!valid("\"\xff\""));
    BOOST_TEST(!valid(R"({"a": 1} x)"));
    BOOST_TEST(!valid(R"({a: 1})"));
}

BOOST_AUTO_TEST_CASE(output_is_valid_json_with_keys_in_schema_order) {
    const std::string text = json_test::to_json(json_test::sample_report());
    const jvalue doc = json_test::parse(text);  // throws on invalid JSON
    BOOST_TEST(doc.keys == json_test::strings({"schema_version", "context", "transport", "nodes", "results", "fits",
                                               "bandwidth", "log_p_fits", "growth", "contention", "overlap", "commtest",
                                               "tables", "notes"}),
               boost::test_tools::per_element());
    BOOST_TEST(doc["schema_version"].raw == "2");
    BOOST_TEST(doc["transport"].str == "ipsc860");
    BOOST_TEST(doc["nodes"].raw == "16");
    BOOST_TEST(doc["context"].keys ==
                   json_test::strings({"comet_version", "host", "date", "compiler", "command_line", "build", "machine",
                                       "mpi_library", "transport_capabilities", "notes", "extra"}),
               boost::test_tools::per_element());
    BOOST_TEST(doc["context"]["date"].str == "1993-06-01T12:00:00Z");

    const auto& results = doc["results"];
    BOOST_TEST_REQUIRE(results.items.size() == 3u);
    const auto& echo = results[0];
    // 90 µs lies above median + 3σ̂ (84 + 3·1.48 µs): an outlier, and the record is flagged.
    BOOST_TEST(echo.keys == json_test::strings({"kernel", "params", "values", "stats", "flags", "samples"}),
               boost::test_tools::per_element());
    BOOST_TEST(echo["kernel"].str == "echo");
    BOOST_TEST(echo["params"].keys == json_test::strings({"size", "hops"}), boost::test_tools::per_element());
    BOOST_TEST(echo["params"]["size"].raw == "8");  // integers stay integers
    BOOST_TEST(echo["values"].keys == json_test::strings({"order"}), boost::test_tools::per_element());
    BOOST_TEST(echo["values"]["order"].str == "round_robin");
    BOOST_TEST(echo["stats"].keys == json_test::strings({"min", "median", "mean", "max", "n", "total", "stddev", "p05", "p95",
                                                         "median_ci_low", "median_ci_high", "ci_coverage", "mad",
                                                         "rel_spread", "unstable", "outliers"}),
               boost::test_tools::per_element());
    BOOST_TEST(echo["stats"]["median"].num == 84e-6);
    BOOST_TEST(echo["stats"]["min"].num == 83e-6);
    BOOST_TEST(echo["stats"]["n"].raw == "3");
    BOOST_TEST(echo["stats"]["total"].raw == "3");
    BOOST_TEST(echo["stats"]["outliers"].raw == "1");
    BOOST_TEST_REQUIRE(echo["flags"].items.size() == 3u);  // max, stddev, and the mean it pulls 2.6% up
    BOOST_TEST(echo["flags"][0].keys == json_test::strings({"what", "why"}), boost::test_tools::per_element());
    BOOST_TEST(echo["flags"][0]["what"].str == "max");
    BOOST_TEST(echo["flags"][1]["what"].str == "stddev");
    BOOST_TEST(echo["flags"][2]["what"].str == "mean");
    BOOST_TEST_REQUIRE(echo["samples"].items.size() == 3u);
    BOOST_TEST(echo["samples"][0].num == 84e-6);  // raw samples, in measurement order
    BOOST_TEST(echo["samples"][2].num == 90e-6);

    BOOST_TEST(results[1].keys == json_test::strings({"kernel", "params", "stats", "samples"}),  // no values, no flags
               boost::test_tools::per_element());
    const auto& overlap = results[1];
    BOOST_TEST(overlap["params"]["mode"].str == "async");
    BOOST_TEST(overlap["params"]["load"].raw == "0.5");
    BOOST_TEST(overlap["stats"]["stddev"].is_null());  // one sample: NaN → null

    const auto& fit = doc["fits"][0];
    BOOST_TEST(fit.keys == json_test::strings({"kernel", "regime", "valid", "flags", "t_startup", "t_startup_se",
                                               "t_per_byte", "t_per_byte_se", "hop", "hop_se", "residual", "sigma",
                                               "points", "dof", "break_size", "lower_break", "upper_break", "regimes",
                                               "break_tests"}),
               boost::test_tools::per_element());
    BOOST_TEST((fit["valid"].k == jvalue::kind::boolean));
    BOOST_TEST(fit["valid"].b);
    BOOST_TEST(fit["flags"].items.empty());
    BOOST_TEST(fit["t_startup"].num == 79e-6);
    BOOST_TEST(fit["hop"].num == 25e-6);
    BOOST_TEST(fit["break_size"].raw == "100");
    BOOST_TEST(doc["fits"][1]["hop"].is_null());
    BOOST_TEST(doc["fits"][1]["break_size"].is_null());

    const auto& bw = doc["bandwidth"];
    BOOST_TEST(bw[0].keys == json_test::strings({"kernel", "hops", "peak", "n_half", "n_90", "flags"}),
               boost::test_tools::per_element());
    BOOST_TEST(bw[0]["peak"].num == 2.5e6);
    BOOST_TEST(bw[1]["peak"].is_null());
    BOOST_TEST(bw[1]["n_90"].is_null());
}

BOOST_AUTO_TEST_CASE(record_without_samples_has_null_stats_and_empty_samples) {
    const jvalue doc = json_test::parse(json_test::to_json(json_test::sample_report()));
    const auto& barrier = doc["results"][2];
    BOOST_TEST(barrier["stats"]["n"].raw == "0");
    BOOST_TEST(barrier["stats"]["total"].raw == "0");
    BOOST_TEST(barrier["stats"]["outliers"].raw == "0");
    BOOST_TEST(barrier.keys == json_test::strings({"kernel", "params", "stats", "samples"}), boost::test_tools::per_element());
    for (const auto* k : {"min", "median", "mean", "max", "stddev", "p05", "p95", "median_ci_low", "median_ci_high",
                          "ci_coverage", "mad", "rel_spread"})
        BOOST_TEST(barrier["stats"][k].is_null(), k);
    BOOST_TEST(!barrier["stats"]["unstable"].b);
    BOOST_TEST((barrier["samples"].k == jvalue::kind::array));
    BOOST_TEST(barrier["samples"].items.empty());
}

BOOST_AUTO_TEST_CASE(validity_of_a_record_invalid_dropped_rounds_and_flags) {
    // A record with an invalid sample, measurements dropped and two rounds: the statistics are
    // over the valid samples (the mean over every iteration), n of total; the invalid samples
    // by reason, the dropped ones by reason, the rounds as {samples, iterations}.
    comet::report r;
    r.ctx = json_test::fixed_context();
    comet::record rec{.kernel = "echo",
                      .params = {{"size", std::int64_t{8}}},
                      .samples = {3e-6, -2e-6, 3.03e-6, 3.06e-6},
                      .values = {{"window", 2e-5}, {"widenings", std::int64_t{1}}},
                      .iterations = 10,
                      .stop = "fixed",
                      .rounds = {{2, 10}, {2, 30}}};
    comet::mark_negative(rec);
    comet::add_dropped(rec, "late_start", 5);
    comet::add_flag(rec, "widenings", "the window was widened");
    r.results.records.push_back(rec);
    comet::record whole{.kernel = "collectives", .params = {{"operation", "bcast"}}, .samples = {1e-6, 1e-6}};
    comet::add_dropped(whole, "late_start", 18);
    comet::add_flag(whole, "point", "its windows kept failing: 2 of 20 measurements started on time");
    r.results.records.push_back(whole);
    const std::string text = json_test::to_json(r);
    const jvalue doc = json_test::parse(text);
    const auto& e = doc["results"][0];
    BOOST_TEST(e.keys == json_test::strings({"kernel", "params", "values", "stats", "flags", "samples", "invalid", "dropped",
                                             "iterations", "stop", "rounds"}),
               boost::test_tools::per_element());
    BOOST_TEST(e["values"]["window"].num == 2e-5);
    BOOST_TEST(e["values"]["widenings"].raw == "1");
    BOOST_TEST(e["stats"]["n"].raw == "3");
    BOOST_TEST(e["stats"]["total"].raw == "9");  // 4 samples and 5 dropped
    BOOST_TEST(e["stats"]["min"].num == 3e-6);  // not the invalid −2 µs
    BOOST_TEST(e["stats"]["median"].num == 3.03e-6);
    BOOST_TEST(e["stats"]["mean"].num == (10 * 3e-6 + 30 * 3.03e-6 + 30 * 3.06e-6) / 70, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(e["stats"]["outliers"].raw == "0");
    BOOST_TEST_REQUIRE(e["flags"].items.size() == 1u);
    BOOST_TEST(e["flags"][0]["what"].str == "widenings");
    BOOST_TEST(e["flags"][0]["why"].str == "the window was widened");
    BOOST_TEST(e["samples"][1].num == -2e-6);  // kept raw
    BOOST_TEST(text.find(R"("invalid": {"negative": [1]})") != std::string::npos);
    BOOST_TEST(text.find(R"("dropped": {"late_start": 5})") != std::string::npos);
    BOOST_TEST(text.find(R"("rounds": [{"samples": 2, "iterations": 10}, {"samples": 2, "iterations": 30}])") != std::string::npos);
    // A point flagged as a whole: its counts, but no statistic at all.
    const auto& w = doc["results"][1];
    BOOST_TEST(w["stats"]["n"].raw == "2");
    BOOST_TEST(w["stats"]["total"].raw == "20");
    for (const auto* k : {"min", "median", "mean", "max", "stddev", "p05", "p95", "median_ci_low", "median_ci_high",
                          "ci_coverage", "mad", "rel_spread"})
        BOOST_TEST(w["stats"][k].is_null(), k);
    BOOST_TEST_REQUIRE(w["flags"].items.size() == 1u);
    BOOST_TEST(w["flags"][0]["what"].str == "point");
    BOOST_TEST(w["samples"].items.size() == 2u);  // the raw samples stay
}

BOOST_AUTO_TEST_CASE(non_finite_numbers_are_null_never_tokens) {
    comet::report r;
    r.ctx = json_test::fixed_context();
    const double inf = std::numeric_limits<double>::infinity();
    r.results.records.push_back({"echo", {{"load", std::numeric_limits<double>::quiet_NaN()}}, {inf, -inf, 1.0}});
    r.bandwidth.push_back({"echo", 1, inf, NAN, -inf});
    const std::string text = json_test::to_json(r);
    BOOST_TEST(text.find("nan") == std::string::npos);
    BOOST_TEST(text.find("NaN") == std::string::npos);
    BOOST_TEST(text.find("inf") == std::string::npos);
    const jvalue doc = json_test::parse(text);
    BOOST_TEST(doc["results"][0]["params"]["load"].is_null());
    BOOST_TEST(doc["results"][0]["samples"][0].is_null());
    BOOST_TEST(doc["results"][0]["samples"][1].is_null());
    BOOST_TEST(doc["results"][0]["samples"][2].num == 1.0);
    BOOST_TEST(doc["results"][0]["stats"]["max"].is_null());
    BOOST_TEST(doc["bandwidth"][0]["peak"].is_null());
}

BOOST_AUTO_TEST_CASE(strings_are_escaped_and_read_back) {
    comet::report r;
    r.ctx = json_test::fixed_context();
    const std::string nasty = std::string("q\"b\\s/ n\n t\t c\x01 del\x7f µs ") + "\xe2\x82\xac";  // € in UTF-8
    r.ctx.host = nasty;
    r.ctx.command_line = "bad \xff utf8 \xc3";  // a stray byte and a truncated sequence
    r.results.records.push_back({"k\"1", {{"protocol", "(0,3)"}, {"name\\x", "y"}}, {1.0}});
    const std::string text = json_test::to_json(r);

    BOOST_TEST(text.find(R"(q\"b\\s/ n\u000a t\u0009 c\u0001 del\u007f µs €)") != std::string::npos);
    const jvalue doc = json_test::parse(text);
    BOOST_TEST(doc["context"]["host"].str == nasty);  // lossless for valid UTF-8
    BOOST_TEST(doc["context"]["command_line"].str == "bad \xef\xbf\xbd utf8 \xef\xbf\xbd");  // U+FFFD each
    BOOST_TEST(doc["results"][0]["kernel"].str == "k\"1");
    BOOST_TEST(doc["results"][0]["params"]["name\\x"].str == "y");
}

BOOST_AUTO_TEST_CASE(numbers_round_trip_exactly) {
    const std::vector<double> values{1.0 / 3.0, 0.1, 1e-300, 5e-324, 1.7976931348623157e308, -0.0, 123456789.0,
                                     2.5e-7};
    comet::report r;
    r.ctx = json_test::fixed_context();
    r.results.records.push_back({"echo", {{"size", std::int64_t{9007199254740993}}}, values});
    const jvalue doc = json_test::parse(json_test::to_json(r));
    const auto& samples = doc["results"][0]["samples"];
    BOOST_TEST_REQUIRE(samples.items.size() == values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        BOOST_TEST(samples[i].num == values[i]);
        BOOST_TEST(std::signbit(samples[i].num) == std::signbit(values[i]));
    }
    BOOST_TEST(samples[0].raw == "0.3333333333333333");  // shortest form, not 17 digits
    BOOST_TEST(samples[6].raw == "123456789");
    BOOST_TEST(doc["results"][0]["params"]["size"].raw == "9007199254740993");  // 2^53 + 1: not through a double
}

BOOST_AUTO_TEST_CASE(identical_input_gives_byte_identical_output) {
    const auto a = json_test::sample_report();
    const auto b = json_test::sample_report();
    const std::string first = json_test::to_json(a);
    BOOST_TEST(first == json_test::to_json(a));
    BOOST_TEST(first == json_test::to_json(b));
    auto c = b;
    c.results.records[0].samples[0] = 85e-6;
    BOOST_TEST(first != json_test::to_json(c));
}

BOOST_AUTO_TEST_CASE(extra_context_names_are_unique_last_value_wins) {
    comet::report r;
    r.ctx = json_test::fixed_context();
    r.ctx.extra = {{"machine", "d=4"}, {"seed", "1"}, {"machine", "d=5"}};
    const jvalue doc = json_test::parse(json_test::to_json(r));
    const auto& extra = doc["context"]["extra"];
    BOOST_TEST(extra.keys == json_test::strings({"machine", "seed"}), boost::test_tools::per_element());
    BOOST_TEST(extra["machine"].str == "d=5");
}

BOOST_AUTO_TEST_CASE(golden_output) {
    // Two records: an echo point, and a broadcast point with its values, an invalid sample (in
    // the total, out of the statistics) and a flag of its own; samples close enough together
    // that no statistic of theirs is flagged (stats/validity.hpp's rules are tested there).
    comet::report r;
    r.ctx = json_test::fixed_context();
    r.ctx.nodes = 2;
    r.ctx.extra = {{"machine", "ipsc860 d=1"}};
    r.results.records.push_back({.kernel = "echo", .params = {{"size", std::int64_t{8}}, {"hops", std::int64_t{1}}}, .samples = {1e-4, 1.001e-4}});
    r.results.records.push_back({.kernel = "broadcast",
                                 .params = {{"size", std::int64_t{8}}, {"nodes", std::int64_t{2}}, {"reduction", "test_node"}, {"cache", "warm"}},
                                 .samples = {1e-4, 1.002e-4, -1e-6, 1.001e-4},
                                 .values = {{"implementation", "native"}, {"closing_barrier", 5e-5}, {"order", "round_robin"}},
                                 .iterations = 20,
                                 .stop = "fixed",
                                 .invalid = {{2, "negative"}},
                                 .flags = {{"without_barrier", "too few paired samples for an interval (3)"}}});
    r.fits.push_back({"echo", "all", 79e-6, 0.63e-6, std::nullopt, 0.0, 2, std::nullopt});
    r.bandwidth.push_back({"echo", 1, 53333.333333333336, 8.0, 8.0});
    const std::string expected = R"golden({
  "schema_version": 2,
  "context": {
    "comet_version": "0.1.0",
    "host": "node0",
    "date": "1993-06-01T12:00:00Z",
    "compiler": "gcc 12.2.0",
    "command_line": "comet --transport ipsc860",
    "build": {"type": "", "optimized": null, "sanitizers": []},
    "machine": {
      "cpu_model": "",
      "logical_cores": null,
      "usable_cores": null,
      "caches": [],
      "governor": "",
      "turbo": "",
      "load_start": null,
      "load_end": null,
      "local_ranks": 0
    },
    "mpi_library": null,
    "transport_capabilities": [],
    "notes": [],
    "extra": {
      "machine": "ipsc860 d=1"
    }
  },
  "transport": "ipsc860",
  "nodes": 2,
  "results": [
    {
      "kernel": "echo",
      "params": {"size": 8, "hops": 1},
      "stats": {"min": 0.0001, "median": 0.00010004999999999999, "mean": 0.00010004999999999999, "max": 0.0001001, "n": 2, "total": 2, "stddev": 7.071067811864688e-08, "p05": null, "p95": null, "median_ci_low": null, "median_ci_high": null, "ci_coverage": null, "mad": 7.413011092527186e-08, "rel_spread": 0.0007409306439307533, "unstable": false, "outliers": 0},
      "samples": [0.0001, 0.0001001]
    },
    {
      "kernel": "broadcast",
      "params": {"size": 8, "nodes": 2, "reduction": "test_node", "cache": "warm"},
      "values": {"implementation": "native", "closing_barrier": 5e-05, "order": "round_robin"},
      "stats": {"min": 0.0001, "median": 0.0001001, "mean": 0.0001001, "max": 0.0001002, "n": 3, "total": 4, "stddev": 9.999999999999565e-08, "p05": null, "p95": null, "median_ci_low": null, "median_ci_high": null, "ci_coverage": null, "mad": 1.4826022185054373e-07, "rel_spread": 0.0014811210974080293, "unstable": false, "outliers": 0},
      "flags": [
        {"what": "without_barrier", "why": "too few paired samples for an interval (3)"}
      ],
      "samples": [0.0001, 0.0001002, -1e-06, 0.0001001],
      "invalid": {"negative": [2]},
      "iterations": 20,
      "stop": "fixed"
    }
  ],
  "fits": [
    {"kernel": "echo", "regime": "all", "valid": true, "flags": [], "t_startup": 7.9e-05, "t_startup_se": null, "t_per_byte": 6.3e-07, "t_per_byte_se": null, "hop": null, "hop_se": null, "residual": 0, "sigma": null, "points": 2, "dof": 0, "break_size": null, "lower_break": null, "upper_break": null, "regimes": 1, "break_tests": []}
  ],
  "bandwidth": [
    {"kernel": "echo", "hops": 1, "peak": 53333.333333333336, "n_half": 8, "n_90": 8, "flags": []}
  ],
  "log_p_fits": [],
  "growth": [],
  "contention": [],
  "overlap": [],
  "commtest": [],
  "tables": [],
  "notes": []
}
)golden";
    BOOST_TEST(json_test::to_json(r) == expected);
}

BOOST_AUTO_TEST_CASE(median_interval_with_its_coverage_from_six_samples) {
    comet::report r;
    r.ctx = json_test::fixed_context();
    r.results.records.push_back({"echo", {}, {5e-6, 1e-6, 3e-6, 2e-6, 4e-6}});       // 5: no interval
    r.results.records.push_back({"echo", {}, {5e-6, 1e-6, 3e-6, 2e-6, 4e-6, 6e-6}});  // 6: [min, max]
    const jvalue doc = json_test::parse(json_test::to_json(r));
    BOOST_TEST(doc["results"][0]["stats"]["median_ci_low"].is_null());
    BOOST_TEST(doc["results"][0]["stats"]["ci_coverage"].is_null());
    const auto& six = doc["results"][1]["stats"];
    BOOST_TEST(six["median_ci_low"].num == 1e-6);
    BOOST_TEST(six["median_ci_high"].num == 6e-6);
    BOOST_TEST(six["ci_coverage"].raw == "0.96875");  // 1 − 2/64
    BOOST_TEST(six["p05"].is_null());                 // fewer than 20 samples
}

BOOST_AUTO_TEST_CASE(a_flagged_fit_has_null_coefficients_and_says_why) {
    // The iPSC/860 large-message pairwise fit once reported: hop −414.9 µs, residual 557.7 µs.
    comet::report r;
    r.ctx = json_test::fixed_context();
    comet::transfer_fit f{"pairwise", "large", 2.1e-3, 0.41e-6, -414.9e-6, 557.7e-6, 20, 100.0};
    f.t_startup_se = 1e-4;
    f.hop_se = 80e-6;
    f.sigma = 600e-6;
    f.dof = 17;
    f.lower_break = 100.0;
    f.regimes = 2;
    f.flags = {"negative_hop"};
    comet::break_test t;
    t.regimes = 1;
    t.break_size = 100.0;
    t.f = 4.5;
    t.df1 = 3;
    t.df2 = 14;
    t.p_nominal = 0.02;
    t.candidates = 1;
    t.p = 0.02;
    t.given = true;
    t.chosen = true;
    f.break_tests = {t};
    r.fits.push_back(f);
    const std::string text = json_test::to_json(r);
    BOOST_TEST(text.find("414") == std::string::npos);  // the nonsense number is nowhere in the file
    const jvalue doc = json_test::parse(text);
    const auto& fit = doc["fits"][0];
    BOOST_TEST(!fit["valid"].b);
    BOOST_TEST_REQUIRE(fit["flags"].items.size() == 1u);
    BOOST_TEST(fit["flags"][0].str == "negative_hop");
    for (const auto* k : {"t_startup", "t_startup_se", "t_per_byte", "t_per_byte_se", "hop", "hop_se"})
        BOOST_TEST(fit[k].is_null(), k);
    BOOST_TEST(fit["residual"].num == 557.7e-6);  // facts about the fit stay
    BOOST_TEST(fit["points"].raw == "20");
    BOOST_TEST(fit["lower_break"].raw == "100");
    BOOST_TEST(fit["upper_break"].is_null());
    const auto& bt = fit["break_tests"][0];
    BOOST_TEST(bt.keys == json_test::strings({"regimes", "break_size", "f", "df1", "df2", "p_nominal", "candidates", "p",
                                              "alpha", "given", "chosen"}),
               boost::test_tools::per_element());
    BOOST_TEST(bt["f"].num == 4.5);
    BOOST_TEST(bt["df2"].raw == "14");
    BOOST_TEST(bt["given"].b);
    BOOST_TEST(bt["chosen"].b);
}

BOOST_AUTO_TEST_CASE(fits_from_fit_transfers_round_trip) {
    // What fit_transfers gives, straight into the file: standard errors as numbers, the break
    // test with an infinite F (an exact split) as null, never a token.
    comet::report r;
    r.ctx = json_test::fixed_context();
    for (std::int64_t s : {0, 8, 16, 32, 64, 100, 104, 128, 256, 512, 1024}) {
        comet::record rec{"echo", {}, {s <= 100 ? 79e-6 + static_cast<double>(s) * 0.63e-6 : 156e-6 + static_cast<double>(s) * 0.41e-6}};
        rec.params.set("size", s);
        r.results.records.push_back(rec);
    }
    r.fits = comet::fit_transfers(r.results, "echo", {.find_break = true});
    const std::string text = json_test::to_json(r);
    const jvalue doc = json_test::parse(text);
    BOOST_TEST_REQUIRE(doc["fits"].items.size() == 2u);
    BOOST_TEST(doc["fits"][0]["regime"].str == "small");
    BOOST_TEST(doc["fits"][0]["regimes"].raw == "2");
    BOOST_TEST(doc["fits"][0]["upper_break"].raw == "100");
    BOOST_TEST(!doc["fits"][0]["t_startup_se"].is_null());
    BOOST_TEST(doc["fits"][0]["break_tests"][0]["f"].is_null());  // +inf
    BOOST_TEST(doc["fits"][0]["break_tests"][0]["chosen"].b);
}

BOOST_AUTO_TEST_CASE(derived_sections) {
    // The analyses of the whole suite, each with a hand-made value: valid JSON, null for NaN,
    // booleans as true/false, and the golden text of one of them.
    comet::report r;
    r.ctx = json_test::fixed_context();
    comet::log_p_fit f;
    f.kernel = "barrier";
    f.intercept = 1e-5;
    f.per_doubling = 2e-5;
    f.r_squared = 1.0;
    f.r_squared_linear_p = 0.9;
    f.logarithmic = true;
    f.points = 3;
    f.data = {{2, 3e-5}, {4, 5e-5}, {8, 7e-5}};
    r.log_p.push_back(f);
    comet::growth_comparison g;
    g.kernel = "transpose";
    g.x = "matrix_dim";
    g.group.set("nodes", 16);
    g.linear = {{1e-3, 2e-5}, 1e-6, 0.9};
    g.quadratic = {{1e-3, 0.0, 3e-7}, 0.0, 1.0};
    g.quadratic_share = 1.0;
    g.f_statistic = std::numeric_limits<double>::infinity();
    g.f_critical = std::numeric_limits<double>::quiet_NaN();
    g.model = comet::growth_model::quadratic;
    g.points = 3;
    r.growth.push_back(g);
    comet::contention_slowdown c;
    c.kernel = "contention";
    c.load = 0.5;
    c.cross_size = 486;
    c.points = {{8, 1e-4, 2e-4, 2.0}};
    r.contention.push_back(c);
    comet::overlap_gain o;
    o.kernel = "overlap";
    o.points = {{85000, 1000, 2e-3, 1e-3, 2.0, 0.5, std::numeric_limits<double>::quiet_NaN()}};
    r.overlap.push_back(o);
    r.notes = {"no fit for \"pairwise\""};
    const std::string text = json_test::to_json(r);
    const jvalue doc = json_test::parse(text);
    BOOST_TEST(doc["log_p_fits"].items.size() == 1u);
    BOOST_TEST(text.find(R"("logarithmic": true)") != std::string::npos);
    BOOST_TEST(text.find(R"("data": [{"nodes": 2, "time": 3e-05}, {"nodes": 4, "time": 5e-05}, {"nodes": 8, "time": 7e-05}])") !=
               std::string::npos);
    BOOST_TEST(text.find(R"("model": "quadratic")") != std::string::npos);
    BOOST_TEST(text.find(R"("f_statistic": null, "f_critical": null)") == std::string::npos);  // not adjacent: keys differ
    BOOST_TEST(text.find(R"("f_statistic": null)") != std::string::npos);                      // infinity
    BOOST_TEST(text.find(R"("hidden": null)") != std::string::npos);
    BOOST_TEST(text.find(R"("notes": [
    "no fit for \"pairwise\""
  ])") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(commtest_statistics_null_where_flagged_and_not_supported_said) {
    const auto point = [](const std::string& protocol, std::int64_t n, double t) {
        comet::record rec{"commtest", {}, {t}};
        rec.params.set("protocol", protocol).set("volume", 8192).set("messages", n).set("size", 8192 / n);
        rec.params.set("pair", "0-2+1-3").set("cache", "repeat:10").set("prepost", "on").set("nodes", 4);
        return rec;
    };
    comet::result_set rs;
    for (std::int64_t n : {1, 2, 4}) {
        rs.records.push_back(point("(1,0)", n, 1e-4));                                       // a = 0: error 0
        rs.records.push_back(point("(0,6)", n, 1e-4 - 1e-6 * static_cast<double>(n)));  // a < 0
    }
    comet::record u{"commtest", {{"protocol", "(1,4)"}, {"volume", std::int64_t{8192}}}, {}};
    u.notes.push_back("not supported: the transport has no ready send (rsend, irsend)");
    rs.records.push_back(u);
    comet::report r;
    r.ctx = json_test::fixed_context();
    r.commtest = comet::commtest_statistics_of(rs);
    const std::string text = json_test::to_json(r);
    const jvalue doc = json_test::parse(text);
    const auto& c = doc["commtest"];
    BOOST_TEST_REQUIRE(c.items.size() == 3u);

    const auto& ordered = c[0];
    BOOST_TEST(ordered.keys == json_test::strings({"kernel", "group", "protocol", "ordered", "volume", "supported", "valid",
                                                   "flags", "n1", "n2", "a", "latency", "b", "swap_bandwidth",
                                                   "busy_bandwidth", "idle_bandwidth", "b_messages", "points", "max_error",
                                                   "mean_error", "regimes", "break_tests", "dominant_all", "dominant_points",
                                                   "dominant_min_size", "dominant_max_size", "dominant_max_error",
                                                   "dominant_mean_error", "data", "notes"}),
               boost::test_tools::per_element());
    BOOST_TEST(ordered["group"].keys == json_test::strings({"protocol", "volume", "pair", "cache", "prepost", "nodes"}),
               boost::test_tools::per_element());
    BOOST_TEST(ordered["ordered"].b);
    BOOST_TEST(ordered["valid"].b);
    BOOST_TEST(ordered["n1"].raw == "2");  // no 512 and 1024: the two largest, said in a note
    BOOST_TEST(ordered["n2"].raw == "4");
    BOOST_TEST(ordered["a"].raw == "0");
    BOOST_TEST(ordered["b"].num == 1e-4 / 8192);
    BOOST_TEST(ordered["idle_bandwidth"].num == 2.0 / (1e-4 / 8192));
    BOOST_TEST(ordered["busy_bandwidth"].is_null());  // unordered protocols only
    BOOST_TEST(ordered["max_error"].raw == "0");
    BOOST_TEST(ordered["dominant_all"].b);
    BOOST_TEST(ordered["notes"][0].str == "a from N = 2 and 4, the two largest measured: the group has no N = 512 and 1024");
    BOOST_TEST(text.find(R"("data": [{"messages": 1, "size": 8192, "time": 0.0001, "error": 0, "dominant": true}, )") !=
               std::string::npos);

    const auto& flagged = c[1];
    BOOST_TEST(!flagged["valid"].b);
    BOOST_TEST_REQUIRE(flagged["flags"].items.size() == 1u);
    BOOST_TEST(flagged["flags"][0].str == "negative_a");
    BOOST_TEST(flagged["a"].is_null());
    BOOST_TEST(flagged["latency"].is_null());
    BOOST_TEST(flagged["b"].num == (1e-4 - 4e-6) / 8192);  // b does not depend on a
    BOOST_TEST(flagged["busy_bandwidth"].num > 0.0);
    BOOST_TEST(text.find("\": -") == std::string::npos);  // the negative a is nowhere in the file

    const auto& unsupported = c[2];
    BOOST_TEST(!unsupported["supported"].b);
    BOOST_TEST(!unsupported["valid"].b);
    BOOST_TEST(unsupported["flags"].items.empty());
    for (const auto* k : {"n1", "a", "b", "swap_bandwidth", "max_error", "dominant_max_error"})
        BOOST_TEST(unsupported[k].is_null(), k);
    BOOST_TEST(unsupported["points"].raw == "0");
    BOOST_TEST(unsupported["data"].items.empty());
    BOOST_TEST(unsupported["notes"][0].str == "not supported: the transport has no ready send (rsend, irsend)");
}

BOOST_AUTO_TEST_CASE(empty_report_is_valid) {
    const std::string text = json_test::to_json(comet::report{});
    const jvalue doc = json_test::parse(text);
    BOOST_TEST(doc["results"].items.empty());
    BOOST_TEST(doc["nodes"].raw == "0");
    BOOST_TEST(text.find("\"results\": []") != std::string::npos);
    BOOST_TEST(text.find("\"extra\": {}") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_run_that_stopped_says_where_and_why_last) {
    comet::report r;
    BOOST_TEST(json_test::to_json(r).find("\"stopped\"") == std::string::npos);  // a complete run has none
    r.stopped = comet::stop_note{.kernel = "pairwise", .last_point = "pairwise/size:8/hops:1/nodes:2", .reason = "interrupted (SIGINT)"};
    const jvalue doc = json_test::parse(json_test::to_json(r));
    BOOST_TEST(doc.keys.back() == "stopped");
    BOOST_TEST(doc["stopped"]["kernel"].str == "pairwise");
    BOOST_TEST(doc["stopped"]["last_point"].str == "pairwise/size:8/hops:1/nodes:2");
    BOOST_TEST(doc["stopped"]["reason"].str == "interrupted (SIGINT)");
    BOOST_TEST(comet::describe(*r.stopped) == "stopped in pairwise after pairwise/size:8/hops:1/nodes:2: interrupted (SIGINT)");
    BOOST_TEST(comet::describe(comet::stop_note{.kernel = "echo", .reason = "boom"}) == "stopped in echo before any point was measured: boom");
}

BOOST_AUTO_TEST_CASE(make_context_fills_the_machine_facts) {
    const auto c = comet::make_context("threads", 4);
    BOOST_TEST(c.transport == "threads");
    BOOST_TEST(c.nodes == 4);
    BOOST_TEST(c.comet_version == COMET_VERSION_STRING);
    BOOST_TEST(c.comet_version == std::to_string(COMET_VERSION_MAJOR) + "." + std::to_string(COMET_VERSION_MINOR) + "." + std::to_string(COMET_VERSION_PATCH));
    BOOST_TEST(!c.host.empty());
    BOOST_TEST(!c.compiler.empty());
    BOOST_TEST(c.command_line.empty());
    // UTC ISO-8601: YYYY-MM-DDTHH:MM:SSZ
    BOOST_TEST_REQUIRE(c.date.size() == 20u);
    for (std::size_t i : {4u, 7u}) BOOST_TEST(c.date[i] == '-');
    BOOST_TEST(c.date[10] == 'T');
    BOOST_TEST(c.date[13] == ':');
    BOOST_TEST(c.date[16] == ':');
    BOOST_TEST(c.date[19] == 'Z');
    BOOST_TEST(c.date.substr(0, 2) == "20");
    BOOST_TEST(!c.build.type.empty());           // the build and the machine: test_context.cpp
    BOOST_TEST(!c.machine.cpu_model.empty());
    BOOST_TEST(json_test::valid(json_test::to_json(comet::report{c, {}, {}, {}})));
}

BOOST_AUTO_TEST_CASE(command_line_of_quotes_what_a_shell_would_split) {
    const char* argv[] = {"comet", "--sizes", "0,8,100", "--out", "my dir", "it's"};
    BOOST_TEST(comet::command_line_of(6, argv) == R"(comet --sizes 0,8,100 --out 'my dir' 'it'\''s')");
    const char* empty[] = {"comet", ""};
    BOOST_TEST(comet::command_line_of(2, empty) == "comet ''");
}

BOOST_AUTO_TEST_SUITE_END()
