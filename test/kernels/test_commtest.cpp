// Tests of comet/kernels/commtest/ (protocol.hpp, exchange.hpp, commtest.hpp) on the threads
// transport: every protocol exchanges its volume and the received data is checked by the kernel
// itself (a wrong byte raises); the records, the arrangements and cache modes, pairs, the
// protocols a transport cannot run, and bad configurations.
#include <comet/kernels/commtest/commtest.hpp>
#include <comet/transport/adaptor.hpp>
#include <comet/transport/threads.hpp>

#include <comet/transport/decorators/faulty.hpp>

#include <boost/test/unit_test.hpp>

#include <atomic>

#include "../support/messages.hpp"
#include "../support/minimal_transport.hpp"

#include <set>
#include <string>

namespace commtest_test {

namespace ct = comet::kernels::commtest;
using comet::threads::transport;

/// A small run: 8 KB as 1, 4 and 16 messages, 3 samples each.
inline ct::commtest_config quick() {
    ct::commtest_config c;
    c.volumes = {8192};
    c.messages = {1, 4, 16};
    c.sampling = comet::fixed_sampling(3, 1);
    return c;
}

/// A faulty transport: its nonblocking sends leave out a message's last byte.
class short_sends : public comet::transport_adaptor<transport> {
public:
    using transport_adaptor::transport_adaptor;
    request isend(int dest, int tag, comet::const_bytes data) {
        return inner().isend(dest, tag, data.first(data.empty() ? 0 : data.size() - 1));
    }
};

}  // namespace commtest_test

BOOST_AUTO_TEST_SUITE(commtest)

using namespace commtest_test;

BOOST_AUTO_TEST_CASE(protocols_parse_print_and_their_sides) {
    BOOST_TEST(ct::all_protocols.size() == 21u);
    for (ct::protocol p : ct::all_protocols) {
        const auto back = ct::parse_protocol(ct::to_string(p));
        BOOST_TEST_REQUIRE(back.has_value());
        BOOST_TEST((*back == p));
    }
    BOOST_TEST((*ct::parse_protocol(" ( 1 , 10 ) ") == ct::protocol{1, 10}));
    for (const char* bad : {"(0,10)", "(2,0)", "(1,11)", "0,3", "(0,)", "(,3)", "(0,3", "(a,b)", ""})
        BOOST_TEST(!ct::parse_protocol(bad).has_value(), bad);
    // The tables: (0,0) both bsend; (1,0) the second receives first; ready sends shake hands
    // both ways; (1,6) only the second tells the first its receive is posted.
    BOOST_TEST((ct::side_of({0, 0}, true).send == ct::send_op::bsend));
    BOOST_TEST(ct::side_of({1, 0}, false).recv_first);
    BOOST_TEST(!ct::side_of({1, 0}, true).recv_first);
    BOOST_TEST((ct::side_of({1, 5}, true).send == ct::send_op::irsend));
    BOOST_TEST((ct::side_of({1, 5}, false).send == ct::send_op::rsend));
    BOOST_TEST((ct::side_of({0, 4}, true).tells && ct::side_of({0, 4}, true).waits));
    BOOST_TEST((ct::side_of({1, 6}, true).waits && !ct::side_of({1, 6}, true).tells));
    BOOST_TEST((ct::side_of({1, 6}, false).tells && !ct::side_of({1, 6}, false).waits));
    BOOST_TEST((ct::side_of({1, 10}, true).send == ct::send_op::ssend));
    BOOST_TEST(ct::name_of({0, 6}) == "native sendrecv");
    BOOST_TEST(ct::has_handshake({1, 4}));
    BOOST_TEST(!ct::has_handshake({0, 3}));
}

BOOST_AUTO_TEST_CASE(cache_modes_and_pairs_parse) {
    BOOST_TEST((ct::parse_cache("warm")->kind == ct::cache_setting::mode::warm));
    BOOST_TEST(ct::parse_cache("repeat:10")->repeat == 10u);
    BOOST_TEST(ct::to_string(*ct::parse_cache("repeat:3")) == "repeat:3");
    BOOST_TEST(ct::to_string(*ct::parse_cache("flushed")) == "flushed");
    for (const char* bad : {"repeat:0", "repeat:", "repeat:x", "cold", ""}) BOOST_TEST(!ct::parse_cache(bad).has_value(), bad);
    BOOST_TEST(ct::to_string(*ct::parse_pairs("0-2+1-3")) == "0-2+1-3");
    BOOST_TEST(ct::parse_pairs("0-1")->size() == 1u);
    for (const char* bad : {"0", "0-", "-1", "0-1+", "0-1+2", "a-b", ""}) BOOST_TEST(!ct::parse_pairs(bad).has_value(), bad);
}

