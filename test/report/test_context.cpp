// Tests of comet/report/context.hpp: make_context records every field on this machine (or
// "unknown" where /proc and /sys do not say, and the test tells which it could read); the notes
// are judged from readings given by hand (a loaded machine, frequency scaling, turbo, debug and
// sanitizer builds); and results.json and the console table carry it all.
#include <comet/report/json.hpp>
#include <comet/report/table.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace context_test {

/// The first line of a file, or nothing when it cannot be read (as context.hpp reads /sys).
inline std::optional<std::string> read_line(const std::string& path) {
    std::ifstream f(path);
    std::string line;
    if (!f || !std::getline(f, line)) return std::nullopt;
    return line;
}

inline bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

/// The notes that start with `prefix`.
inline std::size_t count_starting(const std::vector<std::string>& notes, const std::string& prefix) {
    return static_cast<std::size_t>(
        std::count_if(notes.begin(), notes.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; }));
}

/// The member names, in order, of the JSON object whose '{' follows `"name": ` in `text` (the
/// first such member); empty when there is none. Strings (and their escapes) are skipped, so
/// a brace inside a host name or a note cannot confuse it.
inline std::vector<std::string> object_keys(const std::string& text, const std::string& name) {
    const std::string head = "\"" + name + "\": {";
    const auto at = text.find(head);
    if (at == std::string::npos) return {};
    std::vector<std::string> keys;
    int depth = 0;
    bool expect_key = false;
    for (std::size_t i = at + head.size() - 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            std::string s;
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] == '\\') ++i;
                s += text[i];
            }
            if (depth == 1 && expect_key) keys.push_back(s);
            expect_key = false;
        } else if (c == '{' || c == '[') {
            ++depth;
            expect_key = c == '{' && depth == 1;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) break;
        } else if (c == ',' && depth == 1) {
            expect_key = true;
        }
    }
    return keys;
}

/// Readings of a quiet, well-behaved machine: nothing to note.
inline comet::machine_readings quiet_machine() {
    comet::machine_readings m;
    m.cpu_model = "Test CPU";
    m.logical_cores = 2;
    m.usable_cores = 2;
    m.caches = {{1, "Data", 32768}, {2, "Unified", 1u << 20}};
    m.governor = "performance";
    m.turbo = "off";
    m.load_start = comet::load_average{0.1, 0.1, 0.1};
    return m;
}

inline comet::build_info release_build() { return {"release", true, {}}; }

inline std::vector<std::string> notes_of(const comet::machine_readings& m, const comet::build_info& b = release_build()) {
    return comet::context_notes(m, b);
}

}  // namespace context_test

BOOST_AUTO_TEST_SUITE(context)

using context_test::has;

BOOST_AUTO_TEST_CASE(make_context_records_every_field_on_this_machine) {
    const comet::context c = comet::make_context("threads", 2);
    const comet::machine_readings& m = c.machine;

    // The CPU model: /proc/cpuinfo's "model name", or "unknown" where it names none.
    BOOST_TEST(!m.cpu_model.empty());
    BOOST_TEST_MESSAGE("cpu_model: " << m.cpu_model);

    BOOST_TEST(m.logical_cores == static_cast<int>(std::thread::hardware_concurrency()));
    BOOST_TEST(m.logical_cores > 0);
    BOOST_TEST(m.usable_cores > 0);
    BOOST_TEST(m.usable_cores <= m.logical_cores);

    // Caches: as many as /sys lists for cpu0, each with its level, type and size.
    const bool caches_readable = context_test::read_line("/sys/devices/system/cpu/cpu0/cache/index0/level").has_value();
    BOOST_TEST(m.caches.empty() == !caches_readable);
    for (const auto& cache : m.caches) {
        BOOST_TEST(cache.level >= 1);
        BOOST_TEST(!cache.type.empty());
        BOOST_TEST(cache.size > 0u);
    }

    // Governor and turbo: the file's word where /sys has it, "unknown" where it has not (a
    // virtual machine usually shows no cpufreq at all).
    const auto governor = context_test::read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    BOOST_TEST(m.governor == (governor ? *governor : std::string("unknown")));
    const bool turbo_readable = context_test::read_line("/sys/devices/system/cpu/intel_pstate/no_turbo") ||
                                context_test::read_line("/sys/devices/system/cpu/cpufreq/boost");
    if (turbo_readable)
        BOOST_TEST((m.turbo == "on" || m.turbo == "off"));
    else
        BOOST_TEST(m.turbo == "unknown");
    BOOST_TEST_MESSAGE("readable here: caches " << caches_readable << ", governor " << governor.has_value() << ", turbo "
                                                << turbo_readable);

    // The load now, as the start's; the end's only once the program says the run is over.
    BOOST_TEST_REQUIRE(m.load_start.has_value());
    BOOST_TEST(m.load_start->one >= 0.0);
    BOOST_TEST(!m.load_end.has_value());

#ifdef NDEBUG
    BOOST_TEST(c.build.type == "release");
#else
    BOOST_TEST(c.build.type == "debug");
#endif
#if defined(__GNUC__)
    BOOST_TEST(c.build.optimized.has_value());
#endif
    // Filled by the program, not here.
    BOOST_TEST(c.mpi_library.empty());
    BOOST_TEST(c.transport_capabilities.empty());
}

