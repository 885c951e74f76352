// Tests of comet/report/plot.hpp: what a description selects (kernels, filters, the largest node
// count, series, one plot per value), the .dat and .gp files character for character, the
// writer's outcome (no data, gnuplot missing, gnuplot failing, gnuplot writing nothing), the
// thesis' figure list, the median's interval as error bars, x = 0 on a log axis, records that
// would zig-zag split into series or plots (COMMTEST run on the threads transport), and — when
// gnuplot is on the PATH — real renders to PNGs.
#include <comet/report/plot.hpp>
#include <comet/suite/suite.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace plot_test {

namespace fs = std::filesystem;

/// A fresh folder under the system's temporary directory, removed with everything in it.
struct scratch_dir {
    fs::path path;
    scratch_dir() {
        static std::atomic<int> counter{0};
        const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        path = fs::temp_directory_path() /
               ("comet-test-plot-" + std::to_string(stamp) + "-" + std::to_string(counter.fetch_add(1)));
        fs::create_directories(path);
    }
    ~scratch_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
};

inline std::string read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline comet::record rec(std::string kernel, comet::params p, std::vector<double> samples) {
    return {std::move(kernel), std::move(p), std::move(samples)};
}

/// Echo on 4 nodes at two hop distances (given out of order), one echo point on 2 nodes that
/// the "largest nodes" rule drops, and a pairwise point no echo plot takes.
inline comet::result_set echo_results() {
    comet::result_set r;
    r.records.push_back(rec("echo", {{"size", 100}, {"hops", 2}, {"nodes", 4}}, {5e-6}));
    r.records.push_back(rec("echo", {{"size", 100}, {"hops", 1}, {"nodes", 4}}, {3e-6, 2.95e-6, 3.04e-6}));
    r.records.push_back(rec("echo", {{"size", 8}, {"hops", 1}, {"nodes", 4}}, {2e-6}));
    r.records.push_back(rec("echo", {{"size", 8}, {"hops", 2}, {"nodes", 4}}, {4e-6}));
    r.records.push_back(rec("echo", {{"size", 8}, {"hops", 1}, {"nodes", 2}}, {9e-6}));
    r.records.push_back(rec("pairwise", {{"size", 8}, {"hops", 1}, {"nodes", 4}}, {1e-6}));
    return r;
}

inline comet::plot_description echo_plot() {
    return {.name = "echo_time",
            .kernels = {"echo"},
            .x = "size",
            .series = "hops",
            .largest = "nodes",
            .title = "echo",
            .x_label = "size [B]"};
}

inline const char* echo_dat =
    "# comet plot echo_time: echo\n"
    "# x: size [B]\n"
    "# y: median time [µs]\n"
    "# series 0: hops = 1\n"
    "8 2\n"
    "100 3\n"
    "\n"
    "\n"
    "# series 1: hops = 2\n"
    "8 4\n"
    "100 5\n";

inline const char* echo_gp =
    "# comet plot echo_time: echo\n"
    "# Run in this folder: gnuplot echo_time.gp (writes echo_time.png from echo_time.dat)\n"
    "set encoding utf8\n"
    "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
    "    set terminal pngcairo noenhanced size 800,600\n"
    "} else {\n"
    "    set terminal png noenhanced size 800,600\n"
    "}\n"
    "set output 'echo_time.png'\n"
    "set title 'echo'\n"
    "set xlabel 'size [B]'\n"
    "set ylabel 'median time [µs]'\n"
    "set grid\n"
    "set key top left\n"
    "plot 'echo_time.dat' index 0 using 1:2 with linespoints lt 1 title 'hops = 1', \\\n"
    "     '' index 1 using 1:2 with linespoints lt 2 title 'hops = 2'\n";

/// `n` samples around `median` seconds: median − k·step ... median + k·step.
inline std::vector<double> spread(double median, double step, int k) {
    std::vector<double> out;
    for (int i = -k; i <= k; ++i) out.push_back(median + i * step);
    return out;
}

/// Whether every series of `p` has at most one point at each x (no zig-zag).
inline bool one_y_per_x(const comet::plot_data& p) {
    for (const auto& s : p.series)
        for (std::size_t i = 1; i < s.points.size(); ++i)
            if (s.points[i].x == s.points[i - 1].x) return false;
    return true;
}

/// The suite's plots of one kernel (their names start with it).
inline std::vector<comet::plot_description> plots_of(const std::string& kernel) {
    std::vector<comet::plot_description> out;
    for (auto& d : comet::suite_plots())
        if (d.name.starts_with(kernel)) out.push_back(std::move(d));
    return out;
}

/// Writes an executable shell script standing in for gnuplot.
inline fs::path fake_gnuplot(const fs::path& dir, const std::string& body) {
    const fs::path p = dir / "fake-gnuplot";
    std::ofstream(p) << "#!/bin/sh\n" << body << '\n';
    fs::permissions(p, fs::perms::owner_all);
    return p;
}

}  // namespace plot_test

BOOST_AUTO_TEST_SUITE(plot)

using namespace plot_test;

