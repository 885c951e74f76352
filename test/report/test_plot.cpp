// Tests of comet/report/plot.hpp: what a description selects (kernels, filters, the largest node
// count, series, one plot per value), the .dat and .gp files character for character, the
// writer's outcome (no data, gnuplot missing, gnuplot failing, gnuplot writing nothing), the
// thesis' figure list, and — when gnuplot is on the PATH — a real render to a PNG.
#include <comet/report/plot.hpp>

#include <boost/test/unit_test.hpp>

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
    r.records.push_back(rec("echo", {{"size", 100}, {"hops", 1}, {"nodes", 4}}, {3e-6, 2.5e-6, 4e-6}));
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
    "plot 'echo_time.dat' index 0 using 1:2 with linespoints title 'hops = 1', \\\n"
    "     '' index 1 using 1:2 with linespoints title 'hops = 2'\n";

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
    BOOST_TEST(p.series[0].points[0].first == 8.0);
    BOOST_TEST(p.series[0].points[1].first == 100.0);
    BOOST_TEST(p.series[0].points[1].second == 3.0, boost::test_tools::tolerance(1e-12));  // median of 3, 2.5, 4 µs
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
    r.records.push_back(rec("barrier", {{"nodes", 2}}, {1e-6, 0.5e-6}));
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
               "# comet plot barrier: it's a barrier\n# x: nodes\n# y: least time [µs]\n# series 0\n2 0.5\n8 3\n");
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
               "plot 'barrier.dat' index 0 using 1:2 with linespoints notitle\n");
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
    BOOST_TEST(async[0].first == 1000.0);
    BOOST_TEST(async[0].second == 3536.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(async[1].first == 2000.0);
    BOOST_TEST(async[1].second == 4536.0, boost::test_tools::tolerance(1e-9));
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
    BOOST_TEST(p.series[0].points[1].second == 64.0, boost::test_tools::tolerance(1e-9));  // µs, not the invalid −1 s
    BOOST_TEST_REQUIRE(p.series[1].points.size() == 1u);
    BOOST_TEST(p.series[1].points[0].first == 8.0);
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
    BOOST_TEST(plots[0].series[1].points[2].first == 4.0);
    BOOST_TEST(plots[0].series[1].points[2].second == 0.5);
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
    BOOST_TEST(pts[0].first == 25.0);
    BOOST_TEST(pts[0].second == 0.5);
    BOOST_TEST(pts[2].first == 100.0);
    BOOST_TEST(pts[2].second == 2.0);
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
}

BOOST_AUTO_TEST_CASE(gnuplot_renders_pngs) {
    if (!comet::gnuplot_available()) {
        BOOST_TEST_MESSAGE("gnuplot is not on the PATH: the rendering test is skipped");
        return;
    }
    comet::result_set r = echo_results();
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
}

BOOST_AUTO_TEST_SUITE_END()
