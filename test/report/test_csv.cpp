// Tests of comet/report/csv.hpp: the header is the union of param names, then of value names,
// in first-seen order, then the statistics (n of total measurements) and the flags; missing
// params and values, NaN values and statistics the sample count does not support are empty cells,
// statistics are over the valid samples and empty for a point flagged as a whole,
// words are quoted as RFC 4180 wants, every number reads back to the same double, a flagged
// fit has empty coefficients and its flags, and so has a flagged COMMTEST statistic; an
// unsupported protocol says so.
#include <comet/report/csv.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace csv_test {

inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream is(text);
    for (std::string l; std::getline(is, l);) out.push_back(l);
    return out;
}

/// Splits one CSV line into cells, undoing RFC 4180 quoting (no embedded newlines needed here).
inline std::vector<std::string> cells(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                out.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                out.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

/// The flags cell of `r`: every flag a reader must see (the record's own, then those its
/// samples call for: stats/validity.hpp), "what: why" joined by ";".
inline std::string flags_cell(const comet::record& r) {
    std::string out;
    for (const auto& f : comet::assess(r).flags) out += (out.empty() ? "" : ";") + f.what + ": " + f.why;
    return out;
}

inline comet::result_set sample_results() {
    comet::result_set rs;
    rs.records.push_back({"echo", {{"size", std::int64_t{8}}, {"hops", std::int64_t{1}}}, {3e-6, 1e-6, 2e-6}});
    rs.records.push_back({"overlap", {{"size", std::int64_t{2536}}, {"mode", "async"}, {"vector_length", std::int64_t{1000}}},
                          {0.25, 0.75}});
    rs.records.push_back({"commtest", {{"protocol", "(0,3)"}, {"load", 0.5}}, {}});
    rs.records.push_back({"odd", {{"mode", "say \"hi\""}}, {1.0 / 3.0}});
    return rs;
}

}  // namespace csv_test

BOOST_AUTO_TEST_SUITE(csv)

BOOST_AUTO_TEST_CASE(header_is_kernel_then_param_union_then_stats) {
    std::ostringstream os;
    comet::write_csv(os, csv_test::sample_results());
    const auto l = csv_test::lines(os.str());
    BOOST_TEST_REQUIRE(l.size() == 5u);
    BOOST_TEST(l[0] == "kernel,size,hops,mode,vector_length,protocol,load,n,total,min,median,mean,max,stddev,p05,p95,"
                       "median_ci_low,median_ci_high,ci_coverage,mad,rel_spread,unstable,iterations,overhead,stop,flags");
}

BOOST_AUTO_TEST_CASE(rows_hold_params_and_summary_in_seconds) {
    std::ostringstream os;
    comet::write_csv(os, csv_test::sample_results());
    const auto l = csv_test::lines(os.str());
    BOOST_TEST_REQUIRE(l.size() == 5u);
    // echo: samples 3, 1, 2 µs → min 1e-06, median 2e-06, mean 2e-06, max 3e-06, stddev 1e-06
    const auto echo = csv_test::cells(l[1]);
    BOOST_TEST_REQUIRE(echo.size() == 26u);
    BOOST_TEST(echo[0] == "echo");
    BOOST_TEST(echo[1] == "8");
    BOOST_TEST(echo[2] == "1");
    BOOST_TEST(echo[3] == "");  // no mode
    BOOST_TEST(echo[7] == "3");  // n: valid samples
    BOOST_TEST(echo[8] == "3");  // total: every measurement
    BOOST_TEST(std::strtod(echo[9].c_str(), nullptr) == 1e-6);
    BOOST_TEST(std::strtod(echo[10].c_str(), nullptr) == 2e-6);
    BOOST_TEST(std::strtod(echo[12].c_str(), nullptr) == 3e-6);
    // 3 samples: no percentiles, no interval of the median (empty cells, never "nan")
    for (std::size_t i = 14; i < 19; ++i) BOOST_TEST(echo[i] == "");
    // deviations from 2 µs: 1, 1, 0 → MAD 1 µs, scaled by 1.4826; relative 74%: unstable
    BOOST_TEST(echo[19] == "1.482602218505602e-06");
    BOOST_TEST(echo[21] == "true");
    // 74% is no spread to read a median at: every statistic is flagged, first.
    BOOST_TEST(echo[25] == csv_test::flags_cell(csv_test::sample_results().records[0]));
    BOOST_TEST(echo[25].starts_with("statistics: "), echo[25]);
    // overlap: 0.25 and 0.75 → median = mean = 0.5, stddev = sqrt((0.0625 + 0.0625) / 1),
    // MAD 0.25·1.4826
    BOOST_TEST(l[2] == "overlap,2536,,async,1000,,,2,2,0.25,0.5,0.5,0.75,0.3535533905932738,,,,,,0.3706505546264005,"
                       "0.741301109252801,true,,,," +
                           csv_test::flags_cell(csv_test::sample_results().records[1]));
    BOOST_TEST(csv_test::flags_cell(csv_test::sample_results().records[1]).starts_with("statistics: "));
}

