// The randomized differential test (test/support/differential.hpp) on the threads transport,
// 2 to 8 ranks: random programs of point-to-point phases, both-send-first exchanges and
// collectives, every byte, source, tag, size and the per-(source, tag) order checked. Also on
// the eight-member core over threads (every blocking operation and collective then comet's
// portable one), and the checker itself: a transport that corrupts or drops a message fails,
// naming the seed, instead of passing or hanging.
//
// The CI run is bounded (a few hundred seeds; fewer under the sanitizers, which slow threads
// tenfold); bench/bench_differential runs thousands.
#include <comet/transport/adaptor.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/differential.hpp"
#include "../support/messages.hpp"
#include "../support/minimal_transport.hpp"

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace threads_differential {

namespace diff = comet_test::differential;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::uint64_t seeds = 30;
#else
constexpr std::uint64_t seeds = 300;
#endif

/// Runs `count` seeds of programs for transport `T`, made from each rank's threads transport by
/// `wrap`; reports each failure (its seed, the step, what differed, the program's step) and
/// stops after three.
template <class T, class Wrap>
diff::tally run_seeds(std::uint64_t first, std::uint64_t count, Wrap wrap, const diff::limits& l = {}) {
    const diff::features f = diff::features_of<T>();
    const diff::tally tally = diff::run_seeds(
        first, count,
        [&](std::uint64_t seed) {
            const diff::program prog = diff::generate(seed, diff::ranks_for(seed, 2, 8), f, l);
            auto e = diff::run_one(prog, [&](const diff::program& p, std::vector<std::atomic<int>>& where) {
                comet::threads::run(p.ranks, [&](comet::threads::transport& inner) {
                    decltype(auto) t = wrap(inner);
                    diff::run_program(t, p, l, &where[static_cast<std::size_t>(inner.rank())]);
                });
            });
            if (e) BOOST_ERROR("seed " << seed << " (" << prog.ranks << " ranks) failed: " << *e);
            return e;
        },
        3);
    BOOST_TEST_MESSAGE(tally.seeds << " seeds, " << tally.failures << " failures");
    return tally;
}

/// Sabotages the first message of the user's (a tag below comet's reserved ones) that each rank
/// sends with a payload: flips its first byte (`corrupt`), or never sends it.
template <comet::transport Inner>
class sabotaged : public comet::transport_adaptor<Inner> {
public:
    sabotaged(Inner& inner, bool corrupt) : comet::transport_adaptor<Inner>(inner), corrupt_(corrupt) {}

    typename Inner::request isend(int dest, int tag, comet::const_bytes data) {
        if (const auto d = alter(tag, data)) return this->inner().isend(dest, tag, *d);
        if (hit_now()) return {};
        return this->inner().isend(dest, tag, data);
    }
    void send(int dest, int tag, comet::const_bytes data) {
        if (const auto d = alter(tag, data)) return this->inner().send(dest, tag, *d);
        if (!hit_now()) this->inner().send(dest, tag, data);
    }
    void bsend(int dest, int tag, comet::const_bytes data) {
        if (const auto d = alter(tag, data)) return this->inner().bsend(dest, tag, *d);
        if (!hit_now()) this->inner().bsend(dest, tag, data);
    }

private:
    /// True for the message to sabotage (the first user message with a payload).
    bool pick(int tag, comet::const_bytes data) {
        if (done_ || tag >= comet::first_reserved_tag || data.empty()) return false;
        return done_ = true;
    }
    std::optional<comet::const_bytes> alter(int tag, comet::const_bytes data) {
        hit_ = pick(tag, data);
        if (!hit_ || !corrupt_) return std::nullopt;
        auto& copy = copies_.emplace_back(data.begin(), data.end());
        copy[0] ^= std::byte{0x01};
        return comet::const_bytes(copy);
    }
    bool hit_now() { return std::exchange(hit_, false); }

    bool corrupt_;
    bool done_ = false;
    bool hit_ = false;
    std::deque<std::vector<std::byte>> copies_;
};

/// Seeds whose program sends a message with a payload.
std::vector<std::uint64_t> seeds_with_payload(int n) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t seed = 0; static_cast<int>(out.size()) < n; ++seed) {
        const diff::program prog =
            diff::generate(seed, diff::ranks_for(seed, 2, 8), diff::features_of<sabotaged<comet::threads::transport>>());
        bool payload = false;
        for (const auto& s : prog.steps)
            for (const auto& m : s.messages) payload |= m.size > 0;
        if (payload) out.push_back(seed);
    }
    return out;
}

}  // namespace threads_differential