BOOST_AUTO_TEST_CASE(series_split_sort_and_filter) {
    const auto plots = comet::collect_plots(echo_plot(), echo_results());
    BOOST_TEST_REQUIRE(plots.size() == 1u);
    const auto& p = plots[0];
    BOOST_TEST(p.name == "echo_time");
    BOOST_TEST(p.title == "echo");
    BOOST_TEST(p.x_label == "size [B]");
    BOOST_TEST(p.y_label == "median time [µs]");
    BOOST_TEST_REQUIRE(p.series.size() == 2u);
    BOOST_TEST(p.series[0].title == "hops = 1");
    BOOST_TEST(p.series[1].title == "hops = 2");
    BOOST_TEST_REQUIRE(p.series[0].points.size() == 2u);
    BOOST_TEST(p.series[0].points[0].x == 8.0);
    BOOST_TEST(p.series[0].points[1].x == 100.0);
    BOOST_TEST(p.series[0].points[1].y == 3.0, boost::test_tools::tolerance(1e-12));  // median of 3, 2.95, 3.04 µs
}

BOOST_AUTO_TEST_CASE(data_file_is_exact) {
    std::ostringstream os;
    comet::write_plot_data(os, comet::collect_plots(echo_plot(), echo_results()).at(0));
    BOOST_TEST(os.str() == std::string(echo_dat));
}

BOOST_AUTO_TEST_CASE(script_is_exact) {
    std::ostringstream os;
    comet::write_plot_script(os, comet::collect_plots(echo_plot(), echo_results()).at(0));
    BOOST_TEST(os.str() == std::string(echo_gp));
}

BOOST_AUTO_TEST_CASE(script_with_log_axes_one_series_and_quotes) {
    comet::result_set r;
    r.records.push_back(rec("barrier", {{"nodes", 2}}, {1e-6, 0.98e-6}));
    r.records.push_back(rec("barrier", {{"nodes", 8}}, {3e-6}));
    const comet::plot_description d{.name = "barrier",
                                    .kernels = {"barrier"},
                                    .x = "nodes",
                                    .y = comet::plot_value::min_time_us(),
                                    .title = "it's a barrier",
                                    .log_x = true,
                                    .log_y = true,
                                    .log_base_x = 2};
    const auto p = comet::collect_plots(d, r).at(0);
    std::ostringstream data, script;
    comet::write_plot_data(data, p);
    comet::write_plot_script(script, p, {.width = 640, .height = 480});
    BOOST_TEST(data.str() ==
               "# comet plot barrier: it's a barrier\n# x: nodes\n# y: least time [µs]\n# series 0\n2 0.98\n8 3\n");
    BOOST_TEST(script.str() ==
               "# comet plot barrier: it's a barrier\n"
               "# Run in this folder: gnuplot barrier.gp (writes barrier.png from barrier.dat)\n"
               "set encoding utf8\n"
               "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "    set terminal pngcairo noenhanced size 640,480\n"
               "} else {\n"
               "    set terminal png noenhanced size 640,480\n"
               "}\n"
               "set output 'barrier.png'\n"
               "set title 'it''s a barrier'\n"
               "set xlabel 'nodes'\n"
               "set ylabel 'least time [µs]'\n"
               "set logscale x 2\n"
               "set logscale y 10\n"
               "set grid\n"
               "set key top left\n"
               "plot 'barrier.dat' index 0 using 1:2 with linespoints lt 1 notitle\n");
}