BOOST_AUTO_TEST_CASE(values_follow_the_params_and_flags_come_last) {
    // Values are columns after every param (a param of a later record still comes first), a
    // record lacking one has an empty cell; an invalid sample is out of the statistics and a
    // dropped measurement counts in total; the flags, the record's and those its samples call
    // for, are "what: why" joined by ";".
    comet::result_set rs;
    comet::record a{"broadcast", {{"size", std::int64_t{8}}}, {2e-6, 1.98e-6, -1e-6, 2.02e-6}};
    a.values.set("implementation", "native").set("closing_barrier", 0.5);
    comet::mark_negative(a);
    comet::add_dropped(a, "late_start", 2);
    comet::add_flag(a, "without_barrier", "not resolved");
    rs.records.push_back(a);
    comet::record b{"echo", {{"hops", std::int64_t{1}}}, {1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1.5e-6}};
    b.values.set("order", "round_robin");
    rs.records.push_back(b);
    std::ostringstream os;
    comet::write_csv(os, rs);
    const auto l = csv_test::lines(os.str());
    BOOST_TEST_REQUIRE(l.size() == 3u);
    BOOST_TEST(l[0].starts_with("kernel,size,hops,implementation,closing_barrier,order,n,total,min,"));
    BOOST_TEST(l[0].ends_with(",stop,flags"));
    const auto c = csv_test::cells(l[1]);
    BOOST_TEST_REQUIRE(c.size() == 25u);
    BOOST_TEST(c[1] == "8");
    BOOST_TEST(c[2] == "");
    BOOST_TEST(c[3] == "native");
    BOOST_TEST(c[4] == "0.5");
    BOOST_TEST(c[5] == "");
    BOOST_TEST(c[6] == "3");  // n: the valid samples 2, 1.98 and 2.02 µs
    BOOST_TEST(c[7] == "6");  // total: 4 samples and 2 dropped
    BOOST_TEST(std::strtod(c[8].c_str(), nullptr) == 1.98e-6);  // min: not the invalid −1 µs
    BOOST_TEST(std::strtod(c[9].c_str(), nullptr) == 2e-6);     // median
    BOOST_TEST(std::strtod(c[11].c_str(), nullptr) == 2.02e-6);  // max
    BOOST_TEST(c[24] == "without_barrier: not resolved");
    const auto d = csv_test::cells(l[2]);
    BOOST_TEST_REQUIRE(d.size() == 25u);
    BOOST_TEST(d[3] == "");
    BOOST_TEST(d[5] == "round_robin");
    BOOST_TEST(d[6] == "10");
    BOOST_TEST(d[7] == "10");
    // 1.5 µs against a median of 1 µs and a MAD of 0: an outlier, which flags max, stddev and
    // mean (moved 5% from the others'); and a tenth of the samples apart, which flags every
    // statistic.
    BOOST_TEST(d[24] == csv_test::flags_cell(b));
    for (const char* what : {"statistics: ", ";max: ", ";stddev: ", ";mean: "}) BOOST_TEST(d[24].find(what) != std::string::npos, what);
}

BOOST_AUTO_TEST_CASE(a_point_flagged_as_a_whole_has_no_statistic) {
    comet::result_set rs;
    comet::record r{"collectives", {{"operation", "bcast"}}, {1e-6, 1e-6}};
    comet::add_dropped(r, "late_start", 38);
    comet::add_flag(r, "point", "its windows kept failing");
    rs.records.push_back(r);
    std::ostringstream os;
    comet::write_csv(os, rs);
    const auto c = csv_test::cells(csv_test::lines(os.str()).at(1));
    BOOST_TEST_REQUIRE(c.size() == 21u);
    BOOST_TEST(c[2] == "2");   // n: its samples are still counted
    BOOST_TEST(c[3] == "40");  // total
    for (std::size_t i = 4; i < 16; ++i) BOOST_TEST(c[i] == "", i);  // min .. rel_spread: not reported
    BOOST_TEST(c[16] == "false");
    BOOST_TEST(c[20] == "point: its windows kept failing");
}

