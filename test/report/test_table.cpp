// Tests of comet/report/table.hpp: the context header, one aligned table per kernel with the
// expected rows (the params, then the values; valid of total measurements, µs over the valid
// samples, the robust spread, MB/s from the median, "unstable" where the spread is above 5%,
// "!" after a flagged figure and the flags in the note, no statistic for a point flagged as a
// whole), "-" for what is missing, then the fits (± standard errors; a flagged fit shows its
// reason, never its numbers), the break tests, the bandwidth figures, and COMMTEST's statistics
// (a flagged a shows its reason, an unsupported protocol "not supported", the notes follow).
#include <comet/report/table.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

namespace table_test {

inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream is(text);
    for (std::string l; std::getline(is, l);) out.push_back(l);
    return out;
}

/// The lines of the block that follows the line `title`, up to the next blank line.
inline std::vector<std::string> block(const std::vector<std::string>& all, const std::string& title) {
    std::vector<std::string> out;
    bool in = false;
    for (const auto& l : all) {
        if (in && l.empty()) break;
        if (in) out.push_back(l);
        if (l == title) in = true;
    }
    return out;
}

inline comet::report sample_report() {
    comet::report r;
    r.ctx.transport = "ipsc860";
    r.ctx.nodes = 16;
    r.ctx.comet_version = "0.1.0";
    r.ctx.host = "node0";
    r.ctx.date = "1993-06-01T12:00:00Z";
    r.ctx.compiler = "gcc 12.2.0";
    r.ctx.command_line = "comet --kernels echo,overlap";
    r.ctx.extra = {{"machine", "ipsc860 d=4"}};
    // echo: size 0 has no bandwidth; 4096 B in a median of 1835.36 µs is 2.232 MB/s.
    r.results.records.push_back({"echo", {{"size", std::int64_t{0}}, {"hops", std::int64_t{1}}}, {79e-6, 80e-6, 78e-6}});
    r.results.records.push_back(
        {"echo", {{"size", std::int64_t{4096}}, {"hops", std::int64_t{1}}}, {1835.36e-6, 1835.36e-6, 1900e-6}});
    r.results.records.push_back({"echo", {{"size", std::int64_t{100}}, {"hops", std::int64_t{4}}}, {}});
    r.results.records.push_back({"overlap", {{"mode", "sync"}, {"vector_length", std::int64_t{1000}}}, {2e-3}});
    r.results.records.push_back({"overlap", {{"mode", "async"}}, {1.5e-3}});
    r.fits.push_back({"echo", "small", 79e-6, 0.63e-6, 25e-6, 0.1e-6, 36, 100.0});
    r.fits.push_back({"echo", "all", 80e-6, 1.678e-11, std::nullopt, 2e-6, 12, std::nullopt});  // shared-memory rate
    r.bandwidth.push_back({"echo", 1, 2.5e6, 486.0, 5000.0});
    return r;
}

/// A COMMTEST record as the kernel makes it, with one sample.
inline comet::record commtest_point(const std::string& protocol, std::int64_t volume, std::int64_t n, double t) {
    comet::record r{"commtest", {}, {t}};
    r.params.set("protocol", protocol).set("volume", volume).set("messages", n).set("size", volume / n);
    r.params.set("pair", "0-1").set("cache", "warm").set("prepost", "off").set("nodes", 2);
    return r;
}

/// COMMTEST's statistics of five experiments: exact lines (unordered, ordered), a protocol
/// change at 64 KB messages, a negative a, and a protocol the transport cannot run.
inline std::vector<comet::commtest_statistics> commtest_rows() {
    comet::result_set rs;
    for (std::int64_t n = 1; n <= 1024; n *= 2) {
        const double N = static_cast<double>(n);
        rs.records.push_back(commtest_point("(0,3)", 131072, n, 20e-6 * N + 1e-8 * 131072));
        rs.records.push_back(commtest_point("(1,0)", 131072, n, 40e-6 * N + 2e-8 * 131072));
        rs.records.push_back(
            commtest_point("(0,1)", 2097152, n, n <= 16 ? 300e-6 * N + 0.9e-8 * 2097152 : 10e-6 * N + 1e-8 * 2097152));
        rs.records.push_back(commtest_point("(0,6)", 131072, n, 2e-3 - 1e-7 * N));
    }
    comet::record u{"commtest", {}, {}};
    u.params.set("protocol", "(0,4)").set("volume", 131072).set("pair", "0-1").set("cache", "warm").set("prepost", "off");
    u.params.set("nodes", 2);
    u.notes.push_back("not supported: the transport has no ready send (rsend, irsend)");
    rs.records.push_back(u);
    return comet::commtest_statistics_of(rs);
}