BOOST_AUTO_TEST_SUITE(differential)

using namespace threads_differential;

BOOST_AUTO_TEST_CASE(threads_2_to_8_ranks) {
    const diff::tally t = run_seeds<comet::threads::transport>(0, seeds, [](comet::threads::transport& inner) -> auto& { return inner; });
    BOOST_TEST(t.seeds == seeds);
    BOOST_TEST(t.failures == 0u);
}

// The core alone: blocking operations, waits and collectives are comet's portable algorithms
// over isend/irecv/test (seeds of their own, so the programs differ from the threads case).
BOOST_AUTO_TEST_CASE(eight_member_core_over_threads) {
    const diff::tally t =
        run_seeds<comet_test::minimal_transport>(100000, seeds / 3, [](comet::threads::transport& inner) { return comet_test::minimal_transport(inner); });
    BOOST_TEST(t.failures == 0u);
}

// The checker: a flipped byte is reported, with the seed, the step and the byte.
BOOST_AUTO_TEST_CASE(a_corrupted_message_fails_naming_the_seed) {
    using sab = sabotaged<comet::threads::transport>;
    for (std::uint64_t seed : seeds_with_payload(5)) {
        const diff::program prog = diff::generate(seed, diff::ranks_for(seed, 2, 8), diff::features_of<sab>());
        const auto e = diff::run_one(prog, [&](const diff::program& p, std::vector<std::atomic<int>>& where) {
            comet::threads::run(p.ranks, [&](comet::threads::transport& inner) {
                sab t(inner, true);
                diff::run_program(t, p, {}, &where[static_cast<std::size_t>(inner.rank())]);
            });
        });
        BOOST_TEST_REQUIRE(e.has_value(), "seed " << seed << " passed with a corrupted message");
        const std::string said = "seed " + std::to_string(seed) + ",";
        BOOST_TEST(comet_test::mentions(std::runtime_error(*e), {said.c_str(), "step", "byte"}));
    }
}

// A lost message ends the run with a report naming the seed (the transport's deadlock report,
// or a polling loop's bound), never a hang.
BOOST_AUTO_TEST_CASE(a_lost_message_fails_naming_the_seed) {
    using sab = sabotaged<comet::threads::transport>;
    const diff::limits l{.poll_timeout = 2};
    for (std::uint64_t seed : seeds_with_payload(3)) {
        const diff::program prog = diff::generate(seed, diff::ranks_for(seed, 2, 8), diff::features_of<sab>(), l);
        const auto e = diff::run_one(prog, [&](const diff::program& p, std::vector<std::atomic<int>>& where) {
            comet::threads::run(p.ranks, [&](comet::threads::transport& inner) {
                sab t(inner, false);
                diff::run_program(t, p, l, &where[static_cast<std::size_t>(inner.rank())]);
            });
        });
        BOOST_TEST_REQUIRE(e.has_value(), "seed " << seed << " passed with a lost message");
        const std::string said = "seed " + std::to_string(seed) + ",";
        BOOST_TEST(comet_test::mentions(std::runtime_error(*e), {said.c_str(), "step"}));
    }
}

// The same seed gives the same program, whatever else was generated before.
BOOST_AUTO_TEST_CASE(a_seed_is_its_program) {
    const auto f = diff::features_of<comet::threads::transport>();
    const std::string a = diff::describe(diff::generate(42, 5, f));
    diff::generate(7, 3, f);
    BOOST_TEST(diff::describe(diff::generate(42, 5, f)) == a);
    BOOST_TEST(diff::describe(diff::generate(43, 5, f)) != a);
}

BOOST_AUTO_TEST_SUITE_END()