BOOST_AUTO_TEST_CASE(words_with_commas_and_quotes_are_quoted) {
    std::ostringstream os;
    comet::write_csv(os, csv_test::sample_results());
    const auto l = csv_test::lines(os.str());
    BOOST_TEST_REQUIRE(l.size() == 5u);
    BOOST_TEST(l[3].find("\"(0,3)\",0.5") != std::string::npos);
    BOOST_TEST(l[4].find("\"say \"\"hi\"\"\"") != std::string::npos);
    BOOST_TEST(csv_test::cells(l[4])[3] == "say \"hi\"");
    BOOST_TEST(comet::detail::csv_cell("a\nb") == "\"a\nb\"");
    BOOST_TEST(comet::detail::csv_cell(" padded") == "\" padded\"");
    BOOST_TEST(comet::detail::csv_cell("plain") == "plain");
}

BOOST_AUTO_TEST_CASE(record_without_samples_has_n_0_and_empty_stats) {
    std::ostringstream os;
    comet::write_csv(os, csv_test::sample_results());
    const auto c = csv_test::cells(csv_test::lines(os.str())[3]);
    BOOST_TEST_REQUIRE(c.size() == 26u);
    BOOST_TEST(c[5] == "(0,3)");
    BOOST_TEST(c[7] == "0");
    BOOST_TEST(c[8] == "0");
    for (std::size_t i = 9; i < 21; ++i) BOOST_TEST(c[i] == "");  // NaN → empty, never "nan"
    BOOST_TEST(c[21] == "false");
    BOOST_TEST(c[25] == "");  // no flags: no measurement, nothing to flag
}

BOOST_AUTO_TEST_CASE(numbers_round_trip_exactly) {
    std::ostringstream os;
    comet::write_csv(os, csv_test::sample_results());
    const auto c = csv_test::cells(csv_test::lines(os.str())[4]);
    BOOST_TEST(std::strtod(c[9].c_str(), nullptr) == 1.0 / 3.0);  // 17 significant digits survive
    BOOST_TEST(c[13] == "");                                       // stddev of one sample: NaN
}

BOOST_AUTO_TEST_CASE(empty_result_set_is_just_the_header) {
    std::ostringstream os;
    comet::write_csv(os, comet::result_set{});
    BOOST_TEST(os.str() ==
               "kernel,n,total,min,median,mean,max,stddev,p05,p95,median_ci_low,median_ci_high,ci_coverage,mad,rel_spread,"
               "unstable,iterations,overhead,stop,flags\n");
}

BOOST_AUTO_TEST_CASE(fits_and_bandwidth_csv) {
    std::vector<comet::transfer_fit> fits{
        {"echo", "small", 79e-6, 0.63e-6, 25e-6, 1e-7, 36, 100.0},
        {"pairwise", "all", 1e-5, 2e-9, std::nullopt, 0.0, 4, std::nullopt},
        {"pairwise", "large", 2e-3, 0.4e-6, -414.9e-6, 557.7e-6, 20, 100.0},
    };
    fits[0].t_startup_se = 1e-6;
    fits[0].t_per_byte_se = 2e-9;
    fits[0].hop_se = 5e-7;
    fits[0].sigma = 1.1e-7;
    fits[0].dof = 33;
    fits[0].upper_break = 100.0;
    fits[0].regimes = 2;
    fits[2].hop_se = 30e-6;
    fits[2].flags = {"negative_hop", "too_few_points"};
    std::ostringstream os;
    comet::write_fits_csv(os, fits);
    BOOST_TEST(os.str() ==
               "kernel,regime,t_startup,t_per_byte,hop,residual,points,break_size,valid,flags,t_startup_se,"
               "t_per_byte_se,hop_se,sigma,dof,lower_break,upper_break,regimes\n"
               "echo,small,7.9e-05,6.3e-07,2.5e-05,1e-07,36,100,true,,1e-06,2e-09,5e-07,1.1e-07,33,,100,2\n"
               "pairwise,all,1e-05,2e-09,,0,4,,true,,,,,,0,,,1\n"
               // flagged: no coefficient, no standard error — only the facts of the fit and why
               "pairwise,large,,,,0.0005577,20,100,false,negative_hop;too_few_points,,,,,0,,,1\n");

    const std::vector<comet::bandwidth_figures> bw{{"echo", 1, 2.5e6, 486.0, 5000.0},
                                                   {"echo", 4, NAN, NAN, NAN},
                                                   {"pairwise", 1, 1e6, 100.0, 900.0, {"a; b", "c"}}};
    std::ostringstream ob;
    comet::write_bandwidth_csv(ob, bw);
    BOOST_TEST(ob.str() ==
               "kernel,hops,peak,n_half,n_90,flags\n"
               "echo,1,2500000,486,5000,\n"
               "echo,4,,,,\n"
               "pairwise,1,1000000,100,900,a; b;c\n");
}

