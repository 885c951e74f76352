// Tests of comet/transport/loggops/machine.hpp: the machine file written and read back exactly,
// its units and errors, and every bad value refused naming the line and the value.
#include <comet/transport/loggops/machine.hpp>

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>

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
    const auto says = [](const std::string& text, const std::string& words) {
        std::istringstream in(text);
        try {
            read_machine(in, "m.txt");
        } catch (const comet::invalid_argument& e) {
            const std::string w = e.what();
            BOOST_TEST(w.find(words) != std::string::npos, w);
            return;
        }
        BOOST_FAIL("not refused: " + text);
    };
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