inline std::string table_of(const comet::report& r) {
    std::ostringstream os;
    comet::write_table(os, r);
    return os.str();
}

}  // namespace table_test

BOOST_AUTO_TEST_SUITE(table)

BOOST_AUTO_TEST_CASE(context_heads_the_output) {
    const auto l = table_test::lines(table_test::table_of(table_test::sample_report()));
    BOOST_TEST_REQUIRE(l.size() > 4u);
    BOOST_TEST(l[0] == "comet 0.1.0  transport ipsc860  nodes 16");
    BOOST_TEST(l[1] == "host node0  date 1993-06-01T12:00:00Z  compiler gcc 12.2.0");
    BOOST_TEST(l[2] == "command comet --kernels echo,overlap");
    BOOST_TEST(l[3] == "machine ipsc860 d=4");
}

BOOST_AUTO_TEST_CASE(one_row_per_record_in_microseconds_with_bandwidth) {
    const auto all = table_test::lines(table_test::table_of(table_test::sample_report()));
    const auto echo = table_test::block(all, "echo");
    BOOST_TEST_REQUIRE(echo.size() == 5u);  // header + 3 records + what "!" means
    // spread: MAD/median scaled to σ — deviations 1, 0, 1 µs from 79 µs: 1.4826/79 = 1.9%.
    // 4096 B: 1900 µs lies above median + 3σ̂ (σ̂ at least 0.5% of the median: 1835.36 +
    // 27.5 µs), an outlier: max and the mean it pulls 1.2% up are marked, and the note says why
    // (every flag stats/validity.hpp finds, by reason).
    const std::string why = comet::detail::table::flags_text(comet::assess(table_test::sample_report().results.records[1]));
    BOOST_TEST(why.starts_with("max, stddev: "), why);
    BOOST_TEST(why.find("; mean: ") != std::string::npos, why);
    BOOST_TEST(echo[0] == "  size  hops  valid   min[µs]  median[µs]   mean[µs]    max[µs]  spread   MB/s  note");
    BOOST_TEST(echo[1] == "     0     1    3/3    78.000      79.000     79.000     80.000    1.9%      -");
    BOOST_TEST(echo[2] == "  4096     1    3/3  1835.360    1835.360  1856.907!  1900.000!    0.0%  2.232  " + why);
    BOOST_TEST(echo[3] == "   100     4    0/0         -           -          -          -       -      -");
    BOOST_TEST(echo[4] == "  !: a flagged figure, not to be read at face value (the note says why); a flagged point (\"point: ...\") "
                          "reports no statistic");
}

BOOST_AUTO_TEST_CASE(words_left_aligned_missing_params_dashed_no_bandwidth_without_size) {
    const auto all = table_test::lines(table_test::table_of(table_test::sample_report()));
    const auto overlap = table_test::block(all, "overlap");
    BOOST_TEST_REQUIRE(overlap.size() == 3u);
    BOOST_TEST(overlap[0] == "  mode   vector_length  valid   min[µs]  median[µs]  mean[µs]   max[µs]  spread");
    BOOST_TEST(overlap[1] == "  sync            1000    1/1  2000.000    2000.000  2000.000  2000.000       -");
    BOOST_TEST(overlap[2] == "  async              -    1/1  1500.000    1500.000  1500.000  1500.000       -");
}