BOOST_AUTO_TEST_CASE(record_load_at_end_adds_the_end_and_the_runs_own_ranks) {
    comet::context c = comet::make_context("threads", 4);
    comet::record_load_at_end(c, 4);
    BOOST_TEST(c.machine.load_end.has_value());
    BOOST_TEST(c.machine.local_ranks == 4);
}

BOOST_AUTO_TEST_CASE(a_quiet_release_machine_has_no_notes) {
    BOOST_TEST(context_test::notes_of(context_test::quiet_machine()).empty());
    // Nothing recorded (a hand-made or a simulation's context): nothing to say either.
    BOOST_TEST(comet::context_notes(comet::machine_readings{}, comet::build_info{}).empty());
}

BOOST_AUTO_TEST_CASE(a_loaded_machine_is_noted) {
    auto m = context_test::quiet_machine();
    m.load_start = comet::load_average{5.0, 3.0, 1.0};
    const auto notes = context_test::notes_of(m);
    BOOST_TEST_REQUIRE(notes.size() == 1u);
    BOOST_TEST(notes[0] == "load average 5.00 on 2 cores at the start: results may be slowed by other work");

    m.load_start = comet::load_average{0.1, 0.1, 0.1};
    BOOST_TEST(context_test::notes_of(m).empty());
}

BOOST_AUTO_TEST_CASE(the_load_threshold_is_three_quarters_of_the_machines_cores) {
    auto m = context_test::quiet_machine();
    m.load_start = comet::load_average{1.5, 0, 0};  // 0.75 × 2: not above
    BOOST_TEST(context_test::notes_of(m).empty());
    m.load_start = comet::load_average{1.51, 0, 0};
    BOOST_TEST(context_test::count_starting(context_test::notes_of(m), "load average 1.51 on 2 cores") == 1u);
    // The load average is the machine's: held against its cores, not the one an MPI process is
    // bound to.
    m.logical_cores = 8;
    m.usable_cores = 1;
    m.load_start = comet::load_average{3.0, 0, 0};
    BOOST_TEST(context_test::notes_of(m).empty());
    m.load_start = comet::load_average{6.5, 0, 0};
    BOOST_TEST(context_test::count_starting(context_test::notes_of(m), "load average 6.50 on 8 cores") == 1u);
}

BOOST_AUTO_TEST_CASE(the_end_load_leaves_the_runs_own_ranks_out) {
    auto m = context_test::quiet_machine();
    m.local_ranks = 2;
    m.load_end = comet::load_average{3.0, 1.0, 0.5};  // 3 − 2 own = 1 ≤ 1.5
    BOOST_TEST(context_test::notes_of(m).empty());
    m.load_end = comet::load_average{4.0, 1.0, 0.5};  // 4 − 2 = 2 > 1.5
    auto notes = context_test::notes_of(m);
    BOOST_TEST_REQUIRE(notes.size() == 1u);
    BOOST_TEST(notes[0] ==
               "load average 4.00 on 2 cores at the end (at most 2 of it this run's own ranks): results may be slowed by "
               "other work");
    // Loaded at both ends: one note that gives both readings.
    m.load_start = comet::load_average{3.0, 2.0, 1.0};
    notes = context_test::notes_of(m);
    BOOST_TEST_REQUIRE(notes.size() == 1u);
    BOOST_TEST(notes[0] ==
               "load average 3.00 on 2 cores at the start and 4.00 at the end (at most 2 of it this run's own ranks): "
               "results may be slowed by other work");
}

