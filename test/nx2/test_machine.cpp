// Tests of comet/transport/nx2/machine.hpp: presets, validation (one error per bad parameter,
// naming it), descriptions and the CPU model.
#include <comet/transport/nx2/machine.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

BOOST_AUTO_TEST_SUITE(nx2_machine)

using namespace comet::nx2;
using comet_test::mentions;

BOOST_AUTO_TEST_CASE(ipsc860_preset) {
    const machine m = ipsc860();
    BOOST_TEST(m.nodes() == 16);
    BOOST_TEST(ipsc860(7).nodes() == 128);
    BOOST_TEST(ipsc860(0).nodes() == 1);
    BOOST_TEST(ipsc860(12).nodes() == 4096);  // a what-if cube
    BOOST_TEST(m.link_bytes_per_second == 2'800'000);
    BOOST_TEST(m.eager_limit == 100u);
    BOOST_CHECK_NO_THROW(validate(m));
    BOOST_CHECK_EXCEPTION(ipsc860(21), comet::invalid_argument, [](const auto& e) { return mentions(e, {"dimension 21"}); });
    BOOST_CHECK_EXCEPTION(ipsc860(-1), comet::invalid_argument, [](const auto& e) { return mentions(e, {"dimension -1"}); });
}

BOOST_AUTO_TEST_CASE(ipsc1_preset) {
    // The NIST study's machine (seed 003): each value from its public source (machine.hpp,
    // docs/nx2-model.md section 9).
    const machine m = ipsc1();
    BOOST_TEST(m.name == "ipsc1");
    BOOST_TEST(m.nodes() == 16);
    BOOST_TEST(ipsc1(7).nodes() == 128);
    BOOST_TEST((m.network == topology::hypercube));
    BOOST_TEST(m.link_bytes_per_second == 1'250'000);  // 10 Mbit/s Ethernet
    BOOST_TEST(m.half_duplex);
    BOOST_TEST(m.dma_bytes_per_second == 560'000);     // a tenth of the iPSC/2's 5.6 MB/s full duplex
    BOOST_TEST(m.hop_latency == 16 * microseconds);
    BOOST_TEST(m.header_bytes == 18);
    BOOST_TEST(m.eager_limit == 1024u);
    BOOST_TEST(m.credit_batch == 1);
    // A zero-byte message to a neighbour: C + I + R + H*w + h = 1050 us, three times the
    // iPSC/2's 350 us (the header's time is rounded up to the picosecond: 1 ps over).
    const vtime header = transfer_time(18, m.dma_bytes_per_second);
    BOOST_TEST(m.call + m.interrupt + m.resume + header + m.hop_latency == 1050 * microseconds + 1);
    BOOST_TEST(m.copy_per_byte == 250 * nanoseconds);
    BOOST_TEST(m.dependent_flop_time == 3875 * nanoseconds);
    BOOST_TEST(m.flop_time == 64 * microseconds);
    BOOST_TEST(m.memory_per_byte == 125 * nanoseconds);
    BOOST_TEST(m.cache_line_bytes == 2);
    BOOST_TEST(m.retry_timeout == 1'860'714'286);  // a 1 KB packet and its header at 0.56 MB/s
    BOOST_TEST(m.retry_backoff == 105 * milliseconds);
    BOOST_CHECK_NO_THROW(validate(m));
    BOOST_TEST(!ipsc860().half_duplex);
    BOOST_CHECK_EXCEPTION(ipsc1(21), comet::invalid_argument, [](const auto& e) { return mentions(e, {"nx2::ipsc1: dimension 21"}); });
    BOOST_CHECK_EXCEPTION(ipsc1(-1), comet::invalid_argument, [](const auto& e) { return mentions(e, {"dimension -1"}); });
}

BOOST_AUTO_TEST_CASE(mesh_preset) {
    const machine m = mesh(8, 4);
    BOOST_TEST(m.nodes() == 32);
    BOOST_TEST((m.network == topology::mesh));
    BOOST_CHECK_NO_THROW(validate(m));
    BOOST_CHECK_EXCEPTION(mesh(0, 3), comet::invalid_argument, [](const auto& e) { return mentions(e, {"0 x 3"}); });
    BOOST_CHECK_EXCEPTION(mesh(2048, 1024), comet::invalid_argument, [](const auto& e) { return mentions(e, {"2048 x 1024"}); });
}

BOOST_AUTO_TEST_CASE(validation_names_the_parameter) {
    const auto rejects = [](machine m, const char* needle) {
        try {
            validate(m);
        } catch (const comet::invalid_argument& e) {
            return mentions(e, {needle});
        }
        return false;
    };
    machine m = ipsc860();
    m.link_bytes_per_second = 0;
    BOOST_TEST(rejects(m, "link_bytes_per_second = 0"));
    m = ipsc860();
    m.dma_bytes_per_second = -5;
    BOOST_TEST(rejects(m, "dma_bytes_per_second = -5"));
    m = ipsc860();
    m.call = -1;
    BOOST_TEST(rejects(m, "call (ps) = -1"));
    m = ipsc860();
    m.eager_buffers = 0;
    BOOST_TEST(rejects(m, "eager_buffers = 0"));
    m = ipsc860();
    m.credit_batch = 5;
    BOOST_TEST(rejects(m, "credit_batch = 5 is outside 1..4"));
    m = ipsc860();
    m.dimension = 25;
    BOOST_TEST(rejects(m, "dimension = 25"));
    m = ipsc860();
    m.retry_timeout = 10 * microseconds;
    m.retry_backoff = 0;
    BOOST_TEST(rejects(m, "retry_backoff (ps) = 0"));
    m = mesh(2, 2);
    m.rows = 0;
    BOOST_TEST(rejects(m, "rows = 0"));
    m = ipsc860();
    m.cache_line_bytes = 0;
    BOOST_TEST(rejects(m, "cache_line_bytes = 0"));
    m = ipsc860();
    m.network = static_cast<topology>(7);
    BOOST_TEST(rejects(m, "unknown topology 7"));
    // Half-duplex channels on a mesh: XY circuits going opposite ways could wait for each other
    // for ever, unless retransmission lets one give up.
    m = mesh(2, 2);
    m.half_duplex = true;
    BOOST_TEST(rejects(m, "half_duplex on a mesh needs retransmission"));
    m.retry_timeout = 10 * microseconds;
    BOOST_CHECK_NO_THROW(validate(m));
    m = ipsc860();
    m.half_duplex = true;  // a hypercube's e-cube circuits never wait in a cycle
    BOOST_CHECK_NO_THROW(validate(m));
}

BOOST_AUTO_TEST_CASE(every_field_a_user_sets_is_checked) {
    // One out-of-range value for each field the comet program's --set reaches; each must be
    // refused in one line naming the field and the value.
    struct bad {
        void (*set)(machine&);
        const char* says;
    };
    const bad cases[] = {
        {[](machine& m) { m.dimension = -1; }, "dimension = -1"},
        {[](machine& m) { m.dimension = 1 << 30; }, "dimension = 1073741824"},
        {[](machine& m) { m.link_bytes_per_second = -1; }, "link_bytes_per_second = -1"},
        {[](machine& m) { m.dma_bytes_per_second = 0; }, "dma_bytes_per_second = 0"},
        {[](machine& m) { m.hop_latency = -1; }, "hop_latency (ps) = -1"},
        {[](machine& m) { m.header_bytes = std::int64_t{1} << 40; }, "header_bytes = 1099511627776"},
        {[](machine& m) { m.eager_limit = std::size_t{1} << 40; }, "eager_limit = 1099511627776"},
        {[](machine& m) { m.eager_buffers = 1 << 20; }, "eager_buffers = 1048576"},
        {[](machine& m) { m.credit_batch = 0; }, "credit_batch = 0"},
        {[](machine& m) { m.call = 2 * seconds; }, "call (ps) = 2000000000000"},
        {[](machine& m) { m.interrupt = -1; }, "interrupt (ps) = -1"},
        {[](machine& m) { m.resume = -1; }, "resume (ps) = -1"},
        {[](machine& m) { m.copy_per_byte = -1; }, "copy_per_byte (ps) = -1"},
        {[](machine& m) { m.flop_time = -1; }, "flop_time (ps) = -1"},
        {[](machine& m) { m.memory_per_byte = -1; }, "memory_per_byte (ps) = -1"},
        {[](machine& m) { m.dependent_flop_time = -1; }, "dependent_flop_time (ps) = -1"},
        {[](machine& m) { m.cache_line_bytes = 1 << 20; }, "cache_line_bytes = 1048576"},
        {[](machine& m) { m.retry_timeout = -1; }, "retry_timeout (ps) = -1"},
        {[](machine& m) { m.retry_backoff = -1; }, "retry_backoff (ps) = -1"},
        {[](machine& m) { m = mesh(2, 2);
             m.columns = -3; }, "columns = -3"},
        {[](machine& m) { m = mesh(2, 2);
             m.columns = 1 << 20;
             m.rows = 2; }, "1048576 x 2 mesh has more than 1048576 nodes"},
    };
    for (const bad& c : cases) {
        machine m = ipsc860();
        c.set(m);
        BOOST_TEST_CONTEXT(c.says) {
            BOOST_CHECK_EXCEPTION(validate(m), comet::invalid_argument, [&](const auto& e) {
                const std::string what = e.what();
                return mentions(e, {c.says}) && what.find('\n') == std::string::npos;
            });
        }
    }
}

BOOST_AUTO_TEST_CASE(description_is_exact_and_complete) {
    const std::string d = describe(ipsc860());
    BOOST_TEST(d.find("ipsc860: hypercube d=4 (16 nodes, e-cube routing)") == 0u);
    for (const char* part : {"link 2.8 MB/s", "dma 2.439024 MB/s", "hop 8.333333 us", "header 16 B", "eager <= 100 B into 4 buffers",
                             "call 25 us", "interrupt 23.606666 us", "resume 15.5 us", "copy 0.11 us/B", "flop 50 ns",
                             "memory 8.75 ns/B", "dependent flop 150 ns", "cache line 32 B", "retransmission off"})
        BOOST_TEST(d.find(part) != std::string::npos, part);
    BOOST_TEST(d.find("link 2.8 MB/s full duplex, dma") != std::string::npos);
    BOOST_TEST(describe(mesh(4, 2)).find("mesh 4x2 (8 nodes, XY routing)") != std::string::npos);
    const std::string one = describe(ipsc1());
    BOOST_TEST(one.find("ipsc1: hypercube d=4 (16 nodes, e-cube routing)") == 0u);
    for (const char* part : {"link 1.25 MB/s half duplex", "dma 0.56 MB/s", "hop 16 us", "header 18 B", "eager <= 1024 B into 4 buffers",
                             "batches of 1", "call 390.699285 us", "interrupt 368.924301 us", "resume 242.233557 us", "copy 0.25 us/B",
                             "flop 64000 ns", "memory 125 ns/B", "dependent flop 3875 ns", "cache line 2 B",
                             "retransmission after 1860.714286 us waiting, backoff 105000 us"})
        BOOST_TEST(one.find(part) != std::string::npos, part);
}

BOOST_AUTO_TEST_CASE(cpu_model) {
    const machine m = ipsc860();
    // DAXPY is memory-bound on the i860: 24 bytes x 8.75 ns = 210 ns per element (9.5 MFLOPS).
    BOOST_TEST(compute_time(m, comet::work::daxpy(1000)) == 210 * microseconds);
    BOOST_TEST(compute_time(m, comet::work::daxpy(0)) == 0);
    // With memory twice as fast, the flops (2 x 50 ns) set the pace.
    machine fast = m;
    fast.memory_per_byte = 1'000;
    BOOST_TEST(compute_time(fast, comet::work::daxpy(1000)) == 100 * microseconds);
    BOOST_TEST(compute_time(m, comet::work::flops(10)) == 1500 * nanoseconds);
    BOOST_TEST(compute_time(m, comet::work::busy(0.005)) == 5 * milliseconds);
    BOOST_TEST(vector_add_time(m, 4) == 840 * nanoseconds);
    // Copies the caller makes itself: 8-byte elements, each read and written once. Contiguous:
    // 16 bytes of traffic each (140 ns). A column of a 64-wide row-major block (stride 528 B):
    // each element read costs a 32-byte line, 40 bytes in all (350 ns). A stride below the line
    // costs the stride (16 B: 24 bytes, 210 ns).
    BOOST_TEST(compute_time(m, comet::work::copy(1000, 8, 8)) == 140 * microseconds);
    BOOST_TEST(compute_time(m, comet::work::copy(1000, 8, 528)) == 350 * microseconds);
    BOOST_TEST(compute_time(m, comet::work::copy(1000, 8, 16)) == 210 * microseconds);
    BOOST_TEST(compute_time(m, comet::work::copy(0, 8, 528)) == 0);
    machine wide = m;
    wide.cache_line_bytes = 128;
    BOOST_TEST(compute_time(wide, comet::work::copy(1000, 8, 528)) == 1190 * microseconds);
}

BOOST_AUTO_TEST_SUITE_END()
