#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test — the MPI jobs, the
# examples, the comet program, the consumers and the conformance suite's self-test in an
# optimised build; the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, those of the
# areas with ranks as threads also under ThreadSanitizer — and fuzzes the comet program's command
# line with libFuzzer for a bounded time (COMET_FUZZ_SECONDS, default 30). Build trees go to
# build/ (set COMET_BUILD_DIR to put them elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

root=${COMET_BUILD_DIR:-build}
jobs=$(nproc)

step() { printf '\n== %s (%s)\n' "$*" "$(date +%T)"; }

step "optimised build: every test but the unit tests"
# The options are said explicitly: the main job (scripts/main.sh) configures the same tree
# without tests, and a cached OFF must not leave this command with nothing to run. Each unit
# test is built once per build that runs it, and they all run in the sanitizer builds below, so
# the only area built here is the conformance suite's self-test (testing), which cannot run
# under AddressSanitizer (below). Building every area three times had made this command take
# over 80 minutes on two cores.
# The compiled part (docs/compiled.md) is built here too: its libraries, the comet program
# linking them, and the consumer that installs and links comet::compiled (consumer_compiled).
# The benchmarks, which no test runs, are checked for syntax and types only (bench_compiles_*).
cmake -S . -B "$root/release" -DCMAKE_BUILD_TYPE=Release -DCOMET_BUILD_TESTS=ON -DCOMET_BUILD_BENCH=OFF -DCOMET_BUILD_EXAMPLES=ON \
  -DCOMET_BUILD_COMPILED=ON -DCOMET_TEST_AREAS=testing
cmake --build "$root/release" -j "$jobs"
# The conformance suite's self-test (testing, about 4 minutes) waits out a 2 s deadline for most
# of its 64 mutants: run beside the others, it leaves them both cores (in a slot of ctest -j2 it
# held one for its minutes: the step's tests took 565 s one way, 487 the other).
ctest --no-tests=error --test-dir "$root/release" --output-on-failure -R '^testing$' > "$root/release/testing.log" 2>&1 &
self_test=$!
ctest --no-tests=error --test-dir "$root/release" --output-on-failure -j "$jobs" -E '^testing$'
if ! wait "$self_test"; then
  cat "$root/release/testing.log"
  exit 1
fi
tail -n 3 "$root/release/testing.log"

# The sanitizer builds run the unit tests (label unit), compiled with line tables only (-g1):
# reports keep their file and line, for no compile time one can measure (the kernels' unit
# under AddressSanitizer: 212.7 CPU s with them, 213.7 without). AddressSanitizer +
# UndefinedBehaviorSanitizer at -Og, where the compiler spends far less time on their checks
# than at -O1 (one unit, stats, in 55% of the time); ThreadSanitizer at -O1 (at -Og its
# runtime's shadow stack breaks on the simulator's fiber switches: a SEGV in its stack depot in
# the nbc tests). They leave out what they never run: the examples and the comet program (their
# tests ran in the optimised build above; its command line runs under AddressSanitizer and
# UndefinedBehaviorSanitizer in the fuzzing step below), the benchmarks and the MPI jobs.
sanitized=(-DCMAKE_BUILD_TYPE=None -DCOMET_BUILD_TESTS=ON -DCOMET_BUILD_BENCH=OFF -DCOMET_BUILD_EXAMPLES=OFF
  -DCOMET_TEST_MPI=OFF -DCOMET_PROGRAM_MPI=OFF)

step "AddressSanitizer + UndefinedBehaviorSanitizer: the unit tests"
# Every area but the conformance suite's self-test (testing): its mutants are broken on purpose,
# and some of their defects are memory errors by design (a bsend that keeps the caller's buffer
# reads it after the caller let it go), which AddressSanitizer rightly stops. It runs in the
# optimised build.
# The areas whose tests run in seconds whatever the optimisation are compiled at -O0: the compiler
# spends a third less time on them than at -Og (stats: 69 against 107 s), their tests a second or
# two more (stats: 2.5 against 0.7 s). Not the others: at -O0 the timing area's tests took 42 s
# instead of 7, the LogGOPS machine's 114 instead of 35.
cmake -S . -B "$root/asan" "${sanitized[@]}" \
  -DCOMET_TEST_AREAS="core;stats;timing;topology;algorithms;ops;nbc;transport;kernels;analysis;report;suite;nx2;loggops" \
  -DCOMET_TEST_UNOPTIMISED_AREAS="core;stats;topology;algorithms;analysis;report" \
  -DCMAKE_CXX_FLAGS="-Og -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake --build "$root/asan" -j "$jobs"
ctest --no-tests=error --test-dir "$root/asan" --output-on-failure -j "$jobs" -L unit

step "ThreadSanitizer: the unit tests of the areas that run ranks as threads"
# core, stats, topology, analysis and report run on one thread, and so do the tests of the
# machines on the simulator's engine (nx2, loggops): their nodes are fibers of one thread,
# nothing there can race. The engine's fiber switches, annotated for ThreadSanitizer, still run
# under it in the nbc and suite tests on the simulator. The kernels run on threads there too,
# every one of them in the suite's tests: their own area (kernels) is left to the
# AddressSanitizer build. So is the conformance suite on the decorators (tracing, noisy, faulty,
# skewed_clock, the delaying adaptor): a decorator starts no thread of its own, the suite runs here
# on the threads transport they wrap, and their own tests run here too; under ThreadSanitizer
# their five instances took 240 of the 695 CPU seconds of this step's tests.
cmake -S . -B "$root/tsan" "${sanitized[@]}" -DCOMET_TEST_DECORATOR_CONFORMANCE=OFF \
  -DCOMET_TEST_AREAS="timing;algorithms;ops;nbc;transport;suite" -DCMAKE_CXX_FLAGS="-O1 -g1 -fsanitize=thread"
cmake --build "$root/tsan" -j "$jobs"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --no-tests=error --test-dir "$root/tsan" --output-on-failure -j "$jobs" -L unit

step "libFuzzer: the comet program's command line and --set, ${COMET_FUZZ_SECONDS:-30} s"
# A clang build of its own (libFuzzer is clang's), of the one target. Findings (a crash, a
# sanitizer report, an exception other than a usage error) end the step with the input that
# caused them, in the fuzz build folder. The search starts from a fixed seed (COMET_FUZZ_SEED,
# default 1), so that a run repeats on the same tree; a longer search with other seeds:
# COMET_FUZZ_SECONDS=600 COMET_FUZZ_SEED=0 (0: libFuzzer picks one).
CXX=clang++ cmake -S . -B "$root/fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOMET_BUILD_TESTS=OFF -DCOMET_BUILD_BENCH=OFF \
  -DCOMET_BUILD_EXAMPLES=ON -DCOMET_BUILD_FUZZ=ON
cmake --build "$root/fuzz" -j "$jobs" --target comet_fuzz_options
mkdir -p "$root/fuzz/corpus"
UBSAN_OPTIONS=halt_on_error=1 "$root/fuzz/examples/comet_fuzz_options" -max_total_time="${COMET_FUZZ_SECONDS:-30}" -seed="${COMET_FUZZ_SEED:-1}" -max_len=512 \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$root/fuzz/" -dict=examples/comet/fuzz_options.dict \
  "$root/fuzz/corpus" examples/comet/fuzz_seeds

step "all tests passed"