BOOST_AUTO_TEST_CASE(commtest_csv_with_flags_and_unsupported_protocols) {
    const auto point = [](const std::string& protocol, std::int64_t n, double t) {
        comet::record r{"commtest", {}, {t}};
        r.params.set("protocol", protocol).set("volume", 8192).set("messages", n).set("size", 8192 / n);
        r.params.set("pair", "0-1").set("cache", "warm").set("prepost", "off").set("nodes", 2);
        return r;
    };
    comet::result_set rs;
    for (std::int64_t n : {1, 2, 4}) {
        rs.records.push_back(point("(0,0)", n, static_cast<double>(n + 3) / 8192));  // binary fractions: exact
        rs.records.push_back(point("(0,6)", n, 0.5 - 0.125 * static_cast<double>(n)));
    }
    comet::record u{"commtest", {}, {}};
    u.params.set("protocol", "(1,4)").set("volume", 8192).set("pair", "0-1").set("cache", "warm").set("prepost", "off");
    u.params.set("nodes", 2);
    u.notes.push_back("not supported: the transport has no ready send (rsend, irsend)");
    rs.records.push_back(u);
    std::ostringstream os;
    comet::write_commtest_csv(os, comet::commtest_statistics_of(rs));
    const auto l = csv_test::lines(os.str());
    BOOST_TEST_REQUIRE(l.size() == 4u);
    BOOST_TEST(l[0] == "kernel,protocol,volume,pair,cache,prepost,nodes,supported,valid,flags,n1,n2,a,latency,b,swap_bandwidth,"
                       "busy_bandwidth,idle_bandwidth,b_messages,points,max_error,mean_error,regimes,dominant_points,"
                       "dominant_min_size,dominant_max_size,dominant_max_error,dominant_mean_error,notes");
    // T_N = (N + 3)/8192 s: a = 1/8192 s (from N = 2 and 4), b = T_1 / 8192 B = 2^-24 s/B, swap
    // 2^25 B/s, busy 2^24; the model (N + 4)/8192 misses every T_N by 1/8192 s: 1/4, 1/5, 1/7.
    BOOST_TEST(l[1] == "commtest,\"(0,0)\",8192,0-1,warm,off,2,true,true,,2,4,0.0001220703125,0.0001220703125,"
                       "5.960464477539063e-08,33554432,16777216,,1,3,0.25,0.1976190476190476,1,3,2048,8192,0.25,"
                       "0.1976190476190476,\"a from N = 2 and 4, the two largest measured: the group has no N = 512 and 1024\"");
    // T_N = 0.5 − 0.125·N reaches 0 at N = 4: a < 0 and b = 0, both flagged and their cells
    // empty; without a model there are no errors and no dominant range.
    BOOST_TEST(l[2] == "commtest,\"(0,6)\",8192,0-1,warm,off,2,true,false,negative_a;nonpositive_b,2,4,,,,,,,4,3,,,1,0,,,,,"
                       "\"a from N = 2 and 4, the two largest measured: the group has no N = 512 and 1024\"");
    BOOST_TEST(l[3] == "commtest,\"(1,4)\",8192,0-1,warm,off,2,false,false,,,,,,,,,,,0,,,0,0,,,,,"
                       "\"not supported: the transport has no ready send (rsend, irsend)\"");
    const auto cells = csv_test::cells(l[1]);
    BOOST_TEST(cells.size() == 29u);
    BOOST_TEST(std::strtod(cells[14].c_str(), nullptr) == 0x1p-24);  // reads back exactly
}

BOOST_AUTO_TEST_CASE(stream_locale_does_not_reach_the_numbers) {
    // A locale that groups thousands would turn 2536 into "2,536" and break the columns.
    struct grouping : std::numpunct<char> {
        char do_thousands_sep() const override { return ','; }
        std::string do_grouping() const override { return "\3"; }
    };
    std::ostringstream os;
    os.imbue(std::locale(std::locale::classic(), new grouping));
    comet::result_set rs;
    rs.records.push_back({"echo", {{"size", std::int64_t{2536}}}, std::vector<double>(1500, 1.0)});
    comet::write_csv(os, rs);
    BOOST_TEST(csv_test::lines(os.str())[1] == "echo,2536,1500,1500,1,1,1,1,0,1,1,1,1,0.9532389202177514,0,0,false,,,,");
}

BOOST_AUTO_TEST_SUITE_END()
