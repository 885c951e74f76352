// Tests of comet/transport/loggops/machine.hpp: the machine file written and read back exactly,
// bands included, its units and errors, and every bad value refused naming the line and the
// value; a band's costs on from its size, what it does not give on the line before it.
#include <comet/transport/loggops/machine.hpp>

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>

namespace loggops_machine_test {

/// Checks that the machine file `text` is refused with a message containing `words`.
inline void says(const std::string& text, const std::string& words) {
    std::istringstream in(text);
    try {
        comet::loggops::read_machine(in, "m.txt");
    } catch (const comet::invalid_argument& e) {
        const std::string w = e.what();
        BOOST_TEST(w.find(words) != std::string::npos, w);
        return;
    }
    BOOST_FAIL("not refused: " + text);
}

}  // namespace loggops_machine_test

BOOST_AUTO_TEST_SUITE(loggops_machine)

using namespace comet::loggops;

BOOST_AUTO_TEST_CASE(a_machine_file_reads_back_the_machine_it_was_written_from) {
    machine m;
    m.name = "fitted on threads";
    m.nodes = 1024;
    m.L = 345'678;
    m.o_s = 123'456;
    m.o_r = 1;
    m.O_s = 12'345;
    m.O_r = 7;
    m.g = 999'999;
    m.G = 83'333;
    m.S = 12'000;
    m.flop_time = 333;
    parameter_errors e;
    e.by_key["L"] = "0.02 us";
    std::stringstream file;
    write_machine(file, m, e, "fitted from results.json\nsizes 0..1024");
    const std::string text = file.str();
    BOOST_TEST(text.find("# fitted from results.json\n# sizes 0..1024\n") == 0u, text);
    BOOST_TEST(text.find("L = 0.345678 us ± 0.02 us") != std::string::npos, text);
    parameter_errors back;
    BOOST_TEST((read_machine(file, "test", &back) == m));
    BOOST_TEST(back.by_key["L"] == "0.02 us");

    machine torus = m;
    torus.network = parse_shape("torus 32x32");
    torus.hop = 70'000;
    std::stringstream f1;
    write_machine(f1, torus);
    BOOST_TEST(f1.str().find("topology = torus 32x32") != std::string::npos, f1.str());
    BOOST_TEST(f1.str().find("hop = 0.07 us") != std::string::npos, f1.str());
    BOOST_TEST((read_machine(f1) == torus));

    machine none;
    none.S = no_rendezvous;
    std::stringstream f2;
    write_machine(f2, none);
    BOOST_TEST(f2.str().find("S = none") != std::string::npos);
    BOOST_TEST((read_machine(f2) == none));
}

