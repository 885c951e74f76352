// comet/report/table.ipp — the definitions of comet/report/table.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/table.hpp>

namespace comet {
namespace detail::table {

COMET_DECL std::string fixed(double v, int decimals) {
    if (std::isnan(v)) return "-";
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os << std::fixed << std::setprecision(decimals) << v;
    return os.str();
}

COMET_DECL std::string fixed(std::optional<double> v, int decimals) {
    return v ? fixed(*v, decimals) : std::string("-");
}

COMET_DECL int significant_decimals(double v, int digits) {
    if (!std::isfinite(v) || v == 0.0) return 3;
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    return std::clamp(digits - 1 - magnitude, 3, 15);
}

COMET_DECL std::string significant(double v, int digits) { return fixed(v, significant_decimals(v, digits)); }

COMET_DECL std::string with_error(std::optional<double> v, std::optional<double> se, int decimals) {
    if (!v || std::isnan(*v)) return "-";
    if (!se || std::isnan(*se)) return fixed(*v, decimals);
    return fixed(*v, decimals) + " ± " + fixed(*se, decimals);
}

COMET_DECL std::string general(double v) {
    if (std::isnan(v)) return "-";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os << std::setprecision(3) << v;
    return os.str();
}

COMET_DECL std::string regime_sizes(const transfer_fit& f) {
    if (!f.lower_break && !f.upper_break) {
        if (f.break_size && f.regime == "small") return "<= " + fixed(*f.break_size, 0);  // built by hand: 8 fields
        if (f.break_size && f.regime == "large") return "> " + fixed(*f.break_size, 0);
        return "all";
    }
    std::string out;
    if (f.lower_break) out = "> " + fixed(*f.lower_break, 0);
    if (f.upper_break) out += (out.empty() ? "<= " : ", <= ") + fixed(*f.upper_break, 0);
    return out;
}

COMET_DECL std::string param_text(const param_value& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>) {
                return x;
            } else {
                std::ostringstream os;
                os.imbue(std::locale::classic());
                os << x;
                return os.str();
            }
        },
        v);
}

COMET_DECL std::size_t display_width(std::string_view s) {
    std::size_t w = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++w;
    return w;
}

COMET_DECL std::string cache_text(const cache_info& c) {
    std::string out = "L" + std::to_string(c.level);
    if (c.type == "Data") out += 'd';
    if (c.type == "Instruction") out += 'i';
    const bool mib = c.size >= (1u << 20) && c.size % (1u << 20) == 0;
    return out + ' ' + std::to_string(mib ? c.size >> 20 : c.size >> 10) + (mib ? " MiB" : " KiB");
}

COMET_DECL std::string load_text(const load_average& l) { return fixed(l.one, 2) + ' ' + fixed(l.five, 2) + ' ' + fixed(l.fifteen, 2); }

COMET_DECL void write_context(std::ostream& os, const context& c) {
    os << "comet " << (c.comet_version.empty() ? "?" : c.comet_version) << "  transport " << c.transport << "  nodes "
       << c.nodes << '\n';
    if (!c.host.empty() || !c.date.empty() || !c.compiler.empty())
        os << "host " << c.host << "  date " << c.date << "  compiler " << c.compiler << '\n';
    if (!c.command_line.empty()) os << "command " << c.command_line << '\n';
    if (!c.build.type.empty()) {
        os << "build " << c.build.type;
        if (c.build.optimized) os << "  optimised " << (*c.build.optimized ? "yes" : "no");
        os << "  sanitizers ";
        if (c.build.sanitizers.empty()) os << "none";
        for (std::size_t i = 0; i < c.build.sanitizers.size(); ++i) os << (i ? ", " : "") << c.build.sanitizers[i];
        os << '\n';
    }
    const machine_readings& m = c.machine;
    if (!m.cpu_model.empty()) {
        os << "cpu " << m.cpu_model << "  cores " << (m.logical_cores > 0 ? std::to_string(m.logical_cores) : "unknown");
        if (m.usable_cores > 0 && m.usable_cores != m.logical_cores) os << " (" << m.usable_cores << " usable here)";
        os << '\n';
        os << "caches ";
        if (m.caches.empty()) os << "unknown";
        for (std::size_t i = 0; i < m.caches.size(); ++i) os << (i ? ", " : "") << cache_text(m.caches[i]);
        os << "\nfrequency governor " << m.governor << "  turbo " << m.turbo << '\n';
    }
    if (m.load_start || m.load_end) {
        os << "load average (1, 5, 15 min) " << (m.load_start ? load_text(*m.load_start) : "-") << " at the start";
        if (m.load_end) {
            os << ", " << load_text(*m.load_end) << " at the end";
            if (m.local_ranks > 0) os << " (" << m.local_ranks << " ranks of this run here)";
        }
        os << '\n';
    }
    if (!c.mpi_library.empty()) os << "mpi " << c.mpi_library << '\n';
    if (!c.transport_capabilities.empty()) {
        os << "transport offers ";
        for (std::size_t i = 0; i < c.transport_capabilities.size(); ++i) os << (i ? ", " : "") << c.transport_capabilities[i];
        os << '\n';
    }
    for (const auto& [k, v] : c.extra) os << k << ' ' << v << '\n';
    for (const auto& note : context_notes(c)) os << "note: " << note << '\n';
}

