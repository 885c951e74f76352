// comet --transport threads, as a template over kernels of one's own: the suite on P threads of
// this process (default 2), for each P given, with `extra` kernels beside the suite's. The
// program runs it without extras (launch_threads.cpp); a test runs a kernel of its own through
// it (test/suite/test_descriptor.cpp).
// Settings (--set key=value): eager_limit (bytes), ring_cells, spin_us, pin, preemptions (0: a
// rank's preemptions are not its disturbances).
#pragma once

#include "program.hpp"
#include "progress.hpp"
#include "stopping.hpp"

#include <comet/suite/suite.hpp>
#include <comet/compiled/threads.hpp>  // the transport; linking the compiled part, its kernels declared

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <exception>
#include <vector>

namespace comet_program {

/// The threads transport's settings of --set, each checked against its range before it is
/// used (a spin of 2^63 µs would overflow the nanoseconds it is kept in).
inline comet::threads::options threads_options(const settings& s) {
    comet::threads::options opt;
    for (const auto& [key, text] : s.transport_options) {
        struct range {
            const char* key;
            long long lo, hi;
            const char* what;
        };
        // ring_cells: 64 bytes a cell, a ring per ordered pair of ranks; 2^20 cells are 64 MiB a ring.
        static constexpr range ranges[] = {{"eager_limit", 0, std::int64_t{1} << 24, "bytes"},
                                           {"ring_cells", 16, std::int64_t{1} << 20, "cells, a power of two"},
                                           {"spin_us", 0, 10'000'000, "µs"},
                                           {"pin", 0, 1, "0 or 1"},
                                           {"preemptions", 0, 1, "0 or 1"}};
        const auto* r = std::find_if(std::begin(ranges), std::end(ranges), [&, &key = key](const range& x) { return key == x.key; });
        if (r == std::end(ranges))
            throw usage_error("--set " + key + ": the threads transport has no such setting (eager_limit, ring_cells, spin_us, pin, preemptions)");
        long long v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0)
            throw usage_error("--set " + key + "=" + text + ": not a non-negative integer");
        if ((key == "pin" || key == "preemptions") && v > 1) throw usage_error("--set " + key + "=" + text + ": 0 or 1");
        if (v < r->lo || v > r->hi || (key == "ring_cells" && (v & (v - 1)) != 0))
            throw usage_error("--set " + key + "=" + text + ": outside " + std::to_string(r->lo) + ".." + std::to_string(r->hi) + " " +
                              r->what);
        if (key == "eager_limit") opt.eager_limit = static_cast<std::size_t>(v);
        else if (key == "ring_cells") opt.ring_cells = static_cast<std::size_t>(v);
        else if (key == "spin_us") opt.spin = std::chrono::microseconds(v);
        else if (key == "pin") opt.pin = v == 1;
        else opt.count_preemptions = v == 1;
    }
    return opt;
}

/// Checks that a group of `ranks` fits this machine: the rings of every ordered pair of ranks
/// (ring_cells cells of 64 bytes each) must take at most half its memory, so that a run that
/// would end in std::bad_alloc (or in the swap) is refused naming the setting.
inline void check_threads_group(int ranks, const comet::threads::options& opt) {
    const auto p = static_cast<unsigned long long>(ranks);
    const unsigned long long rings = p * p * opt.ring_cells * 64;  // <= 2^12 * 2^12 * 2^20 * 2^6: no overflow
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return;  // not known: let the run try
    const unsigned long long memory = static_cast<unsigned long long>(pages) * static_cast<unsigned long long>(page);
    if (rings > memory / 2) {
        const auto mib = [](unsigned long long b) { return std::to_string(b >> 20) + " MiB"; };
        throw usage_error("--nodes " + std::to_string(ranks) + ": the threads transport's rings (" + std::to_string(ranks) + "^2 x " +
                          std::to_string(opt.ring_cells) + " cells of 64 bytes, --set ring_cells) would take " + mib(rings) +
                          ", more than half of this machine's " + mib(memory));
    }
}