BOOST_AUTO_TEST_CASE(values_follow_the_params_and_flags_are_marked) {
    // Values are columns after the params ("-" where a record has none); a flagged value is
    // marked "!"; an invalid sample is out of the statistics and a dropped measurement counts
    // in the total; a point flagged as a whole shows no statistic, only why.
    comet::report r;
    comet::record a{"nbc", {{"size", std::int64_t{1024}}, {"method", "time"}}, {2e-6, 2e-6, 2e-6}};
    a.values.set("blocking", 1e-6).set("hidden", 0.0).set("curve", "c1");
    comet::add_flag(a, "hidden", "the overhead exceeds T_b: nothing hidden");
    comet::record b{"nbc", {{"size", std::int64_t{2048}}, {"method", "time"}}, {4e-6, -1e-6, 4.04e-6, 3.96e-6}};
    comet::mark_negative(b);
    comet::add_dropped(b, "late_start", 6);
    b.values.set("blocking", 2e-6);
    comet::record c{"nbc", {{"size", std::int64_t{4096}}, {"method", "time"}}, {3e-6}};
    comet::add_dropped(c, "late_start", 19);
    comet::add_flag(c, "point", "its windows kept failing");
    c.values.set("blocking", 3e-6).set("hidden", 0.5);
    r.results.records = {a, b, c};
    const auto nbc = table_test::block(table_test::lines(table_test::table_of(r)), "nbc");
    BOOST_TEST_REQUIRE(nbc.size() == 5u);
    BOOST_TEST(nbc[0] == "  size  method  blocking  hidden  curve  valid  min[µs]  median[µs]  mean[µs]  max[µs]  spread     MB/s  note");
    BOOST_TEST(nbc[1] == "  1024  time       1e-06      0!  c1       3/3    2.000       2.000     2.000    2.000    0.0%  512.000"
                         "  hidden: the overhead exceeds T_b: nothing hidden");
    // 4, 4.04 and 3.96 µs valid (−1 µs marked invalid); 3 of 4 samples and 6 dropped.
    BOOST_TEST(nbc[2] == "  2048  time       2e-06       -  -       3/10    3.960       4.000     4.000    4.040    1.5%  512.000");
    BOOST_TEST(nbc[3] == "  4096  time       3e-06     0.5  -       1/20        -           -         -        -       -        -"
                         "  point: its windows kept failing");
    BOOST_TEST(nbc[4] == "  !: a flagged figure, not to be read at face value (the note says why); a flagged point (\"point: ...\") "
                         "reports no statistic");
}

BOOST_AUTO_TEST_CASE(fits_and_bandwidth_follow) {
    const auto all = table_test::lines(table_test::table_of(table_test::sample_report()));
    const auto fits = table_test::block(all, "fits: t(N) = t_startup + N*t_per_byte + (hops-1)*hop, each ± its standard error");
    BOOST_TEST_REQUIRE(fits.size() == 3u);
    BOOST_TEST(fits[0] ==
               "  kernel  regime  sizes[B]  t_startup[µs]  t_per_byte[µs/B]  hop[µs]  residual[µs]  points");
    BOOST_TEST(fits[1] ==
               "  echo    small   <= 100           79.000            0.6300   25.000         0.100      36");
    BOOST_TEST(fits[2] ==
               "  echo    all     all              80.000        0.00001678        -         2.000      12");
    const auto bw = table_test::block(all, "bandwidth: peak, and the sizes reaching 50% and 90% of it");
    BOOST_TEST_REQUIRE(bw.size() == 2u);
    BOOST_TEST(bw[0] == "  kernel  hops  peak[MB/s]  n_half[B]  n_90[B]");
    BOOST_TEST(bw[1] == "  echo       1       2.500        486     5000");
}