COMET_DECL std::optional<std::int64_t> bandwidth_bytes(const record& r) {
    if (const auto v = r.params.integer("volume")) return v;
    return r.params.integer("size");
}

COMET_DECL std::string flags_text(const assessment& a) {
    std::vector<std::pair<std::string, std::string>> by_reason;  // (figures, why)
    for (const auto& f : a.flags) {
        auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& x) { return x.second == f.why; });
        if (it == by_reason.end())
            by_reason.emplace_back(f.what, f.why);
        else
            it->first += ", " + f.what;
    }
    std::string out;
    for (const auto& [what, why] : by_reason) out += (out.empty() ? "" : "; ") + what + ": " + why;
    return out;
}

COMET_DECL void write_kernel(std::ostream& os, std::string_view kernel, const std::vector<const record*>& recs) {
    // Params (which point), then values (what else was measured there), each first-seen order.
    std::vector<std::string> names, value_names;
    bool has_bandwidth = false;
    for (const record* r : recs) {
        for (const auto& [name, value] : r->params)
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        for (const auto& [name, value] : r->values)
            if (std::find(value_names.begin(), value_names.end(), name) == value_names.end()) value_names.push_back(name);
        if (const auto s = bandwidth_bytes(*r); s && *s > 0) has_bandwidth = true;
    }
    text_table t;
    const auto column = [&](const std::string& n, bool value) {
        t.headers.push_back(n);
        // A column of words (mode, protocol) reads best left-aligned; numbers right-aligned.
        const bool words = std::any_of(recs.begin(), recs.end(), [&](const record* r) {
            const auto* v = value ? r->values.find(n) : r->params.find(n);
            return v && std::holds_alternative<std::string>(*v);
        });
        t.left.push_back(words);
    };
    for (const auto& n : names) column(n, false);
    for (const auto& n : value_names) column(n, true);
    for (const char* h : {"valid", "min[µs]", "median[µs]", "mean[µs]", "max[µs]", "spread"}) {
        t.headers.emplace_back(h);
        t.left.push_back(false);
    }
    if (has_bandwidth) {
        t.headers.emplace_back("MB/s");
        t.left.push_back(false);
    }
    std::vector<summary> sums;
    std::vector<assessment> checks;
    bool any_note = false, any_flag = false;
    for (const record* r : recs) {
        sums.push_back(summarize(*r));
        checks.push_back(assess(*r, sums.back()));
        any_flag = any_flag || !checks.back().flags.empty();
        any_note = any_note || sums.back().unstable || !checks.back().flags.empty();
    }
    if (any_note) {  // the column only when it has something to say
        t.headers.emplace_back("note");
        t.left.push_back(true);
    }
    for (std::size_t i = 0; i < recs.size(); ++i) {
        const record* r = recs[i];
        const assessment& a = checks[i];
        std::vector<std::string> row;
        for (const auto& n : names) {
            const auto* v = r->params.find(n);
            row.push_back(v ? param_text(*v) : "-");
        }
        for (const auto& n : value_names) {
            const auto* v = r->values.find(n);
            row.push_back(v ? param_text(*v) + (find_flag(a.flags, n) ? "!" : "") : "-");
        }
        const auto& s = sums[i];
        const bool whole = find_flag(a.flags, "point") != nullptr;  // not reported: no statistic
        row.push_back(std::to_string(a.valid) + "/" + std::to_string(a.total));
        for (const auto& [v, what] : {std::pair{s.min, "min"}, std::pair{s.median, "median"}, std::pair{s.mean, "mean"}, std::pair{s.max, "max"}})
            row.push_back(whole ? "-" : fixed(v * 1e6, 3) + (find_flag(a.flags, what) || find_flag(a.flags, "statistics") ? "!" : ""));
        row.push_back(!whole && s.rel_spread ? fixed(*s.rel_spread * 100, 1) + "%" : "-");
        if (has_bandwidth) {
            const auto size = bandwidth_bytes(*r);
            const bool ok = !whole && size && *size > 0 && s.median > 0.0;
            // From the median: flagged with it.
            const bool median_flagged = find_flag(a.flags, "median") || find_flag(a.flags, "statistics");
            row.push_back(ok ? fixed(static_cast<double>(*size) / s.median / 1e6, 3) + (median_flagged ? "!" : "") : "-");
        }
        if (any_note) {
            std::string note = s.unstable && !whole ? "unstable" : "";
            if (!a.flags.empty()) note += (note.empty() ? "" : "; ") + flags_text(a);
            row.push_back(std::move(note));
        }
        t.rows.push_back(std::move(row));
    }
    os << '\n' << kernel << '\n';
    t.write(os);
    if (std::any_of(sums.begin(), sums.end(), [](const summary& x) { return x.unstable; }))
        os << "  unstable: spread (MAD/median, scaled to sigma) above " << fixed(unstable_spread * 100, 0)
           << "%; read the median with care\n";
    if (any_flag)
        os << "  !: a flagged figure, not to be read at face value (the note says why); a flagged point (\"point: ...\") "
              "reports no statistic\n";
}