// Every protocol on 2 and 4 threads: the kernel verifies every received byte (a wrong one
// raises), so a run that returns is a run whose messages all arrived whole and in place.
BOOST_AUTO_TEST_CASE(every_protocol_exchanges_and_verifies) {
    for (int ranks : {2, 4}) {
        auto cfg = quick();
        if (ranks == 4) cfg.pairs = {{{0, 2}}, {{0, 2}, {1, 3}}};
        const auto r = comet::threads::run(ranks, [&](transport& t) { return ct::commtest(t, cfg); });
        for (int k = 1; k < ranks; ++k) BOOST_TEST(r[static_cast<std::size_t>(k)].empty());
        const auto& recs = r[0].records;
        BOOST_TEST_REQUIRE(recs.size() == cfg.pairs.size() * 21u * 3u);
        std::set<std::string> seen;
        for (const auto& rec : recs) {
            BOOST_TEST(rec.kernel == "commtest");
            BOOST_TEST(rec.samples.size() == 3u);
            for (double s : rec.samples) BOOST_TEST(s > 0.0);
            const auto n = *rec.params.integer("messages");
            BOOST_TEST(*rec.params.integer("size") * n == 8192);
            BOOST_TEST(*rec.params.text("cache") == "warm");
            BOOST_TEST(*rec.params.text("prepost") == "off");
            BOOST_TEST(*rec.params.text("reduction") == "max_over_ranks");
            BOOST_TEST(*rec.params.integer("nodes") == ranks);
            // What was measured there besides the samples: whether the protocol shakes hands,
            // the order of the sweep, and (the threads clock is global) first start to last end.
            const auto proto = ct::parse_protocol(*rec.params.text("protocol"));
            BOOST_TEST_REQUIRE(proto.has_value());
            BOOST_TEST(*rec.values.text("handshake") == (ct::has_handshake(*proto) ? "yes" : "no"));
            BOOST_TEST(*rec.values.text("order") == "round_robin");
            if (comet::usable(rec)) BOOST_TEST(rec.values.number("elapsed").has_value());  // else every sample was preempted
            BOOST_TEST(!rec.params.contains("elapsed"));
            BOOST_TEST(!rec.params.contains("handshake"));
            seen.insert(*rec.params.text("protocol") + " " + *rec.params.text("pair"));
        }
        BOOST_TEST(seen.size() == 21u * cfg.pairs.size());
    }
}

// The kernel checks what arrives: a message short of its last byte fails the run, naming the
// protocol, the message and the rank it came from.
BOOST_AUTO_TEST_CASE(a_wrong_message_fails_the_run) {
    auto cfg = quick();
    cfg.protocols = {{0, 3}};
    try {
        comet::threads::run(2, [&](transport& inner) {
            short_sends t(inner);
            return ct::commtest(t, cfg);
        });
        BOOST_ERROR("a short message went unnoticed");
    } catch (const comet::error& e) {
        BOOST_TEST(comet_test::mentions(e, {"(0,3)", "message 0 of", "from rank", "arrived wrong"}), e.what());
    }
}

// Injected faults (comet::faulty): a corrupted, duplicated or lost message is an error naming
// the rank — a byte that arrived wrong, a message no receive took, a wait that timed out —
// never records; a reordering or a delay is either caught or harmless.
BOOST_AUTO_TEST_CASE(injected_faults_are_reported_or_harmless) {
    auto cfg = quick();
    cfg.protocols = {{0, 3}, {1, 3}, {0, 7}};  // isend; isend + irecv; bsend
    struct kind {
        const char* name;
        comet::fault_rates rates;
        bool harmless;
    };
    const kind kinds[] = {{"drop", {.drop = 0.02, .wait_timeout = 0.5}, false},
                          {"duplicate", {.duplicate = 0.02, .wait_timeout = 0.5}, false},
                          {"corrupt", {.corrupt = 0.02, .wait_timeout = 0.5}, false},
                          {"reorder", {.reorder = 0.05, .wait_timeout = 0.5}, true},
                          {"delay", {.delay = 0.05, .delay_seconds = 20e-6, .wait_timeout = 0.5}, true}};
    for (const kind& k : kinds) {
        std::atomic<std::size_t> injected{0};
        std::string error;
        try {
            comet::threads::run(2, [&](transport& inner) {
                comet::faulty t(inner, k.rates);
                try {
                    ct::commtest(t, cfg);
                } catch (...) {
                    injected += t.counts().injected();
                    throw;
                }
                injected += t.counts().injected();
            });
        } catch (const comet::error& e) {
            error = e.what();
        }
        BOOST_TEST_MESSAGE(k.name << ": " << (error.empty() ? "completed" : error) << " (" << injected << " faults)");
        BOOST_TEST(injected > 0u, k.name);
        if (!error.empty()) BOOST_TEST(comet_test::mentions(std::runtime_error(error), {"rank "}), error);
        if (!k.harmless) BOOST_TEST(!error.empty(), k.name << ": " << injected << " faults went unnoticed");
    }
}