BOOST_AUTO_TEST_CASE(a_flagged_fit_shows_why_never_its_numbers) {
    // The iPSC/860 pairwise fit once reported: hop −414.9 µs with a 557.7 µs residual.
    comet::report r;
    r.ctx.transport = "ipsc860";
    comet::transfer_fit f{"pairwise", "large", 2.1e-3, 0.41e-6, -414.9e-6, 557.7e-6, 20, 100.0};
    f.lower_break = 100.0;
    f.hop_se = 80e-6;
    f.flags = {"negative_hop"};
    r.fits.push_back(f);
    comet::transfer_fit g{"echo", "large", 156e-6, 0.41e-6, 25e-6, 0.3e-6, 32, 100.0};
    g.lower_break = 100.0;
    g.t_startup_se = 0.107e-6;
    g.t_per_byte_se = 0.00012e-6;
    g.hop_se = 0.124e-6;
    r.fits.push_back(g);
    const std::string text = table_test::table_of(r);
    const auto fits = table_test::block(table_test::lines(text),
                                        "fits: t(N) = t_startup + N*t_per_byte + (hops-1)*hop, each ± its standard error");
    BOOST_TEST_REQUIRE(fits.size() == 3u);
    BOOST_TEST(fits[1] ==
               "  pairwise  large   > 100     (flagged: negative hop)                                         557.700      20");
    BOOST_TEST(fits[2] ==
               "  echo      large   > 100             156.000 ± 0.107   0.4100 ± 0.0001  25.000 ± 0.124         0.300      32");
    BOOST_TEST(text.find("414") == std::string::npos);   // the hop is nowhere
    BOOST_TEST(text.find("2100") == std::string::npos);  // nor the flagged fit's start-up
}

BOOST_AUTO_TEST_CASE(break_tests_follow_the_fits_once_per_kernel) {
    comet::report r;
    comet::break_test split;
    split.regimes = 1;
    split.break_size = 100;
    split.f = 1.17e5;
    split.df1 = 3;
    split.df2 = 18;
    split.candidates = 7;
    split.p = 6e-38;
    split.chosen = true;
    comet::break_test refused = split;
    refused.regimes = 2;
    refused.break_size = 16;
    refused.f = 1.76;
    refused.df2 = 15;
    refused.p = 0.395;
    refused.chosen = false;
    comet::break_test none;
    none.regimes = 1;
    none.candidates = 0;
    for (const char* regime : {"small", "large"}) {
        comet::transfer_fit f{"echo", regime, 79e-6, 0.63e-6, std::nullopt, 1e-7, 12, 100.0};
        f.regimes = 2;
        f.break_tests = {split, refused};
        r.fits.push_back(f);
    }
    comet::transfer_fit p{"pairwise", "all", 80e-6, 0.5e-6, std::nullopt, 1e-7, 5, std::nullopt};
    p.break_tests = {none};
    r.fits.push_back(p);
    const auto b = table_test::block(table_test::lines(table_test::table_of(r)),
                                     "breaks: a regime is split only where an F test rejects the fit without the split "
                                     "at 5% (p multiplied by the splits searched)");
    BOOST_TEST_REQUIRE(b.size() == 4u);
    BOOST_TEST(b[0] == "  kernel    regimes  split at[B]         F     df      p  verdict");
    BOOST_TEST(b[1] == "  echo      1 -> 2           100  1.17e+05  3, 18  6e-38  split");
    BOOST_TEST(b[2] == "  echo      2 -> 3            16      1.76  3, 15  0.395  not split");
    BOOST_TEST(b[3] == "  pairwise  1 -> 2             -         -      -      -  no split leaves enough sizes on both sides");
}

BOOST_AUTO_TEST_CASE(unstable_points_are_marked) {
    comet::report r;
    r.results.records.push_back({"echo", {{"size", std::int64_t{8}}}, {100e-6, 101e-6, 99e-6}});  // 1.5%
    r.results.records.push_back({"echo", {{"size", std::int64_t{16}}}, {100e-6, 120e-6, 90e-6}});  // 14.8%
    const auto all = table_test::lines(table_test::table_of(r));
    const auto echo = table_test::block(all, "echo");
    BOOST_TEST_REQUIRE(echo.size() == 5u);
    // An unstable point's every statistic is flagged ("!"), and the note says why.
    BOOST_TEST(echo[0] == "  size  valid  min[µs]  median[µs]  mean[µs]   max[µs]  spread    MB/s  note");
    BOOST_TEST(echo[1] == "     8    3/3   99.000     100.000   100.000   101.000    1.5%   0.080");
    const std::string why = comet::detail::table::flags_text(comet::assess(r.results.records[1]));
    BOOST_TEST(why.starts_with("statistics: "), why);
    // MB/s comes from the median: flagged with it.
    BOOST_TEST(echo[2] == "    16    3/3  90.000!    100.000!  103.333!  120.000!   14.8%  0.160!  unstable; " + why);
    BOOST_TEST(echo[3] == "  unstable: spread (MAD/median, scaled to sigma) above 5%; read the median with care");
    BOOST_TEST(echo[4].starts_with("  !: a flagged figure"));
}