BOOST_AUTO_TEST_CASE(more_ranks_than_cores_are_noted) {
    auto m = context_test::quiet_machine();
    m.local_ranks = 2;  // as many as the 2 cores: no note
    BOOST_TEST(context_test::notes_of(m).empty());
    m.local_ranks = 9;
    const auto notes = context_test::notes_of(m);
    BOOST_TEST_REQUIRE(notes.size() == 1u);
    BOOST_TEST(notes[0] == "9 ranks of this run on 2 cores: oversubscribed, a waiting rank may cost a context switch (microseconds)");
}

BOOST_AUTO_TEST_CASE(frequency_scaling_and_turbo_are_noted_where_read) {
    auto m = context_test::quiet_machine();
    m.governor = "powersave";
    BOOST_TEST(context_test::count_starting(context_test::notes_of(m), "frequency scaling governor 'powersave'") == 1u);
    m.governor = "ondemand";
    BOOST_TEST(context_test::count_starting(context_test::notes_of(m), "frequency scaling governor 'ondemand'") == 1u);
    m.governor = "unknown";  // not readable: nothing claimed
    BOOST_TEST(context_test::notes_of(m).empty());
    m.turbo = "on";
    BOOST_TEST(context_test::count_starting(context_test::notes_of(m), "turbo on") == 1u);
    m.turbo = "unknown";
    BOOST_TEST(context_test::notes_of(m).empty());
}

BOOST_AUTO_TEST_CASE(debug_and_sanitizer_builds_are_noted) {
    const auto m = context_test::quiet_machine();
    BOOST_TEST(context_test::notes_of(m, {"release", true, {"address"}}) ==
                   std::vector<std::string>{"sanitizer build (address): times are not the machine's"},
               boost::test_tools::per_element());
    BOOST_TEST(context_test::notes_of(m, {"debug", false, {}}) ==
                   std::vector<std::string>{"debug build (assertions on, not optimised): times are not the machine's"},
               boost::test_tools::per_element());
    BOOST_TEST(context_test::count_starting(context_test::notes_of(m, {"debug", true, {}}), "debug build (assertions on)") == 1u);
    BOOST_TEST(context_test::count_starting(context_test::notes_of(m, {"release", false, {}}), "unoptimised build") == 1u);
    BOOST_TEST(context_test::notes_of(m, {"release", std::nullopt, {}}).empty());  // not known: not claimed
}

BOOST_AUTO_TEST_CASE(this_build_is_what_the_compiler_says) {
    const auto b = comet::this_build();
#ifdef NDEBUG
    BOOST_TEST(b.type == "release");
#else
    BOOST_TEST(b.type == "debug");
#endif
#if defined(__SANITIZE_ADDRESS__)
    BOOST_TEST(has(b.sanitizers, "address"));
#endif
#if defined(__SANITIZE_THREAD__)
    BOOST_TEST(has(b.sanitizers, "thread"));
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(__clang__)
    BOOST_TEST(b.sanitizers.empty());
#endif
}