BOOST_AUTO_TEST_CASE(prepost_repeat_and_flushed) {
    auto cfg = quick();
    cfg.prepost = true;
    cfg.cache = *ct::parse_cache("repeat:3");
    auto r = comet::threads::run(2, [&](transport& t) { return ct::commtest(t, cfg); });
    BOOST_TEST_REQUIRE(r[0].records.size() == 63u);
    for (const auto& rec : r[0].records) {
        BOOST_TEST(*rec.params.text("prepost") == "on");
        BOOST_TEST(*rec.params.text("cache") == "repeat:3");
    }
    cfg.prepost = false;
    cfg.cache = *ct::parse_cache("flushed");
    cfg.flush_bytes = 1 << 20;
    cfg.protocols = {{0, 3}, {1, 4}};
    r = comet::threads::run(2, [&](transport& t) { return ct::commtest(t, cfg); });
    BOOST_TEST(r[0].records.size() == 6u);
    for (const auto& rec : r[0].records) BOOST_TEST(*rec.params.text("cache") == "flushed");
}

// A transport with only the core: the protocols naming bsend, rsend, sendrecv or ssend are
// reported, one record per volume with no samples, never run as another protocol.
BOOST_AUTO_TEST_CASE(a_protocol_the_transport_lacks_is_not_supported) {
    using comet_test::minimal_transport;
    static_assert(!ct::supports<minimal_transport>({0, 0}) && !ct::supports<minimal_transport>({0, 4}) &&
                  !ct::supports<minimal_transport>({0, 6}) && !ct::supports<minimal_transport>({1, 10}));
    static_assert(ct::supports<minimal_transport>({0, 3}) && ct::supports<minimal_transport>({1, 3}));
    static_assert(ct::supports<minimal_transport>({1, 0}));
    auto cfg = quick();
    cfg.protocols = {{0, 0}, {0, 3}, {0, 4}, {0, 6}, {1, 10}};
    const auto r = comet::threads::run(2, [&](transport& inner) {
        minimal_transport t(inner);
        return ct::commtest(t, cfg);
    });
    const auto& recs = r[0].records;
    BOOST_TEST_REQUIRE(recs.size() == 3u + 4u);
    for (const auto& rec : recs) {
        const auto proto = *rec.params.text("protocol");
        if (proto == "(0,3)") {
            BOOST_TEST(rec.samples.size() == 3u);
            continue;
        }
        BOOST_TEST(rec.samples.empty());
        BOOST_TEST(!rec.params.contains("messages"));
        BOOST_TEST_REQUIRE(rec.notes.size() == 1u);
        BOOST_TEST(rec.notes[0].starts_with("not supported"));
        const char* what = proto == "(0,0)" ? "bsend" : proto == "(0,4)" ? "rsend" : proto == "(0,6)" ? "sendrecv" : "ssend";
        BOOST_TEST(rec.notes[0].find(what) != std::string::npos, rec.notes[0]);
    }
}

BOOST_AUTO_TEST_CASE(bad_configurations_name_the_value_and_the_rank) {
    const auto expect = [](ct::commtest_config cfg, int ranks, std::initializer_list<const char*> words) {
        try {
            comet::threads::run(ranks, [&](transport& t) { return ct::commtest(t, cfg); });
            BOOST_ERROR("no error for " << *words.begin());
        } catch (const comet::invalid_argument& e) {
            BOOST_TEST(comet_test::mentions(e, words), e.what());
        }
    };
    auto c = quick();
    c.volumes = {1000};
    expect(c, 2, {"rank ", "1000"});
    c = quick();
    c.messages = {3};
    expect(c, 2, {"rank ", "3 messages", "8192"});
    c = quick();
    c.pairs = {{{0, 2}}};
    expect(c, 2, {"rank ", "0-2", "rank 2"});
    c = quick();
    c.pairs = {{{0, 1}, {1, 2}}};
    expect(c, 4, {"rank ", "0-1+1-2", "two pairs"});
    c = quick();
    c.protocols = {{0, 10}};
    expect(c, 2, {"rank ", "(0,10)"});
    expect(quick(), 1, {"rank 0", "2 ranks"});
}

BOOST_AUTO_TEST_SUITE_END()
