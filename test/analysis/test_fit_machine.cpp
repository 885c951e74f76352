// Tests of comet/analysis/fit_machine.hpp: a LogGOPS machine fitted to the round trips measured
// on a LogGOPS machine gives it back, S where its rendezvous begins; fitted on the simulated
// iPSC/860, S is NX/2's 100-byte eager limit; fitted per size, a machine whose costs change
// their line at given sizes (bands) gives back its costs at every size measured, and any
// machine's round trips, rendezvous included; too few sizes are refused.
#include <comet/analysis/fit_machine.hpp>
#include <comet/kernels/loggp.hpp>
#include <comet/stats/validity.hpp>

#if COMET_TEST_HAS_NX2
#include <comet/transport/loggops.hpp>
#include <comet/transport/nx2.hpp>

#include "../support/loggops_machines.hpp"
#endif

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(fit_machine)

namespace tt = boost::test_tools;

#if COMET_TEST_HAS_NX2
namespace {
comet::kernels::loggp_config sizes(std::vector<std::size_t> s) {
    comet::kernels::loggp_config c;
    c.transfer.sizes = std::move(s);
    c.transfer.sampling = comet::fixed_sampling(3, 10);
    return c;
}
}  // namespace

BOOST_AUTO_TEST_CASE(a_loggops_machine_fitted_gives_itself_back) {
    using namespace comet::loggops;
    const machine m = comet_test::distinct_loggops_machine();
    const auto c = sizes({0, 64, 256, 1024, 2048, 4096, 8192, 65536});
    const auto out = run(m, [&](transport& t) { return comet::kernels::loggp(t, c); });
    const comet::fitted_machine f = comet::fit_machine(out[0].records);
    BOOST_TEST(f.valid());
    BOOST_TEST(f.machine.S == 4096u);
    const auto near = [](std::int64_t a, std::int64_t b) { return a - b <= 2 && b - a <= 2; };  // rounding
    BOOST_TEST(near(f.machine.L, m.L));
    BOOST_TEST(near(f.machine.o_s, m.o_s));
    BOOST_TEST(near(f.machine.o_r, m.o_r));
    BOOST_TEST(near(f.machine.O_s, m.O_s));
    BOOST_TEST(near(f.machine.O_r, m.O_r));
    BOOST_TEST(near(f.machine.g, m.g));
    BOOST_TEST(near(f.machine.G, m.G));
    BOOST_TEST(f.provenance().find("S = 4096 B: at 8192 B") != std::string::npos, f.provenance());

    // Without a size above S, S is none and the notes say to measure larger ones.
    const auto eager = run(m, [&](transport& t) { return comet::kernels::loggp(t, sizes({0, 64, 256, 1024})); });
    const comet::fitted_machine e = comet::fit_machine(eager[0].records);
    BOOST_TEST(e.machine.S == no_rendezvous);
    BOOST_TEST(e.provenance().find("S = none") != std::string::npos, e.provenance());
}

BOOST_AUTO_TEST_CASE(a_round_trip_below_the_line_joins_it_and_one_above_marks_S) {
    // The 256-byte round trips made 20% slower than the machine gives them (noise on a small
    // size): the line of 0..256 B is too steep, and 1024 B lies below it. A rendezvous makes a
    // round trip slower, never faster: 1024 B joins the line, named in the notes, and S is still
    // found where the machine's rendezvous begins.
    const comet::loggops::machine m = comet_test::distinct_loggops_machine();
    const auto c = sizes({0, 64, 256, 1024, 2048, 4096, 8192});
    auto records = comet::loggops::run(m, [&](comet::loggops::transport& t) { return comet::kernels::loggp(t, c); })[0].records;
    int changed = 0;
    for (comet::record& r : records)
        if (r.params.integer("size") == 256) {
            for (double& s : r.samples) s *= 1.2;
            ++changed;
        }
    BOOST_REQUIRE(changed == 4);
    const comet::fitted_machine f = comet::fit_machine(records);
    BOOST_TEST(f.machine.S == 4096u, f.provenance());
    BOOST_TEST(f.provenance().find("at 1024 B the single round trip took") != std::string::npos, f.provenance());
    BOOST_TEST(f.provenance().find("the line is fitted with it") != std::string::npos, f.provenance());
}