COMET_DECL std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : "; ") + item;
    return out;
}

COMET_DECL void write_figures(std::ostream& os, std::string_view title, text_table t, const std::vector<std::vector<std::string>>& flags) {
    const bool any_flag = std::any_of(flags.begin(), flags.end(), [](const auto& f) { return !f.empty(); });
    if (any_flag) {
        t.headers.emplace_back("note");
        t.left.push_back(true);
        for (std::size_t i = 0; i < t.rows.size(); ++i) t.rows[i].push_back(joined(flags.at(i)));
    }
    os << '\n' << title << '\n';
    t.write(os);
    if (any_flag) os << "  !: from statistics that are flagged (the note says where), not to be read at face value\n";
}

COMET_DECL std::string group_text(const params& group) {
    std::string out;
    for (const auto& [name, value] : group) {
        if (!out.empty()) out += ", ";
        out += name;
        out += ' ';
        out += param_text(value);
    }
    return out.empty() ? "-" : out;
}

COMET_DECL void write_commtest(std::ostream& os, const std::vector<commtest_statistics>& rows) {
    text_table t{{"protocol", "volume[B]", "experiment", "N1,N2", "a[µs]", "latency[µs]", "b[µs/B]", "swap[MB/s]",
                  "busy[MB/s]", "idle[MB/s]", "error max", "error mean", "dominant sizes[B]", "dominant max", "dominant mean"},
                 {true, false, true, false, false, false, false, false, false, false, false, false, false, false, false},
                 {}};
    const auto percent = [](std::optional<double> v) { return v ? fixed(*v * 100, 1) + "%" : std::string("-"); };
    const auto mb = [](std::optional<double> v) { return v ? fixed(*v / 1e6, 3) : std::string("-"); };
    const auto reasons = [](const commtest_statistics& s, std::initializer_list<std::string_view> which) {
        std::vector<std::string> out;
        for (std::string_view f : which)
            if (s.flagged(f)) out.emplace_back(f);
        return "(" + commtest_flags_text(out) + ")";
    };
    std::vector<std::string> notes;
    for (const auto& s : rows) {
        params rest;
        for (const auto& [name, value] : s.group)
            if (name != "protocol" && name != "volume") rest.set(name, value);
        std::vector<std::string> row{s.protocol, std::to_string(s.volume), group_text(rest)};
        const std::string which = s.protocol + " " + std::to_string(s.volume) + " B, " + group_text(rest);
        for (const auto& n : s.notes) notes.push_back(which + ": " + n);
        if (!s.supported) {
            row.emplace_back("not supported");
            row.resize(t.headers.size());
            t.rows.push_back(std::move(row));
            continue;
        }
        row.push_back(s.n1 && s.n2 ? std::to_string(*s.n1) + "," + std::to_string(*s.n2) : "-");
        if (s.a_valid()) {
            row.push_back(fixed(*s.a * 1e6, 3));
            row.push_back(fixed(*s.latency * 1e6, 3));
        } else if (s.a) {
            // Never the numbers of a flagged a: the reason stands where they would.
            row.insert(row.end(), {reasons(s, {commtest_flag::negative_a, commtest_flag::model_error}), ""});
        } else {
            row.insert(row.end(), {"-", "-"});
        }
        if (s.b_valid()) {
            row.push_back(significant(*s.b * 1e6));
            for (const auto& bw : {s.swap_bandwidth, s.busy_bandwidth, s.idle_bandwidth}) row.push_back(mb(bw));
        } else if (s.b) {
            row.insert(row.end(), {reasons(s, {commtest_flag::nonpositive_b}), "", "", ""});
        } else {
            row.insert(row.end(), {"-", "-", "-", "-"});
        }
        row.push_back(percent(s.max_error));
        row.push_back(percent(s.mean_error));
        row.push_back(!s.dominant_min_size ? "-"
                      : s.dominant_is_all() ? "all"
                                            : std::to_string(*s.dominant_min_size) + "-" + std::to_string(*s.dominant_max_size));
        row.push_back(percent(s.dominant_max_error));
        row.push_back(percent(s.dominant_mean_error));
        t.rows.push_back(std::move(row));
    }
    os << "\ncommtest: a = (T_N2 - T_N1)/(N2 - N1), b = min T_N / volume (T_N: the least time of N swaps);"
          " error = |a*N + b*volume - T_N| / T_N\n";
    t.write(os);
    os << "  unordered (0,k): latency = a, swap = 2/b, busy = 1/b; ordered (1,k): latency = a/2, idle = swap = 2/b;"
          " MB = 10^6 bytes; dominant: the message sizes of the protocol regime a was measured in\n";
    for (const auto& n : notes) os << "  note: " << n << '\n';
}

}  // namespace detail::table
}  // namespace comet