BOOST_AUTO_TEST_CASE(a_derived_table_is_written_under_its_title_with_its_flags) {
    // A table an analysis outside comet derived: written as it is, words left, numbers right,
    // "-" for an empty cell, "!" after a flagged one and a note column saying why.
    comet::report r;
    comet::derived_table t{.name = "hop_cost", .title = "cost per hop", .kernel = "pairwise", .columns = {"path", "nodes", "per hop[µs]"}};
    t.add({std::string("row"), std::int64_t{16}, 8.25});
    t.add({std::string("column"), std::int64_t{32}, comet::derived_table::cell{}}, {{"per hop[µs]", "one point only"}});
    t.notes.push_back("from the pairwise exchange's medians");
    r.tables.push_back(t);
    const auto all = table_test::lines(table_test::table_of(r));
    const auto block = table_test::block(all, "cost per hop");
    BOOST_TEST_REQUIRE(block.size() == 4u);
    BOOST_TEST(block[0] == "  path    nodes  per hop[µs]  note");
    BOOST_TEST(block[1] == "  row        16        8.250");
    BOOST_TEST(block[2] == "  column     32           -!  per hop[µs]: one point only");
    BOOST_TEST(block[3] == "  from the pairwise exchange's medians");
    // A malformed table is refused naming it, not written half.
    r.tables[0].rows[0].cells.pop_back();
    BOOST_CHECK_EXCEPTION(table_test::table_of(r), comet::invalid_argument, [](const comet::invalid_argument& e) {
        return std::string(e.what()).find("derived table 'hop_cost': row 0 has 2 cells for 3 columns") != std::string::npos;
    });
}

BOOST_AUTO_TEST_CASE(per_byte_times_keep_four_significant_digits) {
    using comet::detail::table::significant;
    BOOST_TEST(significant(0.63) == "0.6300");
    BOOST_TEST(significant(1.678e-5) == "0.00001678");
    BOOST_TEST(significant(12.5) == "12.500");  // never fewer than 3 decimals
    BOOST_TEST(significant(0.0) == "0.000");
    BOOST_TEST(significant(std::nan("")) == "-");
}

BOOST_AUTO_TEST_CASE(columns_align_in_display_width) {
    using comet::detail::table::display_width;
    const auto all = table_test::lines(table_test::table_of(table_test::sample_report()));
    for (const auto* title : {"echo", "overlap"}) {
        const auto b = table_test::block(all, title);
        BOOST_TEST_REQUIRE(!b.empty());
        // The figures are right-aligned: every row's last figure ends in the display column
        // where the header's last figure does (µ takes two bytes and one column). The note
        // that may follow is left-aligned, and the explanations under the rows are no rows.
        const std::string& header = b[0];
        const std::size_t note = header.find("  note");
        const std::size_t width = display_width(header.substr(0, note == std::string::npos ? header.size() : note));
        for (std::size_t i = 1; i < b.size(); ++i) {
            const std::string& l = b[i];
            if (l.starts_with("  !:") || l.starts_with("  unstable:")) continue;
            BOOST_TEST_REQUIRE(l.size() >= width, l);  // rows hold no µ: a byte is a column
            BOOST_TEST(display_width(l.substr(0, width)) == width, l);
            BOOST_TEST(l[width - 1] != ' ', l);
            BOOST_TEST((l.size() == width || l.substr(width, 2) == "  "), l);
        }
        if (note == std::string::npos)
            for (const auto& l : b) BOOST_TEST(display_width(l) == display_width(header), l);
    }
}