BOOST_AUTO_TEST_CASE(one_plot_per_value_words_in_first_seen_order_and_filters) {
    comet::result_set r;
    for (std::int64_t size : {2536, 0})
        for (const char* mode : {"sync", "async"})
            for (std::int64_t n : {2000, 1000})
                r.records.push_back(rec("overlap", {{"size", size}, {"vector_length", n}, {"mode", mode}, {"nodes", 4}},
                                        {static_cast<double>(n + size) * 1e-6}));
    r.records.push_back(
        rec("overlap", {{"size", std::int64_t{85000}}, {"vector_length", 0}, {"mode", "sync"}, {"nodes", 4}}, {1e-6}));
    comet::plot_description d{.name = "overlap",
                              .kernels = {"overlap"},
                              .x = "vector_length",
                              .series = "mode",
                              .series_title = "{}",
                              .where = {{"nodes", 4.0}},
                              .per = "size",
                              .title = "overlap",
                              .log_x = true};
    const auto plots = comet::collect_plots(d, r);
    // size 85000 has only x = 0, which a log axis cannot show: no plot for it.
    BOOST_TEST_REQUIRE(plots.size() == 2u);
    BOOST_TEST(plots[0].name == "overlap_size_0");
    BOOST_TEST(plots[0].title == "overlap (size = 0)");
    BOOST_TEST(plots[1].name == "overlap_size_2536");
    BOOST_TEST_REQUIRE(plots[1].series.size() == 2u);
    BOOST_TEST(plots[1].series[0].title == "sync");
    BOOST_TEST(plots[1].series[1].title == "async");
    const auto& async = plots[1].series[1].points;
    BOOST_TEST_REQUIRE(async.size() == 2u);
    BOOST_TEST(async[0].x == 1000.0);
    BOOST_TEST(async[0].y == 3536.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(async[1].x == 2000.0);
    BOOST_TEST(async[1].y == 4536.0, boost::test_tools::tolerance(1e-9));
    // A filter that matches nothing gives nothing.
    d.where = {{"nodes", std::int64_t{16}}};
    BOOST_TEST(comet::collect_plots(d, r).empty());
}

BOOST_AUTO_TEST_CASE(a_value_splits_series_and_only_what_is_reported_is_plotted) {
    // nbc's curves are a value of its records ("curve"); a point flagged as a whole is not
    // reported, so not plotted; a time is over the valid samples.
    comet::result_set r;
    for (std::int64_t size : {8, 64})
        for (const char* curve : {"native", "schedule"}) {
            r.records.push_back(rec("nbc", {{"size", size}}, {static_cast<double>(size) * 1e-6, -1.0}));
            comet::mark_negative(r.records.back());
            r.records.back().values.set("curve", curve);
        }
    comet::add_flag(r.records[3], "point", "T_b is flagged");  // schedule at 64 B
    const comet::plot_description d{.name = "nbc", .kernels = {"nbc"}, .x = "size", .series = "curve"};
    const auto p = comet::collect_plots(d, r).at(0);
    BOOST_TEST_REQUIRE(p.series.size() == 2u);
    BOOST_TEST(p.series[0].title == "curve = native");
    BOOST_TEST(p.series[1].title == "curve = schedule");
    BOOST_TEST_REQUIRE(p.series[0].points.size() == 2u);
    BOOST_TEST(p.series[0].points[1].y == 64.0, boost::test_tools::tolerance(1e-9));  // µs, not the invalid −1 s
    BOOST_TEST_REQUIRE(p.series[1].points.size() == 1u);
    BOOST_TEST(p.series[1].points[0].x == 8.0);
    BOOST_TEST(!comet::plot_value::min_time_us().of(r.records[3]));
    BOOST_TEST(*comet::plot_value::min_time_us().of(r.records[2]) == 64.0, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(kernels_as_series_and_derived_values) {
    comet::result_set r;
    r.records.push_back(rec("col_broadcast", {{"matrix_dim", 8}, {"nodes", 4}}, {2e-6}));
    r.records.push_back(rec("row_broadcast", {{"matrix_dim", 8}, {"nodes", 4}}, {1e-6}));
    const comet::plot_description d{
        .name = "rc", .kernels = {"row_broadcast", "col_broadcast"}, .x = "matrix_dim", .series = "kernel"};
    const auto p = comet::collect_plots(d, r).at(0);
    BOOST_TEST_REQUIRE(p.series.size() == 2u);
    BOOST_TEST(p.series[0].title == "col_broadcast");  // words: first seen first
    BOOST_TEST(p.series[1].title == "row_broadcast");
    // Bandwidth: size over the median time, in MB/s; no size or size 0: left out.
    const auto bw = comet::plot_value::bandwidth_mbs();
    BOOST_TEST(*bw.of(rec("echo", {{"size", 1000}}, {1e-3, 1e-3})) == 1.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(!bw.of(rec("echo", {{"size", 0}}, {1e-3})));
    BOOST_TEST(!bw.of(rec("echo", {}, {1e-3})));
    BOOST_TEST(!comet::plot_value::median_time_us().of(rec("echo", {}, {})));
}

BOOST_AUTO_TEST_CASE(writer_writes_files_and_reports_plots_without_data) {
    scratch_dir dir;
    const auto out = dir.path / "plots";
    const auto o = comet::write_plots(out, {echo_plot(), {.name = "nothing", .kernels = {"barrier"}, .x = "nodes"}},
                                      echo_results(), {.render = false});
    BOOST_TEST(o.written == (std::vector<std::string>{"echo_time"}), boost::test_tools::per_element());
    BOOST_TEST(o.without_data == (std::vector<std::string>{"nothing"}), boost::test_tools::per_element());
    BOOST_TEST(o.rendered.empty());
    BOOST_TEST(o.not_rendered.empty());
    BOOST_TEST(read(out / "echo_time.dat") == std::string(echo_dat));
    BOOST_TEST(read(out / "echo_time.gp") == std::string(echo_gp));
    BOOST_TEST(!fs::exists(out / "nothing.dat"));
    // Nothing to plot: no folder is created.
    const auto none = comet::write_plots(dir.path / "empty", {echo_plot()}, comet::result_set{});
    BOOST_TEST(none.written.empty());
    BOOST_TEST(!fs::exists(dir.path / "empty"));
}

BOOST_AUTO_TEST_CASE(missing_or_failing_gnuplot_is_reported_not_thrown) {
    scratch_dir dir;
    const auto missing =
        comet::write_plots(dir.path / "a", {echo_plot()}, echo_results(), {.gnuplot = "comet-test-no-such-gnuplot"});
    BOOST_TEST(missing.written.size() == 1u);
    BOOST_TEST_REQUIRE(missing.not_rendered.size() == 1u);
    BOOST_TEST(missing.not_rendered[0].name == "echo_time");
    BOOST_TEST(missing.not_rendered[0].reason == "gnuplot (comet-test-no-such-gnuplot) is not on the PATH");
    BOOST_TEST(!comet::gnuplot_available("comet-test-no-such-gnuplot"));
    BOOST_TEST(fs::exists(dir.path / "a" / "echo_time.gp"));

    const auto failing = fake_gnuplot(dir.path, "echo '\"echo_time.gp\" line 3: boom' >&2\nexit 3");
    const auto f = comet::write_plots(dir.path / "b", {echo_plot()}, echo_results(), {.gnuplot = failing.string()});
    BOOST_TEST_REQUIRE(f.not_rendered.size() == 1u);
    BOOST_TEST(f.not_rendered[0].reason == "gnuplot exited with status 3: \"echo_time.gp\" line 3: boom");

    const auto silent = fake_gnuplot(dir.path, "exit 0");
    const auto s = comet::write_plots(dir.path / "c", {echo_plot()}, echo_results(), {.gnuplot = silent.string()});
    BOOST_TEST_REQUIRE(s.not_rendered.size() == 1u);
    BOOST_TEST(s.not_rendered[0].reason == "gnuplot wrote no image");
}

BOOST_AUTO_TEST_CASE(curves_are_several_values_of_the_same_records) {
    // NIST's service states against D: one plot per setting, a series per state (values of
    // the records, as the NIST kernel measures them).
    comet::result_set r;
    for (int d : {1, 2, 4})
        for (const char* setting : {"cm", "cp"}) {
            r.records.push_back(rec("ring", {{"dilation", d}, {"setting", setting}}, {3.0 / d}));
            r.records.back().values.set("user", 1.0 / d).set("logical", 2.0 / d);
        }
    const auto param = [](const char* name) {
        return comet::plot_value{name, [name](const comet::record& x) { return x.values.number(name); }};
    };
    const comet::plot_description d{.name = "ring_components",
                                    .kernels = {"ring"},
                                    .x = "dilation",
                                    .y = {"normalised time [s]", {}},
                                    .curves = {param("user"), param("logical")},
                                    .per = "setting"};
    const auto plots = comet::collect_plots(d, r);
    BOOST_TEST_REQUIRE(plots.size() == 2u);
    BOOST_TEST(plots[1].name == "ring_components_setting_cp");
    BOOST_TEST(plots[0].keyed);
    BOOST_TEST(plots[0].y_label == "normalised time [s]");
    BOOST_TEST_REQUIRE(plots[0].series.size() == 2u);
    BOOST_TEST(plots[0].series[1].title == "logical");
    BOOST_TEST_REQUIRE(plots[0].series[1].points.size() == 3u);
    BOOST_TEST(plots[0].series[1].points[2].x == 4.0);
    BOOST_TEST(plots[0].series[1].points[2].y == 0.5);
    auto both = d;
    both.series = "setting";
    BOOST_CHECK_EXCEPTION(comet::collect_plots(both, r), comet::invalid_argument, [](const auto& e) {
        return std::string(e.what()) == "plot ring_components: curves and series 'setting' both split the points";
    });
}

BOOST_AUTO_TEST_CASE(a_value_on_the_x_axis) {
    // NIST's figure 6: the service states against the retransmissions each run counted, a value
    // of the records; a record without it (a transport that counts none) has no point.
    comet::result_set r;
    for (int d : {1, 2, 4}) {
        r.records.push_back(rec("mesh", {{"dilation", d}, {"setting", "cm"}}, {3.0 / d}));
        r.records.back().values.set("logical", 2.0 / d).set("retries", static_cast<std::int64_t>(100 / d));
    }
    r.records.push_back(rec("mesh", {{"dilation", 8}, {"setting", "cm"}}, {0.5}));
    r.records.back().values.set("logical", 0.25);
    const comet::plot_description d{.name = "mesh_retries",
                                    .kernels = {"mesh"},
                                    .x = "retries",
                                    .curves = {comet::plot_value{"L_D", [](const comet::record& x) { return x.values.number("logical"); }}},
                                    .x_is_value = true};
    const auto plots = comet::collect_plots(d, r);
    BOOST_TEST_REQUIRE(plots.size() == 1u);
    BOOST_TEST_REQUIRE(plots[0].series.size() == 1u);
    const auto& pts = plots[0].series[0].points;
    BOOST_TEST_REQUIRE(pts.size() == 3u);
    BOOST_TEST(pts[0].x == 25.0);
    BOOST_TEST(pts[0].y == 0.5);
    BOOST_TEST(pts[2].x == 100.0);
    BOOST_TEST(pts[2].y == 2.0);
    // As a parameter, "retries" names nothing: no points, no plot.
    auto as_param = d;
    as_param.x_is_value = false;
    BOOST_TEST(comet::collect_plots(as_param, r).empty());
}

BOOST_AUTO_TEST_CASE(bad_descriptions_throw) {
    const auto r = echo_results();
    auto d = echo_plot();
    d.name = "../x";
    BOOST_CHECK_EXCEPTION(comet::collect_plots(d, r), comet::invalid_argument, [](const auto& e) {
        return std::string(e.what()) == "plot: name '../x' is not a file stem of letters, digits, '_', '-' and '.'";
    });
    d = echo_plot();
    d.x.clear();
    BOOST_CHECK_EXCEPTION(comet::collect_plots(d, r), comet::invalid_argument, [](const auto& e) {
        return std::string(e.what()) == "plot echo_time: no x parameter named";
    });
    d = echo_plot();
    d.kernels.clear();
    BOOST_CHECK_THROW(comet::collect_plots(d, r), comet::invalid_argument);
    d = echo_plot();
    d.log_base_y = 1;
    BOOST_CHECK_THROW(comet::collect_plots(d, r), comet::invalid_argument);
    scratch_dir dir;
    BOOST_CHECK_EXCEPTION(
        comet::write_plots(dir.path, {echo_plot(), echo_plot()}, r, {.render = false}), comet::invalid_argument,
        [](const auto& e) { return std::string(e.what()) == "plot: two plots are named 'echo_time'"; });
}

BOOST_AUTO_TEST_CASE(the_median_interval_is_drawn_as_error_bars) {
    // 15 samples give the median's 95% interval [x_(4), x_(12)]; 3 samples give none.
    comet::result_set r;
    r.records.push_back(rec("echo", {{"size", 8}, {"hops", 1}}, spread(10e-6, 1e-6, 7)));
    r.records.push_back(rec("echo", {{"size", 64}, {"hops", 1}}, {20e-6, 21e-6, 22e-6}));
    r.records.push_back(rec("echo", {{"size", 1024}, {"hops", 1}}, spread(40e-6, 2e-6, 7)));
    comet::plot_description d = echo_plot();
    d.largest.clear();
    const auto p = comet::collect_plots(d, r).at(0);
    BOOST_TEST(p.interval_label == "the median's 95% confidence interval");
    const auto& pts = p.series.at(0).points;
    BOOST_TEST_REQUIRE(pts.size() == 3u);
    BOOST_TEST_REQUIRE(pts[0].interval.has_value());
    BOOST_TEST(pts[0].interval->low == 6.0, boost::test_tools::tolerance(1e-9));  // x_(4) of 3 .. 17 µs
    BOOST_TEST(pts[0].interval->high == 14.0, boost::test_tools::tolerance(1e-9));  // x_(12)
    BOOST_TEST(!pts[1].interval.has_value());
    BOOST_TEST(pts[2].interval->high == 48.0, boost::test_tools::tolerance(1e-9));
    // The bandwidth's bars are the bandwidths at the ends of the time's interval.
    const auto bw = comet::plot_value::bandwidth_mbs();
    const auto bi = bw.interval(r.records[2]);
    BOOST_TEST_REQUIRE(bi.has_value());
    BOOST_TEST(bi->low == 1024 / 48e-6 / 1e6, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(bi->high == 1024 / 32e-6 / 1e6, boost::test_tools::tolerance(1e-9));
    // The least time has no interval.
    BOOST_TEST(!comet::plot_value::min_time_us().interval);

    std::ostringstream data, script;
    comet::write_plot_data(data, p);
    comet::write_plot_script(script, p);
    BOOST_TEST(data.str() == "# comet plot echo_time: echo\n# x: size [B]\n# y: median time [µs]\n"
                             "# low, high: the median's 95% confidence interval (NaN where the samples give none)\n"
                             "# flagged: 1 where y comes from a flagged statistic (not to be read at face value; circled), else 0\n"
                             "# series 0: hops = 1\n8 10 6 14 1\n64 21 NaN NaN 1\n1024 40 32 48 1\n");
    // (Samples that far apart disagree: every median is flagged, and circled.)
    const std::string gp = script.str();
    BOOST_TEST(gp.find("set xlabel 'size [B]'.\"\\n\".'(bars: the median''s 95% confidence interval)'.\"\\n\"."
                       "'(3 points circled: flagged, not to be read at face value)'\n") != std::string::npos, gp);
    BOOST_TEST(gp.find("plot 'echo_time.dat' index 0 using 1:2 with linespoints lt 1 title 'hops = 1', \\\n"
                       "     '' index 0 using 1:2:3:4 with yerrorbars lt 1 pointsize 0 notitle, \\\n"
                       "     '' index 0 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2.5 lc rgb 'black' "
                       "title 'flagged: not to be read at face value'\n") != std::string::npos, gp);
}

BOOST_AUTO_TEST_CASE(a_flagged_point_is_circled_and_a_record_left_out_is_counted) {
    // 8 B: steady; 64 B: samples that disagree (its median flagged); 1024 B: flagged as a whole.
    comet::result_set r;
    r.records.push_back(rec("echo", {{"size", 8}, {"hops", 1}}, {10e-6, 10e-6, 10e-6}));
    r.records.push_back(rec("echo", {{"size", 64}, {"hops", 1}}, {15e-6, 25e-6, 20e-6, 12e-6, 30e-6}));
    r.records.push_back(rec("echo", {{"size", 1024}, {"hops", 1}}, {40e-6, 40e-6, 40e-6}));
    comet::add_flag(r.records[2], "point", "every sample preempted");
    comet::plot_description d = echo_plot();
    d.largest.clear();
    const auto p = comet::collect_plots(d, r).at(0);
    const auto& pts = p.series.at(0).points;
    BOOST_TEST_REQUIRE(pts.size() == 2u);
    BOOST_TEST(!pts[0].flagged);
    BOOST_TEST(pts[1].flagged);
    BOOST_TEST(p.flagged == 1u);
    BOOST_TEST(p.left_out == 1u);
    std::ostringstream data, script;
    comet::write_plot_data(data, p);
    comet::write_plot_script(script, p);
    BOOST_TEST(data.str() == "# comet plot echo_time: echo\n# x: size [B]\n# y: median time [µs]\n"
                             "# flagged: 1 where y comes from a flagged statistic (not to be read at face value; circled), else 0\n"
                             "# series 0: hops = 1\n8 10 0\n64 20 1\n");
    const std::string gp = script.str();
    BOOST_TEST(gp.find("set xlabel 'size [B]'.\"\\n\".'(1 point circled: flagged, not to be read at face value; "
                       "1 left out: flagged as a whole or without a valid sample)'\n") != std::string::npos, gp);
    BOOST_TEST(gp.find(", \\\n     '' index 0 using 1:($3 > 0 ? $2 : NaN) with points pt 6 ps 2.5 lc rgb 'black' "
                       "title 'flagged: not to be read at face value'\n") != std::string::npos, gp);
    // A value of the records is flagged where it, or its point, is.
    comet::record nist = rec("ring", {{"dilation", 2}}, {1.0});
    nist.values.set("logical", 0.5);
    const auto logical = comet::plot_value::value("logical", "L_D [s]");
    BOOST_TEST(logical.flag(nist).empty());
    comet::add_flag(nist, "logical", "the clock stepped");
    BOOST_TEST(logical.flag(nist) == "the clock stepped");
    BOOST_TEST(*logical.of(nist) == 0.5);
}

BOOST_AUTO_TEST_CASE(zero_on_a_log_axis_is_drawn_apart_from_the_scale) {
    comet::result_set r;
    for (std::int64_t size : {0, 8, 100, 104, 8192})
        r.records.push_back(rec("echo", {{"size", size}, {"hops", 1}}, {(50.0 + static_cast<double>(size)) * 1e-6}));
    comet::plot_description d = echo_plot();
    d.largest.clear();
    d.log_x = true;
    d.log_y = true;
    d.log_base_x = 2;
    const auto p = comet::collect_plots(d, r).at(0);
    BOOST_TEST_REQUIRE(p.zero_x.has_value());
    BOOST_TEST(*p.zero_x == 2.0);  // 8 B / 4: a factor of the base, at least 4
    BOOST_TEST(p.series.at(0).points.size() == 5u);
    std::ostringstream data, script;
    comet::write_plot_data(data, p);
    comet::write_plot_script(script, p);
    BOOST_TEST(data.str() == "# comet plot echo_time: echo\n# x: size [B]\n# y: median time [µs]\n"
                             "# x = 0 is drawn at 2 on the log axis, apart from the line (a blank line ends it)\n"
                             "# series 0: hops = 1\n0 50\n\n8 58\n100 150\n104 154\n8192 8242\n");
    const std::string gp = script.str();
    BOOST_TEST(gp.find("set xlabel 'size [B]'.\"\\n\".'(0 drawn at the left, off the log scale)'\n") != std::string::npos);
    BOOST_TEST(gp.find("set logscale x 2\nset logscale y 10\n") != std::string::npos);
    BOOST_TEST(gp.find("set xtics ('0' 2, '8' 8, '16' 16, '32' 32, '64' 64, '128' 128, '256' 256, '512' 512, "
                       "'1024' 1024, '2048' 2048, '4096' 4096, '8192' 8192)\n") != std::string::npos);
    BOOST_TEST(gp.find("using ($1 == 0 ? 2 : $1):2 with linespoints") != std::string::npos);
    // Ticks thin out past 12 powers; with one power or none between the ends, the ends are the ticks.
    BOOST_TEST(comet::detail::plot::zero_log_ticks(0.25, 1, 1 << 30, 2) ==
               "('0' 0.25, '1' 1, '8' 8, '64' 64, '512' 512, '4096' 4096, '32768' 32768, '262144' 262144, "
               "'2097152' 2097152, '16777216' 16777216, '134217728' 134217728, '1073741824' 1073741824)");
    BOOST_TEST(comet::detail::plot::zero_log_ticks(1, 100, 120, 10) == "('0' 1, '100' 100, '120' 120)");
    auto decimal = d;
    decimal.log_base_x = 10;
    BOOST_TEST(*comet::collect_plots(decimal, r).at(0).zero_x == 0.8);
    // Only x = 0: nothing on the scale to place it by, so no plot.
    comet::result_set zero_only;
    zero_only.records.push_back(r.records[0]);
    BOOST_TEST(comet::collect_plots(d, zero_only).empty());
    // On a linear axis, 0 is an ordinary point.
    d.log_x = false;
    const auto lin = comet::collect_plots(d, r).at(0);
    BOOST_TEST(!lin.zero_x.has_value());
    BOOST_TEST(lin.series.at(0).points.front().x == 0.0);
}

BOOST_AUTO_TEST_CASE(records_at_one_x_split_the_series_by_what_sets_them_apart) {
    // Echo with two buffers in one run: each hop distance gets a line per buffer, the second
    // dashed in the first's colour, rather than one line through two y values at each x.
    comet::result_set r;
    for (const char* buffer : {"same", "fresh"})
        for (std::int64_t hops : {1, 2})
            for (std::int64_t size : {8, 100})
                r.records.push_back(rec("echo", {{"size", size}, {"hops", hops}, {"buffer", buffer}, {"nodes", 4}},
                                        {(buffer[0] == 's' ? 1.0 : 2.0) * static_cast<double>(size * hops) * 1e-6}));
    const auto p = comet::collect_plots(echo_plot(), r).at(0);
    BOOST_TEST(one_y_per_x(p));
    BOOST_TEST_REQUIRE(p.series.size() == 4u);
    BOOST_TEST(p.series[0].title == "hops = 1, buffer = same");
    BOOST_TEST(p.series[1].title == "hops = 1, buffer = fresh");
    BOOST_TEST(p.series[3].title == "hops = 2, buffer = fresh");
    BOOST_TEST(p.series[1].line == 0u);
    BOOST_TEST(p.series[1].dash == 1u);
    BOOST_TEST(p.series[2].line == 1u);
    BOOST_TEST(p.series[2].dash == 0u);
    BOOST_TEST(p.series[1].points[1].y == 200.0, boost::test_tools::tolerance(1e-9));
    std::ostringstream script;
    comet::write_plot_script(script, p);
    BOOST_TEST(script.str().find("'' index 1 using 1:2 with linespoints lt 1 dt 2 title 'hops = 1, buffer = fresh'") !=
               std::string::npos);
    // Without a series: the split alone names the lines, and the plot gets a key.
    comet::plot_description one = echo_plot();
    one.series.clear();
    one.where = {{"hops", std::int64_t{1}}};
    const auto q = comet::collect_plots(one, r).at(0);
    BOOST_TEST(q.keyed);
    BOOST_TEST_REQUIRE(q.series.size() == 2u);
    BOOST_TEST(q.series[0].title == "buffer = same");
    // Listed as an experiment, the buffer gets plots of its own instead.
    one.experiments = {"buffer"};
    const auto pages = comet::collect_plots(one, r);
    BOOST_TEST_REQUIRE(pages.size() == 2u);
    BOOST_TEST(pages[0].name == "echo_time_buffer_same");
    BOOST_TEST(pages[1].title == "echo (buffer = fresh)");
    BOOST_TEST(pages[1].series.size() == 1u);
    BOOST_TEST(!pages[1].keyed);
}

BOOST_AUTO_TEST_CASE(commtest_draws_a_line_per_protocol_and_experiment) {
    // A real COMMTEST run on four threads ranks: two pair sets, the caches warm and flushed.
    namespace ct = comet::kernels::commtest;
    comet::result_set r;
    for (const auto cache : {ct::cache_setting::mode::warm, ct::cache_setting::mode::flushed}) {
        ct::commtest_config c;
        c.protocols = {ct::protocol{0, 0}, ct::protocol{0, 3}, ct::protocol{1, 0}};
        c.volumes = {8192};
        c.messages = {1, 4, 16};
        c.pairs = {ct::pair_set{{0, 1}}, ct::pair_set{{0, 2}, {1, 3}}};
        c.cache = {cache};
        c.flush_bytes = 1 << 20;
        c.sampling = comet::fixed_sampling(3, 1);
        r.append(comet::threads::run(4, [&](comet::threads::transport& t) { return ct::commtest(t, c); })[0]);
    }
    BOOST_TEST_REQUIRE(r.size() == 2u * 2u * 3u * 3u);
    const auto descriptions = plots_of("commtest");
    BOOST_TEST_REQUIRE(descriptions.size() == 2u);
    // A plot per volume and experiment; in each, a line per protocol with one point per x.
    for (const auto& d : descriptions) {
        const auto plots = comet::collect_plots(d, r);
        BOOST_TEST_REQUIRE(plots.size() == 4u);
        BOOST_TEST(plots[0].name == d.name + "_volume_8192_pair_0-1_cache_warm");
        BOOST_TEST(plots[3].name == d.name + "_volume_8192_pair_0-2_1-3_cache_flushed");
        BOOST_TEST(plots[3].title == d.title + " (volume = 8192, pair = 0-2+1-3, cache = flushed)");
        for (const auto& p : plots) {
            BOOST_TEST(p.series.size() == 3u, p.name);
            BOOST_TEST(one_y_per_x(p), p.name);
            for (const auto& s : p.series) BOOST_TEST(s.points.size() == 3u, p.name << ": " << s.title);
        }
        // Not listed as experiments, the pair sets and caches split lines in one plot: 3 × 4.
        auto merged = d;
        merged.experiments.clear();
        const auto one = comet::collect_plots(merged, r);
        BOOST_TEST_REQUIRE(one.size() == 1u);
        BOOST_TEST(one[0].series.size() == 12u);
        BOOST_TEST(one_y_per_x(one[0]));
        BOOST_TEST(one[0].series[1].title == "(0,0), pair = 0-1, cache = flushed");
        std::ostringstream many;
        comet::write_plot_script(many, one[0]);
        BOOST_TEST(many.str().find("set key outside right top\n") != std::string::npos);  // not over the points
    }
    if (!comet::gnuplot_available()) {
        BOOST_TEST_MESSAGE("gnuplot is not on the PATH: the rendering part is skipped");
        return;
    }
    scratch_dir dir;
    const auto o = comet::write_plots(dir.path, descriptions, r);
    for (const auto& f : o.not_rendered) BOOST_TEST_MESSAGE("not rendered: " << f.name << ": " << f.reason);
    BOOST_TEST(o.not_rendered.empty());
    BOOST_TEST(o.rendered.size() == 8u);
    for (const auto& name : o.rendered) {
        const std::string png = read(dir.path / (name + ".png"));
        BOOST_TEST(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8), name);
        // Three series, each a line and no error bars (the least time has no interval).
        const std::string gp = read(dir.path / (name + ".gp"));
        std::size_t lines = 0;
        for (auto at = gp.find("with linespoints"); at != std::string::npos; at = gp.find("with linespoints", at + 1)) ++lines;
        BOOST_TEST(lines == 3u, name);
        BOOST_TEST(gp.find("set logscale x 2\n") != std::string::npos, name);
    }
}

BOOST_AUTO_TEST_CASE(the_thesis_figures) {
    std::vector<std::string> names;
    for (const auto& d : comet::thesis_plots()) names.push_back(d.name);
    BOOST_TEST(names == (std::vector<std::string>{"echo_time", "echo_bandwidth", "broadcast_time", "pairwise_time",
                                                  "contention_time", "barrier", "global_sum", "overlap", "update_guard",
                                                  "shift_matrix", "row_col_broadcast", "transpose"}),
               boost::test_tools::per_element());
    // Only what was measured is drawn.
    scratch_dir dir;
    const auto o = comet::write_plots(dir.path, comet::thesis_plots(), echo_results(), {.render = false});
    BOOST_TEST(o.written == (std::vector<std::string>{"echo_time", "echo_bandwidth", "pairwise_time"}),
               boost::test_tools::per_element());
    BOOST_TEST(o.without_data.size() == 9u);
    // Echo says which time it draws, and that the thesis' figure draws the other; sizes, which
    // span decades, are on log axes.
    const auto all = comet::thesis_plots();
    const auto& echo = all[0];
    BOOST_TEST(echo.title.find("one-way time (half the round trip") != std::string::npos);
    BOOST_TEST(echo.title.find("figure 5.1 draws the round trip") != std::string::npos);
    BOOST_TEST(echo.y.label == "one-way time = round trip / 2 [µs]");
    for (const auto& d : all) {
        if (d.x != "size") continue;
        BOOST_TEST(d.log_x, d.name);
        BOOST_TEST(d.log_base_x == 2, d.name);
        BOOST_TEST(static_cast<bool>(d.y.interval), d.name);  // medians: bars
    }
}

BOOST_AUTO_TEST_CASE(gnuplot_renders_pngs) {
    if (!comet::gnuplot_available()) {
        BOOST_TEST_MESSAGE("gnuplot is not on the PATH: the rendering test is skipped");
        return;
    }
    comet::result_set r = echo_results();
    // 0 B on the log size axis, and medians of 15 samples with their intervals.
    for (std::int64_t hops : {1, 2})
        r.records.push_back(rec("echo", {{"size", 0}, {"hops", hops}, {"nodes", 4}}, spread(1e-6, 0.1e-6, 7)));
    for (std::int64_t dim : {8, 16, 32}) {
        r.records.push_back(
            rec("update_guard", {{"matrix_dim", dim}, {"nodes", 4}}, {1e-6 * static_cast<double>(dim)}));
        r.records.push_back(rec("row_broadcast", {{"matrix_dim", dim}, {"nodes", 4}, {"row", 0}}, {2e-6}));
        r.records.push_back(rec("col_broadcast", {{"matrix_dim", dim}, {"nodes", 4}, {"col", 0}}, {3e-6}));
    }
    scratch_dir dir;
    const auto o = comet::write_plots(dir.path / "plots", comet::thesis_plots(), r);
    for (const auto& f : o.not_rendered) BOOST_TEST_MESSAGE("not rendered: " << f.name << ": " << f.reason);
    BOOST_TEST(o.not_rendered.empty());
    BOOST_TEST(o.rendered == (std::vector<std::string>{"echo_time", "echo_bandwidth", "pairwise_time", "update_guard",
                                                       "row_col_broadcast"}),
               boost::test_tools::per_element());
    for (const auto& name : o.rendered) {
        const std::string png = read(dir.path / "plots" / (name + ".png"));
        BOOST_TEST(png.size() > 1000u);
        BOOST_TEST(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    }
    const std::string gp = read(dir.path / "plots" / "echo_time.gp");
    BOOST_TEST(gp.find("set logscale x 2\n") != std::string::npos);
    BOOST_TEST(gp.find("set xtics ('0' 2, '8' 8") != std::string::npos);
    BOOST_TEST(gp.find("using ($1 == 0 ? 2 : $1):2:3:4 with yerrorbars lt 2") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