namespace {
/// The median of the single round trip (PRTT(1, 0, s)) of each size among `records`.
std::map<std::int64_t, double> single_round_trips(const std::vector<comet::record>& records) {
    std::map<std::int64_t, double> out;
    for (const auto& r : records)
        if (r.params.text("train_kind") == "1,0") out[*r.params.integer("size")] = comet::summarize(r).median;
    return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(fitted_per_size_a_banded_machine_gives_its_costs_back) {
    using namespace comet::loggops;
    machine m = comet_test::distinct_loggops_machine();
    m.S = no_rendezvous;
    // A copy that gets cheaper per byte past 1 KiB and a wire that slows past 16 KiB.
    m.bands.push_back({1024, 1 * microseconds, 2 * microseconds, 500 * nanoseconds, 20 * picoseconds_per_byte,
                       30 * picoseconds_per_byte, 300 * picoseconds_per_byte});
    m.bands.push_back({16384, 2 * microseconds, 3 * microseconds, 500 * nanoseconds, 20 * picoseconds_per_byte,
                       30 * picoseconds_per_byte, 600 * picoseconds_per_byte});
    const std::vector<std::size_t> measured{0, 256, 1024, 4096, 16384, 65536};
    const auto out = run(m, [&](transport& t) { return comet::kernels::loggp(t, sizes(measured)); });
    const comet::fitted_machine f = comet::fit_machine(out[0].records, comet::cost_lines::per_size);
    BOOST_TEST(f.valid(), f.provenance());
    BOOST_TEST(f.per_size);
    BOOST_TEST(f.machine.S == no_rendezvous);
    BOOST_TEST(f.machine.bands.size() == measured.size() - 1);
    BOOST_TEST(f.provenance().find("per size: a band from each of 5 sizes") != std::string::npos, f.provenance());
    const cost_table want(m), got(f.machine);
    const auto near = [](std::int64_t a, std::int64_t b) { return a - b <= 4 && b - a <= 4; };  // rounding
    BOOST_TEST(near(f.machine.L, m.L));
    for (std::size_t s : measured) {
        BOOST_TEST_CONTEXT("size " << s) {
            BOOST_TEST(near(got.send(s), want.send(s)));
            BOOST_TEST(near(got.receive(s), want.receive(s)));
            BOOST_TEST(near(got.stream(s), want.stream(s)));
            // A train's pace: the interface's gap where it sets it (at 1 KiB the sender's CPU
            // does, and g there is the least the interfaces showed elsewhere: the machine's).
            BOOST_TEST(near(got.wire(s).gap, want.wire(s).gap));
        }
    }
    BOOST_TEST(comet::fit_machine(out[0].records).machine.bands.empty());  // one line: no bands
}

BOOST_AUTO_TEST_CASE(fitted_per_size_a_machine_with_a_rendezvous_keeps_its_round_trips) {
    // S = 4096 B: from 8 KiB on, every message waits for a handshake. The per-size machine has
    // no rendezvous, but its bands carry the handshake's time: the single round trip of every
    // size measured comes out as the original's.
    using namespace comet::loggops;
    const machine m = comet_test::distinct_loggops_machine();
    const auto c = sizes({0, 64, 1024, 4096, 8192, 65536});
    const auto original = run(m, [&](transport& t) { return comet::kernels::loggp(t, c); });
    const comet::fitted_machine f = comet::fit_machine(original[0].records, comet::cost_lines::per_size);
    BOOST_TEST(f.machine.S == no_rendezvous);
    const auto again = run(f.machine, [&](transport& t) { return comet::kernels::loggp(t, c); });
    const auto want = single_round_trips(original[0].records), got = single_round_trips(again[0].records);
    BOOST_TEST_REQUIRE(want.size() == 6u);
    for (const auto& [size, t] : want)
        BOOST_TEST_CONTEXT("size " << size) { BOOST_TEST(got.at(size) == t, tt::tolerance(1e-3)); }
    BOOST_TEST(f.provenance().find("at 8192 B the path came out") != std::string::npos, f.provenance());
}

BOOST_AUTO_TEST_CASE(fitted_per_size_a_flagged_median_makes_it_invalid) {
    using namespace comet::loggops;
    const machine m = comet_test::distinct_loggops_machine();
    auto records = run(m, [&](transport& t) { return comet::kernels::loggp(t, sizes({0, 64, 1024})); })[0].records;
    for (comet::record& r : records)
        if (r.params.integer("size") == 64 && r.params.text("train_kind") == "n,0") comet::add_flag(r, "median", "the samples disagree");
    const comet::fitted_machine f = comet::fit_machine(records, comet::cost_lines::per_size);
    BOOST_TEST(!f.valid());
    BOOST_TEST(f.provenance().find("flagged median: PRTT(n,0, 64 B): the samples disagree") != std::string::npos, f.provenance());
}

BOOST_AUTO_TEST_CASE(on_the_ipsc860_S_is_nx2s_eager_limit) {
    const auto c = sizes({0, 16, 32, 64, 96, 100, 128, 256, 1024});
    const auto out = comet::nx2::run(comet::nx2::ipsc860(1), [&](comet::nx2::transport& t) { return comet::kernels::loggp(t, c); });
    const comet::fitted_machine f = comet::fit_machine(out[0].records);
    BOOST_TEST(f.valid());
    BOOST_TEST(f.machine.S == 100u);
    BOOST_TEST(f.machine.O_s == 110 * comet::loggops::nanoseconds_per_byte);  // NX/2's copy
    BOOST_TEST(static_cast<double>(f.machine.G) == 410e6, tt::tolerance(1e-6));  // the DMA, 1 / 2,439,024 s per byte
}
#endif

BOOST_AUTO_TEST_CASE(too_few_sizes_are_refused) {
    std::vector<comet::record> none;
    BOOST_CHECK_THROW(comet::fit_machine(none), comet::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