BOOST_AUTO_TEST_CASE(commtest_statistics_with_flags_and_unsupported_protocols) {
    comet::report r;
    r.ctx.transport = "threads";
    r.commtest = table_test::commtest_rows();
    const std::string text = table_test::table_of(r);
    const auto c = table_test::block(table_test::lines(text),
                                     "commtest: a = (T_N2 - T_N1)/(N2 - N1), b = min T_N / volume (T_N: the least time of N "
                                     "swaps); error = |a*N + b*volume - T_N| / T_N");
    BOOST_TEST_REQUIRE(c.size() == 10u);  // header, 5 experiments, the definitions, 3 notes
    BOOST_TEST(c[0] == "  protocol  volume[B]  experiment                                          N1,N2                  a[µs]"
                       "  latency[µs]   b[µs/B]  swap[MB/s]  busy[MB/s]  idle[MB/s]  error max  error mean  dominant sizes[B]"
                       "  dominant max  dominant mean");
    // b = (20 µs + 1.31072 ms) / 131072 B: the fastest point, N = 1, carries one message's a.
    BOOST_TEST(c[1] == "  (0,3)        131072  pair 0-1, cache warm, prepost off, nodes 2       512,1024                 20.000"
                       "       20.000   0.01015     196.994      98.497           -       1.5%        0.9%                all"
                       "          1.5%           0.9%");
    // Ordered: latency a/2, idle = swap = 2/b, no busy bandwidth.
    BOOST_TEST(c[2] == "  (1,0)        131072  pair 0-1, cache warm, prepost off, nodes 2       512,1024                 40.000"
                       "       20.000   0.02031      98.497           -      98.497       1.5%        0.9%                all"
                       "          1.5%           0.9%");
    BOOST_TEST(c[3] == "  (0,1)       2097152  pair 0-1, cache warm, prepost off, nodes 2       512,1024                 10.000"
                       "       10.000  0.009143     218.745     109.373           -      18.3%        7.2%         2048-65536"
                       "          8.4%           7.5%");
    BOOST_TEST(c[4] == "  (0,6)        131072  pair 0-1, cache warm, prepost off, nodes 2       512,1024  (flagged: negative a)"
                       "                0.01448     138.145      69.073           -       5.4%        5.2%                all"
                       "          5.4%           5.2%");
    BOOST_TEST(c[5] == "  (0,4)        131072  pair 0-1, cache warm, prepost off, nodes 2  not supported");
    BOOST_TEST(c[6] == "  unordered (0,k): latency = a, swap = 2/b, busy = 1/b; ordered (1,k): latency = a/2, idle = swap = 2/b;"
                       " MB = 10^6 bytes; dominant: the message sizes of the protocol regime a was measured in");
    BOOST_TEST(c[7] == "  note: (0,1) 2097152 B, pair 0-1, cache warm, prepost off, nodes 2: protocol change found: the dominant"
                       " range is messages of 2048 to 65536 bytes (6 of 11 points), where its model error is at most 8.4%"
                       " against 18.3% over all the data");
    BOOST_TEST(c[8] == "  note: (0,1) 2097152 B, pair 0-1, cache warm, prepost off, nodes 2: b comes from N = 1, outside the"
                       " dominant range");
    BOOST_TEST(c[9] == "  note: (0,4) 131072 B, pair 0-1, cache warm, prepost off, nodes 2: not supported: the transport has no"
                       " ready send (rsend, irsend)");
    BOOST_TEST(text.find("-0.1") == std::string::npos);  // the negative a (−0.1 µs) is nowhere
}

BOOST_AUTO_TEST_CASE(empty_report_says_so) {
    comet::report r;
    r.ctx.transport = "threads";
    const auto text = table_test::table_of(r);
    BOOST_TEST(text.find("(no results)") != std::string::npos);
    BOOST_TEST(text.find("fits") == std::string::npos);
    BOOST_TEST(text.find("commtest") == std::string::npos);  // no statistics, no section
}

BOOST_AUTO_TEST_CASE(stream_locale_does_not_change_numbers) {
    struct comma_decimal : std::numpunct<char> {
        char do_decimal_point() const override { return ','; }
    };
    std::ostringstream os;
    os.imbue(std::locale(std::locale::classic(), new comma_decimal));
    comet::write_table(os, table_test::sample_report());
    BOOST_TEST(os.str().find("79.000") != std::string::npos);
    BOOST_TEST(os.str().find("79,000") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
