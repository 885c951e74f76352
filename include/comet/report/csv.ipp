// comet/report/csv.ipp — the definitions of comet/report/csv.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/csv.hpp>

namespace comet {
namespace detail {

COMET_DECL std::string csv_number(double v) {
    if (std::isnan(v)) return {};
    char buf[400];
    const double a = std::fabs(v);
    const bool plain = a == 0.0 || (a >= 1e-4 && a < 1e16);
    const auto res = std::to_chars(buf, buf + sizeof buf, v, plain ? std::chars_format::fixed : std::chars_format::scientific);
    return std::string(buf, res.ptr);
}

COMET_DECL std::string csv_number(std::int64_t v) { return std::to_string(v); }

COMET_DECL std::string csv_number(std::optional<double> v) { return v ? csv_number(*v) : std::string(); }

COMET_DECL std::string csv_cell(std::string_view s) {
    const bool quote = s.find_first_of(",\"\r\n") != std::string_view::npos ||
                       (!s.empty() && (s.front() == ' ' || s.back() == ' '));
    if (!quote) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

COMET_DECL std::string csv_param_cell(const param_value& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
                return csv_cell(x);
            else
                return csv_number(x);
        },
        v);
}

COMET_DECL std::vector<std::string> csv_param_columns(const result_set& r) {
    std::vector<std::string> names;
    const auto add = [&](const params& p) {
        for (const auto& [name, value] : p)
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    };
    for (const auto& rec : r.records) add(rec.params);
    for (const auto& rec : r.records) add(rec.values);
    return names;
}

}  // namespace detail
}  // namespace comet

namespace comet {

COMET_DECL void write_csv(std::ostream& os, const result_set& r) {
    const auto columns = detail::csv_param_columns(r);
    os << "kernel";
    for (const auto& c : columns) os << ',' << detail::csv_cell(c);
    os << ",n,total,min,median,mean,max,stddev,p05,p95,median_ci_low,median_ci_high,ci_coverage,mad,rel_spread,unstable,iterations,"
          "overhead,stop,flags\n";
    for (const auto& rec : r.records) {
        os << detail::csv_cell(rec.kernel);
        for (const auto& c : columns) {
            os << ',';
            if (const auto* v = rec.params.find(c)) os << detail::csv_param_cell(*v);
            else if (const auto* w = rec.values.find(c)) os << detail::csv_param_cell(*w);
        }
        const summary all = summarize(rec);
        const assessment a = assess(rec, all);
        const summary s = find_flag(a.flags, "point") ? summarize(std::span<const double>{}) : all;  // not reported
        os << ',' << std::to_string(a.valid) << ',' << std::to_string(a.total) << ',' << detail::csv_number(s.min) << ','
           << detail::csv_number(s.median) << ',' << detail::csv_number(s.mean) << ',' << detail::csv_number(s.max) << ','
           << detail::csv_number(s.stddev);
        for (const auto& v : {s.p05, s.p95, s.median_ci_low, s.median_ci_high, s.ci_coverage})
            os << ',' << detail::csv_number(v);
        os << ',' << detail::csv_number(s.mad) << ',' << detail::csv_number(s.rel_spread) << ','
           << (s.unstable ? "true" : "false") << ',';
        if (rec.iterations) os << rec.iterations;
        os << ',';
        // The median of the per-sample overheads: what the loop cost that the samples exclude.
        if (!rec.overheads.empty()) os << detail::csv_number(summarize(rec.overheads).median);
        std::string flags;
        for (const auto& f : a.flags) flags += (flags.empty() ? "" : ";") + f.what + ": " + f.why;
        os << ',' << detail::csv_cell(rec.stop) << ',' << detail::csv_cell(flags) << '\n';
    }
}

COMET_DECL void write_fits_csv(std::ostream& os, const std::vector<transfer_fit>& fits) {
    os << "kernel,regime,t_startup,t_per_byte,hop,residual,points,break_size,valid,flags,t_startup_se,t_per_byte_se,"
          "hop_se,sigma,dof,lower_break,upper_break,regimes\n";
    for (const auto& f : fits) {
        const bool ok = f.valid();
        const auto shown = [&](std::optional<double> v) { return detail::csv_number(ok ? v : std::nullopt); };
        std::string flags;
        for (const auto& flag : f.flags) flags += (flags.empty() ? "" : ";") + flag;
        os << detail::csv_cell(f.kernel) << ',' << detail::csv_cell(f.regime) << ',' << shown(f.t_startup) << ','
           << shown(f.t_per_byte) << ',' << shown(f.hop) << ',' << detail::csv_number(f.residual) << ','
           << std::to_string(f.points) << ',' << detail::csv_number(f.break_size) << ',' << (ok ? "true" : "false") << ','
           << detail::csv_cell(flags) << ',' << shown(f.t_startup_se) << ',' << shown(f.t_per_byte_se) << ','
           << shown(f.hop_se) << ',' << detail::csv_number(f.sigma) << ',' << std::to_string(f.dof) << ','
           << detail::csv_number(f.lower_break) << ',' << detail::csv_number(f.upper_break) << ','
           << std::to_string(f.regimes) << '\n';
    }
}

COMET_DECL void write_bandwidth_csv(std::ostream& os, const std::vector<bandwidth_figures>& figures) {
    os << "kernel,hops,peak,n_half,n_90,flags\n";
    for (const auto& b : figures) {
        std::string flags;
        for (const auto& f : b.flags) flags += (flags.empty() ? "" : ";") + f;
        os << detail::csv_cell(b.kernel) << ',' << std::to_string(b.hops) << ',' << detail::csv_number(b.peak) << ','
           << detail::csv_number(b.n_half) << ',' << detail::csv_number(b.n_90) << ',' << detail::csv_cell(flags) << '\n';
    }
}

COMET_DECL void write_commtest_csv(std::ostream& os, const std::vector<commtest_statistics>& rows) {
    os << "kernel,protocol,volume,pair,cache,prepost,nodes,supported,valid,flags,n1,n2,a,latency,b,swap_bandwidth,"
          "busy_bandwidth,idle_bandwidth,b_messages,points,max_error,mean_error,regimes,dominant_points,dominant_min_size,"
          "dominant_max_size,dominant_max_error,dominant_mean_error,notes\n";
    const auto count = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); };
    for (const auto& s : rows) {
        const auto shown = [&](std::optional<double> v, bool ok) { return detail::csv_number(ok ? v : std::nullopt); };
        const bool a_ok = s.a_valid(), b_ok = s.b_valid();
        std::string flags, notes;
        for (const auto& flag : s.flags) flags += (flags.empty() ? "" : ";") + flag;
        for (const auto& n : s.notes) notes += (notes.empty() ? "" : "; ") + n;
        os << detail::csv_cell(s.kernel) << ',' << detail::csv_cell(s.protocol) << ',' << std::to_string(s.volume);
        for (const char* name : {"pair", "cache", "prepost", "nodes"}) {
            os << ',';
            if (const auto* v = s.group.find(name)) os << detail::csv_param_cell(*v);
        }
        os << ',' << (s.supported ? "true" : "false") << ',' << (s.valid() ? "true" : "false") << ','
           << detail::csv_cell(flags) << ',' << count(s.n1) << ',' << count(s.n2) << ',' << shown(s.a, a_ok) << ','
           << shown(s.latency, a_ok) << ',' << shown(s.b, b_ok) << ',' << shown(s.swap_bandwidth, b_ok) << ','
           << shown(s.busy_bandwidth, b_ok) << ',' << shown(s.idle_bandwidth, b_ok) << ',' << count(s.b_messages) << ','
           << std::to_string(s.data.size()) << ',' << detail::csv_number(s.max_error) << ','
           << detail::csv_number(s.mean_error) << ',' << std::to_string(s.regimes) << ','
           << std::to_string(s.dominant_points) << ',' << count(s.dominant_min_size) << ','
           << count(s.dominant_max_size) << ',' << detail::csv_number(s.dominant_max_error) << ','
           << detail::csv_number(s.dominant_mean_error) << ',' << detail::csv_cell(notes) << '\n';
    }
}