namespace comet {

COMET_DECL void write_derived(std::ostream& os, const derived_table& d) {
    using namespace detail::table;
    check_table(d);
    text_table t;
    for (std::size_t c = 0; c < d.columns.size(); ++c) {
        t.headers.push_back(d.columns[c]);
        t.left.push_back(std::any_of(d.rows.begin(), d.rows.end(),
                                     [&](const derived_table::row& r) { return std::holds_alternative<std::string>(r.cells[c]); }));
    }
    const bool any_flag = std::any_of(d.rows.begin(), d.rows.end(), [](const derived_table::row& r) { return !r.flags.empty(); });
    if (any_flag) {
        t.headers.emplace_back("note");
        t.left.push_back(true);
    }
    for (const auto& r : d.rows) {
        std::vector<std::string> row;
        for (std::size_t c = 0; c < d.columns.size(); ++c) {
            const auto& cell = r.cells[c];
            std::string text = "-";
            if (const auto* v = std::get_if<std::string>(&cell)) text = *v;
            else if (const auto* i = std::get_if<std::int64_t>(&cell)) text = std::to_string(*i);
            else if (const auto* x = std::get_if<double>(&cell); x && !std::isnan(*x)) text = significant(*x);
            if (find_flag(r.flags, d.columns[c])) text += "!";
            row.push_back(std::move(text));
        }
        if (any_flag) {
            std::string note;
            for (const auto& f : r.flags) note += (note.empty() ? "" : "; ") + f.what + ": " + f.why;
            row.push_back(std::move(note));
        }
        t.rows.push_back(std::move(row));
    }
    os << '\n' << (d.title.empty() ? d.name : d.title) << '\n';
    t.write(os);
    for (const auto& n : d.notes) os << "  " << n << '\n';
}

COMET_DECL void write_table(std::ostream& os, const report& r) {
    using namespace detail::table;
    write_context(os, r.ctx);
    if (r.results.empty()) os << "\n(no results)\n";
    std::vector<std::string> kernels;
    for (const auto& rec : r.results.records)
        if (std::find(kernels.begin(), kernels.end(), rec.kernel) == kernels.end()) kernels.push_back(rec.kernel);
    for (const auto& k : kernels) {
        // A kernel whose records a derived table lays out is shown by that table, below.
        const bool laid_out = std::any_of(r.tables.begin(), r.tables.end(),
                                          [&](const derived_table& t) { return t.kernel == k && t.lays_out_records; });
        if (!laid_out) write_kernel(os, k, r.results.of(k));
    }

    if (!r.fits.empty()) {
        text_table t{{"kernel", "regime", "sizes[B]", "t_startup[µs]", "t_per_byte[µs/B]", "hop[µs]", "residual[µs]",
                      "points"},
                     {true, true, true, false, false, false, false, false},
                     {}};
        const auto scaled = [](std::optional<double> v) { return v ? std::optional(*v * 1e6) : std::nullopt; };
        for (const auto& f : r.fits) {
            std::vector<std::string> row{f.kernel, f.regime, regime_sizes(f)};
            if (f.valid()) {
                row.push_back(with_error(f.t_startup * 1e6, scaled(f.t_startup_se), 3));
                row.push_back(with_error(f.t_per_byte * 1e6, scaled(f.t_per_byte_se), significant_decimals(f.t_per_byte * 1e6)));
                row.push_back(with_error(scaled(f.hop), scaled(f.hop_se), 3));
            } else {
                // Never the numbers of a flagged fit: the reason stands where they would.
                row.insert(row.end(), {"(" + fit_flags_text(f.flags) + ")", "", ""});
            }
            row.push_back(fixed(f.residual * 1e6, 3));
            row.push_back(std::to_string(f.points));
            t.rows.push_back(std::move(row));
        }
        os << "\nfits: t(N) = t_startup + N*t_per_byte + (hops-1)*hop, each ± its standard error\n";
        t.write(os);

        // The F tests behind the regimes, once per kernel (every regime carries the same list).
        text_table b{{"kernel", "regimes", "split at[B]", "F", "df", "p", "verdict"},
                     {true, true, false, false, false, false, true},
                     {}};
        std::vector<std::string> seen;
        for (const auto& f : r.fits) {
            if (f.break_tests.empty() || std::find(seen.begin(), seen.end(), f.kernel) != seen.end()) continue;
            seen.push_back(f.kernel);
            for (const auto& bt : f.break_tests) {
                const std::string step = std::to_string(bt.regimes) + " -> " + std::to_string(bt.regimes + 1);
                if (bt.candidates == 0) {
                    b.rows.push_back({f.kernel, step, "-", "-", "-", "-", "no split leaves enough sizes on both sides"});
                    continue;
                }
                b.rows.push_back({f.kernel, step, fixed(bt.break_size, 0), general(bt.f),
                                  std::to_string(bt.df1) + ", " + std::to_string(bt.df2), general(bt.p),
                                  bt.given ? "given" : bt.chosen ? "split" : "not split"});
            }
        }
        if (!b.rows.empty()) {
            os << "\nbreaks: a regime is split only where an F test rejects the fit without the split at 5%"
                  " (p multiplied by the splits searched)\n";
            b.write(os);
        }
    }
    if (!r.bandwidth.empty()) {
        text_table t{{"kernel", "hops", "peak[MB/s]", "n_half[B]", "n_90[B]"}, {true, false, false, false, false}, {}};
        std::vector<std::vector<std::string>> flags;
        for (const auto& b : r.bandwidth) {
            const std::string mark = flag_mark(b.flags);
            t.rows.push_back({b.kernel, std::to_string(b.hops), fixed(b.peak / 1e6, 3) + mark, fixed(b.n_half, 0) + mark, fixed(b.n_90, 0) + mark});
            flags.push_back(b.flags);
        }
        write_figures(os, "bandwidth: peak, and the sizes reaching 50% and 90% of it", std::move(t), flags);
    }
    if (!r.log_p.empty()) {
        text_table t{{"kernel", "curve", "P", "at P=1[µs]", "per doubling[µs]", "R² log P", "R² P", "grows"},
                     {true, true, false, false, false, false, false, true},
                     {}};
        std::vector<std::vector<std::string>> flags;
        for (const auto& f : r.log_p) {
            std::string ps;
            for (const auto& d : f.data) {
                if (!ps.empty()) ps += ',';
                ps += fixed(d.x, 0);
            }
            const std::string mark = flag_mark(f.flags);
            t.rows.push_back({f.kernel, group_text(f.group), ps, fixed(f.intercept * 1e6, 3) + mark, fixed(f.per_doubling * 1e6, 3) + mark,
                              fixed(f.r_squared, 3) + mark, fixed(f.r_squared_linear_p, 3) + mark,
                              (f.points < 3 ? "(2 P only)" : f.logarithmic ? "log P" : "P") + mark});
            flags.push_back(f.flags);
        }
        write_figures(os, "growth with the number of nodes: t = at P=1 + per doubling * log2 P", std::move(t), flags);
    }
    if (!r.growth.empty()) {
        text_table t{{"kernel", "curve", "points", "R² linear", "R² quadratic", "square share", "grows"},
                     {true, true, false, false, false, false, true},
                     {}};
        std::vector<std::vector<std::string>> flags;
        for (const auto& g : r.growth) {
            const std::string mark = flag_mark(g.flags);
            t.rows.push_back({g.kernel, group_text(g.group), std::to_string(g.points), fixed(g.linear.r_squared, 3) + mark,
                              fixed(g.quadratic.r_squared, 3) + mark, fixed(g.quadratic_share, 2) + mark, to_string(g.model) + mark});
            flags.push_back(g.flags);
        }
        write_figures(os, "growth with the matrix dimension: linear or quadratic", std::move(t), flags);
    }
    if (!r.contention.empty()) {
        text_table t{{"kernel", "curve", "load", "cross[B]", "sizes", "median ×", "min ×", "max ×"},
                     {true, true, false, false, false, false, false, false},
                     {}};
        std::vector<std::vector<std::string>> flags;
        for (const auto& c : r.contention) {
            const std::string mark = flag_mark(c.flags);
            t.rows.push_back({c.kernel, group_text(c.group), fixed(c.load, 2), std::to_string(c.cross_size), std::to_string(c.points.size()),
                              fixed(c.median_ratio, 3) + mark, fixed(c.min_ratio, 3) + mark, fixed(c.max_ratio, 3) + mark});
            flags.push_back(c.flags);
        }
        write_figures(os, "echo under cross traffic: time loaded / time idle", std::move(t), flags);
    }
    if (!r.overlap.empty()) {
        text_table t{{"kernel", "curve", "size[B]", "vectors", "median sync/async", "max sync/async", "median saved"},
                     {true, true, false, false, false, false, false},
                     {}};
        std::vector<std::vector<std::string>> flags;
        for (const auto& o : r.overlap)
            for (const auto& sz : o.sizes) {
                const std::string mark = flag_mark(sz.flags);
                t.rows.push_back({o.kernel, group_text(o.group), std::to_string(sz.size), std::to_string(sz.points),
                                  fixed(sz.median_gain, 3) + mark, fixed(sz.max_gain, 3) + mark, fixed(sz.median_saved * 100, 1) + "%" + mark});
                flags.push_back(sz.flags);
            }
        write_figures(os, "overlap: synchronous / asynchronous exchange with DAXPY (above 1: overlapping pays)", std::move(t), flags);
    }
    if (!r.commtest.empty()) write_commtest(os, r.commtest);
    for (const auto& t : r.tables) write_derived(os, t);
    for (const auto& n : r.notes) os << "note: " << n << '\n';
}

}  // namespace comet

namespace comet::detail::table {

COMET_DECL void text_table::write(std::ostream& os, std::string_view indent) const {
    std::vector<std::size_t> width(headers.size());
    for (std::size_t c = 0; c < headers.size(); ++c) width[c] = display_width(headers[c]);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
    const auto line = [&](const std::vector<std::string>& cells) {
        std::string out(indent);
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - display_width(cells[c]), ' ');
            if (c > 0) out += "  ";
            out += left[c] ? cells[c] + pad : pad + cells[c];
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();  // no trailing blanks
        os << out << '\n';
    };
    line(headers);
    for (const auto& row : rows) line(row);
}

}  // namespace comet::detail::table
