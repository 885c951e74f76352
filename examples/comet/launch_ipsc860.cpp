// comet --transport ipsc860 | ipsc1: the suite on the simulated iPSC/860 of the CoMet thesis or
// the iPSC/1 of the NIST study (seed 003), default 16 nodes as both ran, for each group size
// given (--nodes 2,4,8,16), in virtual time. The report leaves the host's date, name and clock
// out: the same command writes the same bytes.
//
// Settings (--set key=value) make what-if machines; decimals are exact (no rounding through
// floating point), so a setting names a machine to the picosecond:
//   topology=hypercube|mesh   columns=N (mesh; default: square, or twice as wide as high)
//   link_mbps, dma_mbps       channel and DMA rates in MB/s (10^6 bytes per second)
//   duplex=full|half          channels carrying both directions at once, or one frame at a time
//   hop_us, call_us, interrupt_us, resume_us, copy_us_per_byte
//   header_bytes, eager_limit, eager_buffers, credit_batch
//   flop_ns, memory_ns_per_byte, dependent_flop_ns, cache_line_bytes
//   retry_timeout_us, retry_backoff_us   (retransmission under congestion; 0 = off)
//   stack_kib                 stack of each simulated rank
#include "program.hpp"

#ifdef COMET_HAVE_NX2
#include "simulated.hpp"

#include <comet/topology/hypercube.hpp>
#include <comet/compiled/nx2.hpp>  // the transport; linking the compiled part, its kernels declared

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>
#endif

namespace comet_program {

#ifdef COMET_HAVE_NX2

namespace {

const char* const known_settings =
    "topology, columns, link_mbps, dma_mbps, duplex, hop_us, call_us, interrupt_us, resume_us, copy_us_per_byte, header_bytes, "
    "eager_limit, eager_buffers, credit_batch, flop_ns, memory_ns_per_byte, dependent_flop_ns, cache_line_bytes, retry_timeout_us, "
    "retry_backoff_us, stack_kib";

/// An exact non-negative decimal with at most `decimals` digits after the point, times
/// 10^decimals: fixed("23.766667", 6) == 23766667.
std::int64_t fixed(const std::string& key, const std::string& text, int decimals) {
    const auto bad = [&](const std::string& why) { return usage_error("--set " + key + "=" + text + ": " + why); };
    const auto dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
    if (whole.empty() && frac.empty()) throw bad("not a number");
    if (static_cast<int>(frac.size()) > decimals)
        throw bad("more than " + std::to_string(decimals) + " decimals (the simulator counts whole picoseconds)");
    frac.append(static_cast<std::size_t>(decimals) - frac.size(), '0');
    const std::string digits = (whole.empty() ? "0" : whole) + frac;
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size() || digits.find_first_not_of("0123456789") != std::string::npos)
        throw bad("not a non-negative decimal number");
    return v;
}

struct launch_config {
    comet::nx2::machine base;
    int columns = 0;  ///< mesh: 0 = choose
    std::size_t stack = 256 * 1024;
};

launch_config parse_settings(const settings& s) {
    launch_config c;
    c.base = s.transport == "ipsc1" ? comet::nx2::ipsc1() : comet::nx2::ipsc860();
    auto& m = c.base;
    for (const auto& [key, text] : s.transport_options) {
        const auto integer = [&, &key = key, &text = text] {
            const std::int64_t v = fixed(key, text, 0);
            if (v > (std::int64_t{1} << 31)) throw usage_error("--set " + key + "=" + text + ": too large");
            return v;
        };
        if (key == "topology") {
            if (text == "hypercube") {
                m.network = comet::nx2::topology::hypercube;
            } else if (text == "mesh") {
                m.network = comet::nx2::topology::mesh;
                m.name = s.transport + "-mesh";
            } else {
                throw usage_error("--set topology=" + text + ": not hypercube or mesh");
            }
        } else if (key == "columns") c.columns = static_cast<int>(integer());
        else if (key == "link_mbps") m.link_bytes_per_second = fixed(key, text, 6);
        else if (key == "dma_mbps") m.dma_bytes_per_second = fixed(key, text, 6);
        else if (key == "duplex") {
            if (text != "full" && text != "half") throw usage_error("--set duplex=" + text + ": not full or half");
            m.half_duplex = text == "half";
        }
        else if (key == "hop_us") m.hop_latency = fixed(key, text, 6);
        else if (key == "call_us") m.call = fixed(key, text, 6);
        else if (key == "interrupt_us") m.interrupt = fixed(key, text, 6);
        else if (key == "resume_us") m.resume = fixed(key, text, 6);
        else if (key == "copy_us_per_byte") m.copy_per_byte = fixed(key, text, 6);
        else if (key == "header_bytes") m.header_bytes = integer();
        else if (key == "eager_limit") m.eager_limit = static_cast<std::size_t>(integer());
        else if (key == "eager_buffers") m.eager_buffers = static_cast<int>(integer());
        else if (key == "credit_batch") m.credit_batch = static_cast<int>(integer());
        else if (key == "flop_ns") m.flop_time = fixed(key, text, 3);
        else if (key == "memory_ns_per_byte") m.memory_per_byte = fixed(key, text, 3);
        else if (key == "dependent_flop_ns") m.dependent_flop_time = fixed(key, text, 3);
        else if (key == "cache_line_bytes") m.cache_line_bytes = integer();
        else if (key == "retry_timeout_us") m.retry_timeout = fixed(key, text, 6);
        else if (key == "retry_backoff_us") m.retry_backoff = fixed(key, text, 6);
        else if (key == "stack_kib") c.stack = static_cast<std::size_t>(integer()) * 1024;
        else throw usage_error("--set " + key + ": the simulated " + (s.transport == "ipsc1" ? "iPSC/1" : "iPSC/860") +
                               " has no such setting (" + known_settings + ")");
    }
    if (m.network == comet::nx2::topology::hypercube && c.columns != 0)
        throw usage_error("--set columns: only a mesh has columns (add --set topology=mesh)");
    return c;
}

/// The machine of one group size: a cube of that many nodes, or a mesh of them.
comet::nx2::machine machine_for(const launch_config& c, int nodes) {
    comet::nx2::machine m = c.base;
    const auto n = static_cast<unsigned>(nodes);
    if (m.network == comet::nx2::topology::hypercube) {
        if (!comet::is_power_of_two(n))
            throw usage_error("--nodes " + std::to_string(nodes) + ": a hypercube has a power-of-two number of nodes");
        m.dimension = std::countr_zero(n);
        return m;
    }
    int columns = c.columns;
    if (columns == 0) {
        // The thesis' processor mesh (4.3): square when it can be, else twice as wide as high.
        if (!comet::is_power_of_two(n))
            throw usage_error("--nodes " + std::to_string(nodes) + ": say how many columns the mesh has (--set columns=N)");
        columns = 1 << ((std::countr_zero(n) + 1) / 2);
    }
    if (columns < 1 || nodes % columns != 0)
        throw usage_error("--nodes " + std::to_string(nodes) + ": not a whole number of rows of " + std::to_string(columns) + " columns");
    m.columns = columns;
    m.rows = nodes / columns;
    return m;
}

}  // namespace