BOOST_AUTO_TEST_CASE(results_json_carries_the_context_fields) {
    comet::report r;
    r.ctx = comet::make_context("threads", 2);
    r.ctx.transport_capabilities = {"bsend", "native barrier"};
    r.ctx.mpi_library = "Test MPI 1.0";
    r.ctx.machine.load_start = comet::load_average{5.0, 4.0, 3.0};  // a loaded machine, whatever this one is
    r.ctx.machine.logical_cores = 2;
    comet::record_load_at_end(r.ctx, 2);
    std::ostringstream os;
    comet::write_json(os, r);
    const std::string text = os.str();

    BOOST_TEST(context_test::object_keys(text, "context") ==
                   std::vector<std::string>({"comet_version", "host", "date", "compiler", "command_line", "build", "machine",
                                             "mpi_library", "transport_capabilities", "notes", "extra"}),
               boost::test_tools::per_element());
    BOOST_TEST(context_test::object_keys(text, "build") == std::vector<std::string>({"type", "optimized", "sanitizers"}),
               boost::test_tools::per_element());
    BOOST_TEST(context_test::object_keys(text, "machine") ==
                   std::vector<std::string>({"cpu_model", "logical_cores", "usable_cores", "caches", "governor", "turbo",
                                             "load_start", "load_end", "local_ranks"}),
               boost::test_tools::per_element());
    BOOST_TEST(text.find("\"load_start\": [5, 4, 3]") != std::string::npos);
    BOOST_TEST(text.find("\"load_end\": [") != std::string::npos);
    BOOST_TEST(text.find("\"local_ranks\": 2") != std::string::npos);
    BOOST_TEST(text.find("\"mpi_library\": \"Test MPI 1.0\"") != std::string::npos);
    BOOST_TEST(text.find("\"transport_capabilities\": [\"bsend\", \"native barrier\"]") != std::string::npos);
    BOOST_TEST(text.find("\"cpu_model\": \"" + r.ctx.machine.cpu_model + "\"") != std::string::npos);
    // The end's reading is this machine's, loaded or not: only the start's is known here.
    BOOST_TEST(text.find("\"load average 5.00 on 2 cores at the start") != std::string::npos);
    if (!r.ctx.machine.caches.empty()) BOOST_TEST(text.find("\"caches\": [{\"level\": ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(results_json_of_an_unrecorded_machine_has_nulls_not_zeros) {
    comet::report r;
    r.ctx.transport = "ipsc860";
    std::ostringstream os;
    comet::write_json(os, r);
    const std::string text = os.str();
    for (const char* expected : {"\"logical_cores\": null", "\"usable_cores\": null", "\"load_start\": null",
                                 "\"load_end\": null", "\"mpi_library\": null", "\"optimized\": null", "\"notes\": []"})
        BOOST_TEST(text.find(expected) != std::string::npos, expected);
}

BOOST_AUTO_TEST_CASE(the_table_shows_the_context_and_its_notes) {
    comet::report r;
    r.ctx = comet::make_context("threads", 2);
    r.ctx.machine = context_test::quiet_machine();
    r.ctx.machine.load_start = comet::load_average{5.0, 4.0, 3.0};
    r.ctx.machine.load_end = comet::load_average{5.5, 4.5, 3.5};
    r.ctx.machine.local_ranks = 2;
    r.ctx.build = context_test::release_build();
    r.ctx.mpi_library = "Test MPI 1.0";
    r.ctx.transport_capabilities = {"bsend", "native barrier"};
    r.ctx.extra = {{"machine", "test"}};
    std::ostringstream os;
    comet::write_table(os, r);
    std::vector<std::string> lines;
    std::istringstream is(os.str());
    for (std::string l; std::getline(is, l) && !l.empty();) lines.push_back(l);
    BOOST_TEST_REQUIRE(lines.size() == 11u);
    BOOST_TEST(lines[2] == "build release  optimised yes  sanitizers none");
    BOOST_TEST(lines[3] == "cpu Test CPU  cores 2");
    BOOST_TEST(lines[4] == "caches L1d 32 KiB, L2 1 MiB");
    BOOST_TEST(lines[5] == "frequency governor performance  turbo off");
    BOOST_TEST(lines[6] == "load average (1, 5, 15 min) 5.00 4.00 3.00 at the start, 5.50 4.50 3.50 at the end (2 ranks of this run here)");
    BOOST_TEST(lines[7] == "mpi Test MPI 1.0");
    BOOST_TEST(lines[8] == "transport offers bsend, native barrier");
    BOOST_TEST(lines[9] == "machine test");
    BOOST_TEST(lines[10] ==
               "note: load average 5.00 on 2 cores at the start and 5.50 at the end (at most 2 of it this run's own ranks): "
               "results may be slowed by other work");
}

BOOST_AUTO_TEST_SUITE_END()