template <class... Run>
outcome run_threads(const settings& s, const comet::kernel<Run>&... extra) {
    const std::vector<int> groups = s.nodes.empty() ? std::vector<int>{2} : s.nodes;
    const comet::threads::options opt = threads_options(s);
    check_test_node(s, groups);
    check_matrix_lines(s, groups);
    for (int p : groups) check_threads_group(p, opt);
    const std::vector<comet::kernel_descriptor> kernels = comet::suite_descriptors(extra...);
    const int rounds = s.rounds ? s.rounds : rounds_default;
    progress bar(points_in_rounds(s.suite, later_rounds(s.suite, kernels), rounds, groups, kernels));
    comet::suite_config cfg = s.suite;
    const int test_node = cfg.transfer.test_node;
    cfg.on_point = [&bar](const comet::record& r) { bar.point(r); };
    run_log log;
    log.attach(cfg);
    const comet::suite_config later = later_rounds(cfg, kernels);
    outcome o;
    // Made before the runs: the date and the load average are the start's.
    o.ctx = comet::make_context("threads", groups.back());
    o.ctx.transport_capabilities = comet::describe_capabilities<comet::threads::transport>();
    outcome base = o;
    base.groups = groups;
    const second_signal_writes on_second(s, log, std::move(base));
    for (int nodes : groups) {
        // Each round a group of its own, threads started afresh: what a new run would get
        // (where the ranks land, their rings' memory) varies between rounds too.
        comet::result_set measured;
        for (int round = 0; round < rounds && !o.stopped; ++round) {
            const comet::suite_config& this_round = round == 0 ? cfg : later;
            if (this_round.kernels.empty()) break;
            log.next_group();
            try {
                auto per_rank = comet::threads::run(
                    nodes,
                    [&](comet::threads::transport& t) {
                        return with_noise(t, s.noise, [&](auto& u) { return comet::run_suite(u, this_round, extra...); });
                    },
                    opt);
                add_round(measured, per_rank.at(static_cast<std::size_t>(test_node)));
                comet::result_set so_far = o.results;
                so_far.append(measured);
                log.keep(so_far);
            } catch (const std::exception&) {
                outcome cut;  // the round's points up to the stop, and where and why it stopped
                log.stopped(cut, std::current_exception());
                add_round(measured, cut.results);
                o.stopped = cut.stopped;
                o.failure = cut.failure;
            }
        }
        o.results.append(measured);
        if (o.stopped) break;
    }
    o.groups = groups;
    // Every rank is a thread of this process, runnable while it works or spins for a message:
    // the largest group put up to that many threads into the load average.
    comet::record_load_at_end(o.ctx, *std::max_element(groups.begin(), groups.end()));
    for (const auto& [key, value] : s.transport_options) o.ctx.extra.emplace_back(key, value);
    if (!s.noise.empty()) o.ctx.extra.emplace_back("noise", describe(s.noise));
    o.ctx.extra.emplace_back("rounds", rounds_text(rounds, cfg, later));
    // Where the ranks started: one per CPU (threads::options::pin) when the largest group fits.
    const bool pinned = !comet::threads::detail::placement(*std::max_element(groups.begin(), groups.end()), opt).empty();
    o.ctx.extra.emplace_back("placement", pinned ? "each rank started on a CPU of its own" : "as the scheduler places them");
    const int largest = *std::max_element(groups.begin(), groups.end());
    o.ctx.extra.emplace_back("preemptions", !opt.count_preemptions ? "not looked at (--set preemptions=0)"
                                            : largest > comet::usable_cpu_count(largest)
                                                ? "not looked at: more ranks than CPUs, which take the CPU from each other"
                                                : "a sample during which a rank lost its CPU is left out (invalid: preempted)");
    return o;
}

}  // namespace comet_program