outcome launch_ipsc860(const settings& s) {
    const std::vector<int> groups = s.nodes.empty() ? std::vector<int>{16} : s.nodes;
    const launch_config config = parse_settings(s);
    std::vector<comet::nx2::machine> machines;  // every group's, checked before anything runs
    for (int p : groups) machines.push_back(machine_for(config, p));
    std::uint64_t retransmissions = 0;
    simulated_totals totals;
    // The thesis' method unless told otherwise (run_simulated): a loop calibrated to 200 µs of
    // virtual time would hold a few operations and read nearer their single-shot latency.
    outcome o = run_simulated(s, groups, totals, [&](int p, const comet::suite_config& cfg, simulated_totals& sum) {
        comet::nx2::run_statistics stats;
        auto per_rank = comet::nx2::run(
            machine_for(config, p),
            [&](comet::nx2::transport& t) { return with_noise(t, s.noise, [&](auto& u) { return comet::run_suite(u, cfg); }); },
            {.stack_size = config.stack, .statistics = &stats});
        sum.virtual_picoseconds += stats.end_time;
        sum.messages += stats.total().messages_sent;
        retransmissions += stats.total().retransmissions;
        return std::move(per_rank.at(static_cast<std::size_t>(cfg.transfer.test_node)));
    });
    // Virtual time does not depend on the host: its CPU, caches, clock speed and load stay out
    // of the report (as its name and the date do), and so do the notes they would raise. The
    // build and what the simulated transport offers stay: they are the same on every host.
    o.ctx.transport_capabilities = comet::describe_capabilities<comet::nx2::transport>();
    o.ctx.extra.emplace_back("machine", comet::nx2::describe(machines.back()));
    add_simulated_context(o, s, totals, comet::nx2::detail::fixed(totals.virtual_picoseconds, 12));
    if (config.base.retry_timeout > 0) o.ctx.extra.emplace_back("retransmissions", std::to_string(retransmissions));
    // Where the protocol changes: NX/2's 100 bytes (thesis 4.2, 5.1); on the iPSC/1, a message
    // of more than one 1 KB packet.
    o.break_size = static_cast<double>((s.transport == "ipsc1" ? comet::nx2::ipsc1() : comet::nx2::ipsc860()).eager_limit);
    // The thesis' figures and shapes are CoMet's, on the iPSC/860: beside the iPSC/1, or a run of
    // the other seeds' kernels alone (commtest, sync, collectives), they would say nothing.
    const auto comet_kernels = comet::implemented_kernels();
    o.compare_with_thesis = s.transport == "ipsc860" && std::any_of(s.suite.kernels.begin(), s.suite.kernels.end(), [&](const std::string& k) {
        return std::find(comet_kernels.begin(), comet_kernels.end(), k) != comet_kernels.end();
    });
    return o;
}

#else
outcome launch_ipsc860(const settings& s) {
    throw usage_error("--transport " + s.transport + ": the simulator is not part of this build (Boost.Context was not found)");
}
#endif

}  // namespace comet_program