COMET_DECL void write_table_csv(std::ostream& os, const derived_table& t) {
    check_table(t);
    for (const auto& c : t.columns) os << detail::csv_cell(c) << ',';
    os << "flags\n";
    for (const auto& row : t.rows) {
        for (const auto& c : row.cells) {
            if (const auto* v = std::get_if<std::string>(&c)) os << detail::csv_cell(*v);
            else if (const auto* i = std::get_if<std::int64_t>(&c)) os << detail::csv_number(*i);
            else if (const auto* d = std::get_if<double>(&c)) os << detail::csv_number(*d);
            os << ',';
        }
        std::string flags;
        for (const auto& f : row.flags) flags += (flags.empty() ? "" : ";") + f.what + ": " + f.why;
        os << detail::csv_cell(flags) << '\n';
    }
}

}  // namespace comet

namespace comet {

COMET_DECL csv_reporter::csv_reporter(std::filesystem::path dir) : dir_(std::move(dir)) {}

COMET_DECL void csv_reporter::add(const derived_table& t) {
    check_table(t);
    if (std::find(tables_.begin(), tables_.end(), t.name) != tables_.end())
        raise<invalid_argument>(-1, "derived table '", t.name, "': another table has that name (it names the table's file)");
    tables_.push_back(t.name);
    write(std::filesystem::path("tables") / (t.name + ".csv"), [&](std::ostream& os) { write_table_csv(os, t); });
}

COMET_DECL void csv_reporter::finish(const report& r) {
    write("results.csv", [&](std::ostream& os) { write_csv(os, r.results); });
    write("fits.csv", [&](std::ostream& os) { write_fits_csv(os, r.fits); });
    write("bandwidth.csv", [&](std::ostream& os) { write_bandwidth_csv(os, r.bandwidth); });
    if (!r.commtest.empty()) write("commtest.csv", [&](std::ostream& os) { write_commtest_csv(os, r.commtest); });
}

COMET_DECL void csv_reporter::write(const std::filesystem::path& name, const std::function<void(std::ostream&)>& body) {
    const std::filesystem::path path = dir_ / name;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) raise<error>(-1, "cannot create ", path.parent_path().string(), ": ", ec.message());
    write_file_atomically(path, body);
    files_.push_back(path);
}

}  // namespace comet
