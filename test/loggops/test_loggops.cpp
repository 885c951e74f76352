// Tests of comet/transport/loggops.hpp: the transport conformance suite on a LogGOPS machine
// (eager and with rendezvous from a few bytes), a message's time as the model's parameters
// say it to the picosecond, the fit of analysis/loggp.hpp giving a machine's parameters back,
// contention at a receiving interface, deadlock reports, determinism and bad input.
#if COMET_TEST_HAS_NX2
#include <comet/analysis/loggp.hpp>
#include <comet/kernels/loggp.hpp>
#include <comet/ops/ops.hpp>
#include <comet/testing/conformance.hpp>
#include <comet/transport/decorators/noisy.hpp>
#include <comet/transport/loggops.hpp>

#include "../support/loggops_machines.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace loggops_test {

using namespace comet::loggops;

/// Runs a conformance check on a machine of as many nodes as ranks.
struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    machine base{};
    int max_ranks() const { return 1024; }
    template <class F>
    void operator()(int ranks, F&& body) const {
        machine m = base;
        m.nodes = ranks;
        comet::loggops::run(m, std::forward<F>(body));
    }
};

inline machine small_rendezvous() {
    machine m;
    m.S = 64;
    return m;
}

inline machine distinct() { return comet_test::distinct_loggops_machine(); }

}  // namespace loggops_test

COMET_TRANSPORT_CONFORMANCE(loggops_conformance, loggops_test::runner{})
// The same rules with every message above 64 bytes by rendezvous (a ring of blocking 40-byte sends, as the suite makes, still goes eagerly: MPI libraries buffer far more).
COMET_TRANSPORT_CONFORMANCE(loggops_conformance_rendezvous, (loggops_test::runner{loggops_test::small_rendezvous()}))

BOOST_AUTO_TEST_SUITE(loggops)

using namespace loggops_test;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_CASE(a_message_costs_what_the_parameters_say) {
    // Eager, 1000 bytes: o_s + O_s·s + L + G·s + o_r + O_r·s from the send to the receive's end.
    const machine m = distinct();
    const std::size_t s = 1000;
    const auto e = comet::loggops::run(m, [&](transport& t) {
        std::vector<std::byte> b(s);
        if (t.rank() == 0) {
            t.send(1, 0, b);
            return vtime{0};
        }
        t.recv(0, 0, b);
        return t.clock();
    });
    BOOST_TEST(e[1] == m.o_s + bytes_time(m.O_s, s) + m.L + bytes_time(m.G, s) + m.o_r + bytes_time(m.O_r, s));

    // By rendezvous (5000 > S): o_s + O_s·s, the request's L, the answer's L, then the data's
    // L + G·s, and o_r + O_r·s (LogGOPS charges the per-byte overheads whatever the protocol).
    const std::size_t big = 5000;
    const auto r = comet::loggops::run(m, [&](transport& t) {
        std::vector<std::byte> b(big);
        if (t.rank() == 0) {
            t.send(1, 0, b);
            return t.clock();
        }
        t.recv(0, 0, b);
        return t.clock();
    });
    const vtime sent = m.o_s + bytes_time(m.O_s, big);
    BOOST_TEST(r[1] == sent + 3 * m.L + bytes_time(m.G, big) + m.o_r + bytes_time(m.O_r, big));
    // The sender is done when the data's last byte has left: 2L + G·s after its call.
    BOOST_TEST(r[0] == sent + 2 * m.L + bytes_time(m.G, big));
}

BOOST_AUTO_TEST_CASE(the_bytes_arrive_and_a_rendezvous_waits_for_its_receive) {
    // The data moves for real, and a message by rendezvous goes only once a receive is posted:
    // a receiver that computes 50 us first holds the sender's 8 KiB send until then.
    machine m = distinct();
    const auto out = comet::loggops::run(m, [&](transport& t) {
        std::vector<std::byte> b(8192);
        if (t.rank() == 0) {
            for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::byte(i * 7);
            t.send(1, 3, b);
            return t.clock();
        }
        t.compute(comet::work::busy(50e-6));
        t.recv(0, 3, b);
        for (std::size_t i = 0; i < b.size(); ++i)
            if (b[i] != std::byte(i * 7)) return vtime{-1};
        return t.clock();
    });
    BOOST_TEST(out[1] > 0);
    BOOST_TEST(out[0] == 50 * microseconds + m.L + bytes_time(m.G, 8192));  // answer, then the data leaves
}

BOOST_AUTO_TEST_CASE(a_message_too_big_for_its_receive_fails_it_and_is_let_go) {
    // Eager and by rendezvous (above S, and every ssend): the receive fails naming both sizes,
    // the sender's call returns, and no message record is left held when the run ends.
    const machine m = distinct();
    for (const std::size_t size : {std::size_t{64}, std::size_t{8192}}) {
        for (const bool synchronous : {false, true}) {
            run_statistics stats;
            const auto said = comet::loggops::run(
                m,
                [&](transport& t) -> std::string {
                    std::vector<std::byte> b(size);
                    if (t.rank() == 0) {
                        synchronous ? t.ssend(1, 4, b) : t.send(1, 4, b);
                        return "sent";
                    }
                    std::vector<std::byte> small(16);
                    try {
                        t.recv(0, 4, small);
                    } catch (const comet::truncation_error& e) {
                        return e.what();
                    }
                    return "received";
                },
                {.statistics = &stats});
            BOOST_TEST(said[0] == "sent");
            BOOST_TEST(said[1].find("the " + std::to_string(size) + "-byte message from rank 0 (tag 4) does not fit the 16-byte buffer") !=
                           std::string::npos,
                       said[1]);
            BOOST_TEST(stats.messages_held == 0u, size << " bytes, ssend " << synchronous);
        }
    }
    // A message nobody receives is still held, and counted.
    run_statistics stats;
    comet::loggops::run(
        m,
        [](transport& t) {
            if (t.rank() == 0) t.send(1, 9, std::vector<std::byte>(8));
        },
        {.statistics = &stats});
    BOOST_TEST(stats.messages_held == 1u);
}