BOOST_AUTO_TEST_CASE(units_and_shorthands) {
    std::istringstream in("L = 1.5 ms\no = 250 ns  # both ends\nO = 0.5 ps/B\nG = 2 ns/B\nS = 64 KiB\nnodes = 8\n");
    const machine m = read_machine(in);
    BOOST_TEST(m.L == 1'500'000'000);
    BOOST_TEST(m.o_s == 250'000);
    BOOST_TEST(m.o_r == 250'000);
    BOOST_TEST(m.O_s == 500);
    BOOST_TEST(m.O_r == 500);
    BOOST_TEST(m.G == 2'000'000);
    BOOST_TEST(m.S == 65'536u);
    BOOST_TEST(m.nodes == 8);
    BOOST_TEST(bytes_time(m.G, 3) == 6'000);
    BOOST_TEST(bytes_time(1, 1) == 1);  // a femtosecond rounds up to a picosecond
}

BOOST_AUTO_TEST_CASE(bad_files_are_refused_naming_the_line_and_the_value) {
    using loggops_machine_test::says;
    says("L = 1 us\nfoo = 3\n", "m.txt, line 2: unknown key 'foo'");
    says("L = 1 parsecs\n", "line 1: L = 1 parsecs: the unit must be one of");
    says("L = -1 us\n", "L = -1: not a number of zero or more");
    says("L = fast us\n", "L = fast: not a number");
    says("L = 1 us\nL = 2 us\n", "line 2: L is given twice (first on line 1)");
    says("L 1 us\n", "line 1: 'L 1 us' is not 'key = value'");
    says("nodes = 0\n", "nodes = 0 is not a whole number");
    says("topology = torus\n", "line 1: loggops topology 'torus': the number of dimensions '' is not a whole number");
    says("topology = torus 4x4\nnodes = 8\n", "m.txt: loggops topology 'torus 4x4' has 16 nodes, not the machine's 8");
    says("hop = 1 furlong\n", "line 1: hop = 1 furlong: the unit must be one of");
    says("g = 2 s\n", "g (ps) = 2000000000000 is outside");
    BOOST_CHECK_THROW(read_machine_file("/nonexistent/machine.txt"), comet::invalid_argument);
}

BOOST_AUTO_TEST_CASE(bands_start_new_lines_and_read_back) {
    machine m;  // o_s 0.3 us, O_s 0, g 0.5 us, G 0.1 ns/B
    m.bands.push_back({1024, 1 * microseconds, 2 * microseconds, 0, 10 * picoseconds_per_byte, 0, 50 * picoseconds_per_byte});
    m.bands.push_back({65536, 3 * microseconds, 4 * microseconds, 250 * nanoseconds, 0, 1 * nanoseconds_per_byte,
                       20 * picoseconds_per_byte});
    validate(m);
    const cost_table c(m);
    // Below the first band: the machine's own line.
    BOOST_TEST(c.send(1023) == m.o_s);
    BOOST_TEST(c.stream(1000) == 100'000);
    BOOST_TEST(c.wire(1000).gap == m.g + 100'000);
    // In the first band: its o's at 1024 B, its O's per byte beyond; the stream runs on from
    // 1024 B · 0.1 ns/B at 0.05 ns/B, and its g is 0.
    BOOST_TEST(c.send(1024) == 1 * microseconds);
    BOOST_TEST(c.send(2048) == 1 * microseconds + 1024 * 10);
    BOOST_TEST(c.receive(2048) == 2 * microseconds);
    BOOST_TEST(c.stream(1024) == 102'400);
    BOOST_TEST(c.stream(2048) == 102'400 + 1024 * 50);
    BOOST_TEST(c.wire(2048).gap == c.stream(2048));
    // In the second.
    BOOST_TEST(c.send(65536 + 100) == 3 * microseconds);
    BOOST_TEST(c.receive(65536 + 100) == 4 * microseconds + 100'000);
    BOOST_TEST(c.stream(65536) == 102'400 + (65536 - 1024) * 50);
    BOOST_TEST(c.wire(65536).gap == 250 * nanoseconds + c.stream(65536));

    std::stringstream file;
    parameter_errors e;
    e.by_key["from 1024 B: o_s"] = "0.01 us";
    write_machine(file, m, e);
    const std::string text = file.str();
    BOOST_TEST(text.find("[from 1024 B]") != std::string::npos, text);
    BOOST_TEST(text.find("o_s = 1 us ± 0.01 us") != std::string::npos, text);
    parameter_errors back;
    BOOST_TEST((read_machine(file, "test", &back) == m));
    BOOST_TEST(back.by_key["from 1024 B: o_s"] == "0.01 us");
    const std::string d = describe(m);
    BOOST_TEST(d.find("; from 1024 B: o_s 1 us + 0.01 ns/B, o_r 2 us + 0 ns/B, g 0 us, G 0.05 ns/B") != std::string::npos, d);

    // A band runs on the line before it where it says nothing: here only G changes at 4 KiB.
    std::istringstream in("o_s = 1 us\nO_s = 1 ns/B\ng = 2 us\n[from 4 KiB]\nG = 1 ns/B\n");
    const machine r = read_machine(in);
    BOOST_TEST_REQUIRE(r.bands.size() == 1u);
    BOOST_TEST(r.bands[0].from == 4096u);
    BOOST_TEST(r.bands[0].o_s == 1 * microseconds + 4096 * nanoseconds);
    BOOST_TEST(r.bands[0].O_s == 1 * nanoseconds_per_byte);
    BOOST_TEST(r.bands[0].g == 2 * microseconds);
    BOOST_TEST(r.bands[0].G == 1 * nanoseconds_per_byte);
    BOOST_TEST(cost_table(r).send(5000) == 1 * microseconds + 5000 * nanoseconds);
}

BOOST_AUTO_TEST_CASE(bad_bands_are_refused_naming_the_line_and_the_value) {
    using loggops_machine_test::says;
    says("[from 4 KiB]\n[from 1 KiB]\n", "m.txt, line 2: a band from 1024 B must start above 4096 B");
    says("[from 0 B]\n", "line 1: a band from 0 B must start above 0 B");
    says("[to 4 KiB]\n", "line 1: '[to 4 KiB]' is not a band's opening '[from SIZE]'");
    says("[from 4 KiB\n", "is not a band's opening");
    says("[from 4 parsecs]\n", "line 1: from = 4 parsecs: the unit must be one of");
    says("[from 4 KiB]\nL = 1 us\n", "line 2: 'L' in the band from 4096 B: a band gives o, o_s, o_r, O, O_s, O_r, g and G only");
    says("[from 4 KiB]\ng = 1 us\ng = 2 us\n", "line 3: g is given twice (first on line 2)");
    says("[from 4 KiB]\ng = 2 s\n", "g (ps) (band from 4096 B) = 2000000000000 is outside");
    machine m;
    m.bands.push_back({100, 0, 0, 0, 0, 0, 0});
    m.bands.push_back({100, 0, 0, 0, 0, 0, 0});
    BOOST_CHECK_EXCEPTION(validate(m), comet::invalid_argument, [](const comet::invalid_argument& e) {
        return std::string(e.what()).find("a band from 100 B follows one from 100 B") != std::string::npos;
    });
}

BOOST_AUTO_TEST_CASE(describe_names_every_parameter) {
    const std::string d = describe(machine{});
    for (const char* w : {"L 1 us", "o_s 0.3 us + 0 ns/B", "g 0.5 us", "G 0.1 ns/B", "rendezvous above 65536 B", "2 nodes"})
        BOOST_TEST(d.find(w) != std::string::npos, d);
    machine tree;
    tree.network = parse_shape("fat_tree 8");
    tree.nodes = 100;
    const std::string t = describe(tree);
    BOOST_TEST(t.find("100 nodes on a 8-ary 3-tree fat tree (512 ports at the leaves) (hop 0.1 us), L 1 us") != std::string::npos, t);
}

BOOST_AUTO_TEST_SUITE_END()