BOOST_AUTO_TEST_CASE(the_fit_gives_the_machine_back) {
    // Netgauge's round trips on the model, below S, fitted: every parameter comes back.
    const machine m = distinct();
    comet::kernels::loggp_config c;
    c.transfer.sizes = {0, 64, 256, 1024, 2048, 4096};
    c.transfer.sampling = comet::fixed_sampling(3, 10);
    const auto out = comet::loggops::run(m, [&](transport& t) { return comet::kernels::loggp(t, c); });
    const auto f = comet::fit_loggp(out[0].records);
    BOOST_TEST(f.valid());
    BOOST_TEST(f.L.value == 2e-6, tt::tolerance(1e-6));
    BOOST_TEST(f.o_s.value == 400e-9, tt::tolerance(1e-6));
    BOOST_TEST(f.o_r.value == 600e-9, tt::tolerance(1e-6));
    BOOST_TEST(f.O_s.value == 50e-12, tt::tolerance(1e-5));
    BOOST_TEST(f.O_r.value == 70e-12, tt::tolerance(1e-5));
    BOOST_TEST(f.g.value == 1e-6, tt::tolerance(1e-6));
    BOOST_TEST(f.G.value == 300e-12, tt::tolerance(1e-5));
    BOOST_TEST(f.G_path.value == 300e-12, tt::tolerance(1e-5));
}

BOOST_AUTO_TEST_CASE(senders_to_one_receiver_land_one_after_another) {
    // Three ranks send 10,000 bytes to rank 0 at once: their first bytes reach its interface
    // together, which takes them one at a time, g + G·s apart.
    machine m = distinct();
    m.nodes = 4;
    m.S = comet::loggops::no_rendezvous;
    const std::size_t s = 10'000;
    const auto out = comet::loggops::run(m, [&](transport& t) {
        std::vector<std::byte> b(s);
        if (t.rank() != 0) {
            t.send(0, 0, b);
            return vtime{0};
        }
        for (int i = 0; i < 3; ++i) t.recv(comet::any_source, 0, b);
        return t.clock();
    });
    const vtime first_in = m.o_s + bytes_time(m.O_s, s) + m.L;
    const vtime last_landed = first_in + 2 * (m.g + bytes_time(m.G, s)) + bytes_time(m.G, s);
    // Rank 0 then collects the three receives, each o_r + O_r·s after the later of its landing
    // and the previous receive's end.
    const vtime cost = m.o_r + bytes_time(m.O_r, s);
    BOOST_TEST(out[0] == last_landed + cost);
}

BOOST_AUTO_TEST_CASE(runs_are_the_same_to_the_picosecond_and_noise_delays_them) {
    const auto once = [](bool noisy) {
        machine m = distinct();
        m.nodes = 8;
        comet::loggops::run_statistics st;
        comet::loggops::run(
            m,
            [&](transport& t) {
                std::vector<double> v(16, t.rank());
                if (noisy) {
                    comet::noisy n(t, comet::noise{{.length = 5e-6, .share = 0.2, .seed = 3}});
                    for (int i = 0; i < 20; ++i) comet::ops::allreduce_sum(n, v);
                } else {
                    for (int i = 0; i < 20; ++i) comet::ops::allreduce_sum(t, v);
                }
            },
            {.statistics = &st});
        return st.end_time;
    };
    const vtime a = once(false), b = once(false), c = once(true);
    BOOST_TEST(a == b);
    BOOST_TEST(c > a);
}

BOOST_AUTO_TEST_CASE(a_deadlock_is_reported_with_what_each_rank_waits_for) {
    machine m;
    try {
        comet::loggops::run(m, [](transport& t) {
            std::byte b[8];
            t.recv(1 - t.rank(), 5, b);
        });
        BOOST_FAIL("no deadlock reported");
    } catch (const comet::deadlock_error& e) {
        const std::string w = e.what();
        BOOST_TEST(w.find("rank 0 waits in recv from rank 1 (tag 5, up to 8 bytes)") != std::string::npos, w);
        BOOST_TEST(w.find("rank 1 waits in recv from rank 0") != std::string::npos, w);
    }
    // Both ranks ssend first: neither is ever matched.
    BOOST_CHECK_THROW(comet::loggops::run(m,
                                          [](transport& t) {
                                              std::byte b[8]{};
                                              t.ssend(1 - t.rank(), 5, b);
                                          }),
                      comet::deadlock_error);
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_naming_the_value) {
    const auto says = [](auto&& f, const std::string& words) {
        try {
            f();
        } catch (const comet::invalid_argument& e) {
            const std::string w = e.what();
            BOOST_TEST(w.find(words) != std::string::npos, w);
            return;
        }
        BOOST_FAIL("not refused: " + words);
    };
    machine m;
    m.nodes = 0;
    says([&] { comet::loggops::run(m, [](transport&) {}); }, "nodes = 0 is outside 1..");
    m = machine{};
    m.g = -1;
    says([&] { comet::loggops::run(m, [](transport&) {}); }, "g (ps) = -1");
    m = machine{};
    says([&] { comet::loggops::run(m, [](transport&) {}, {.ranks = 3}); }, "3 ranks do not fit the 2-node machine");
    says([&] { comet::loggops::run(m, [](transport& t) { t.send(7, 0, {}); }); }, "7");
}

BOOST_AUTO_TEST_SUITE_END()

#endif
