#!/usr/bin/env bash
# bench/compile_cost.sh — what including comet costs one translation unit of a user's program:
# the compiler's CPU seconds and its peak memory, beside its targets:
#
#   1. an application's TU that includes one kernel and the threads transport and calls the
#      kernel (kernels/echo.hpp + transport/threads.hpp, echo on 2 ranks): <= 1.5 s;
#   2. a TU that includes the umbrella header comet/comet.hpp, with an empty main: <= 3 s;
#   3. stats/fit.hpp alone (the fits and their Eigen solver), for information;
#
# and, under each of the first two, its floor: a TU that includes the same standard and
# third-party headers as comet's headers in it do (Eigen/Core in the umbrella) and nothing of
# comet. What a header-only comet can cost is that floor plus its own parsing and the code its
# templates generate; a target below the floor is out of reach of any header-only layout.
#
# Then the same two with the compiled part (docs/compiled.md), compiled in the same sitting,
# in turn with the header-only ones: the kernel TU includes comet/compiled/threads.hpp in
# place of comet/transport/threads.hpp and both are compiled with -DCOMET_COMPILED, as a
# program linking comet::compiled is; targets 2.5 s and 3.5 s (issue 29). For information, what
# the compiled part's library (comet::compiled: src/, the kernels on the threads transport and
# the ordinary code) costs to build once, as the sum of its units' CPU seconds.
#
# Each TU is compiled RUNS times (default 3), the three in turn so that a change of the
# machine's speed during the run lands on all of them alike; the table gives the median and
# the spread. Why CPU seconds (user + system, the kernel's accounting of the finished
# compiler) and not wall time: on a shared machine wall time counts the other jobs too. Peak
# memory is the largest resident set of the compiler's processes (cc1plus). The flags are a
# Release build's of a program that links comet::comet (CMakeLists.txt): -O3 -DNDEBUG
# -std=gnu++20, comet's include/ and Eigen's include directory; no warning flags, which
# comet's own programs add but users' do not inherit.
#
# usage: bench/compile_cost.sh [RUNS]
#   CXX (default g++) names the compiler; EIGEN3_INCLUDE_DIR (default /usr/include/eigen3, from
#   Debian's libeigen3-dev) Eigen's headers. COMET_BASE names another checkout of comet (say a
#   `git worktree add` of an older commit) to compare with: each TU is then also compiled
#   against its include/, in turn with this one's, and a second table gives the base's figures —
#   on a shared machine a before/after measured in one sitting, not in two. Needs only the compiler: /usr/bin/time (Debian's
#   `time`) when it is there, else a ten-line getrusage wrapper this script compiles first.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-3}
cxx=${CXX:-g++}
eigen=${EIGEN3_INCLUDE_DIR:-/usr/include/eigen3}
base=${COMET_BASE:-}
flags=(-std=gnu++20 -O3 -DNDEBUG -isystem "$eigen")

[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "compile_cost.sh: RUNS must be a count >= 1, got '$runs'" >&2; exit 2; }
command -v "$cxx" >/dev/null || { echo "compile_cost.sh: no compiler '$cxx' (set CXX)" >&2; exit 1; }
[[ -f $eigen/Eigen/Core ]] || { echo "compile_cost.sh: no Eigen in $eigen (set EIGEN3_INCLUDE_DIR)" >&2; exit 1; }
[[ -z $base || -f $base/include/comet/comet.hpp ]] || { echo "compile_cost.sh: COMET_BASE=$base holds no include/comet/comet.hpp" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The three translation units: what a user writes, nothing more.
cat >"$work/kernel_threads.cpp" <<'EOF'
#include <comet/kernels/echo.hpp>
#include <comet/transport/threads.hpp>

int main() {
    auto r = comet::threads::run(2, [](comet::threads::transport& t) { return comet::kernels::echo(t, {.sizes = {8}}); });
    return r[0].records.empty() ? 1 : 0;
}
EOF
printf '#include <comet/comet.hpp>\n\nint main() {}\n' >"$work/umbrella.cpp"
# The compiled part's: the kernel TU with comet/compiled/threads.hpp, which with COMET_COMPILED
# declares echo on the threads transport instead of instantiating it; the umbrella unchanged.
sed 's|<comet/transport/threads.hpp>|<comet/compiled/threads.hpp>|' "$work/kernel_threads.cpp" >"$work/kernel_threads_compiled.cpp"
cp "$work/umbrella.cpp" "$work/umbrella_compiled.cpp"
printf '#include <comet/stats/fit.hpp>\n\nint main() {}\n' >"$work/fit.cpp"

# `usage OUT CMD...` runs CMD and writes "user_seconds system_seconds peak_kilobytes" to OUT.
if [[ -x /usr/bin/time ]]; then
    usage() { local out=$1; shift; /usr/bin/time -f '%U %S %M' -o "$out" "$@"; }
else
    cat >"$work/usage.cpp" <<'EOF'
// usage OUT CMD...: what wait4 says CMD and the children it waited for used.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
int main(int argc, char** argv) {
    if (argc < 3) return 2;
    const pid_t child = fork();
    if (child == 0) { execvp(argv[2], argv + 2); _exit(127); }
    int status = 0;
    rusage u{};
    if (child < 0 || wait4(child, &status, 0, &u) < 0) return 1;
    std::FILE* out = std::fopen(argv[1], "w");
    if (!out) return 1;
    std::fprintf(out, "%ld.%06ld %ld.%06ld %ld\n", static_cast<long>(u.ru_utime.tv_sec), static_cast<long>(u.ru_utime.tv_usec),
                 static_cast<long>(u.ru_stime.tv_sec), static_cast<long>(u.ru_stime.tv_usec), u.ru_maxrss);
    std::fclose(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
EOF
    "$cxx" -O1 "$work/usage.cpp" -o "$work/usage"
    usage() { "$work/usage" "$@"; }
fi

# compile NAME ROOT SUFFIX: one compile of $work/NAME.cpp against ROOT/include; appends
# "cpu_seconds peak_kilobytes" to $work/NAME.runsSUFFIX.
# A TU whose name ends in _compiled is compiled with -DCOMET_COMPILED.
compile() {
    local mode=()
    [[ $1 != *_compiled ]] || mode=(-DCOMET_COMPILED)
    if ! usage "$work/$1.usage" "$cxx" "${flags[@]}" "${mode[@]}" -I "$2/include" -c "$work/$1.cpp" -o "$work/$1.o" 2>"$work/$1.err"; then
        echo "compile_cost.sh: $1.cpp does not compile against $2:" >&2
        cat "$work/$1.err" >&2
        exit 1
    fi
    awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$work/$1.usage" >>"$work/$1.runs$3"
}

# floor_of NAME: writes $work/NAME_floor.cpp, the headers outside comet that comet's headers in
# NAME.cpp include (those the preprocessor really opened: a header under an #if that is off is
# left out), with an empty main.
floor_of() {
    local opened headers
    opened=$("$cxx" "${flags[@]}" -I "$root/include" -H -E "$work/$1.cpp" -o /dev/null 2>&1 | sed -n 's/^\.\+ //p')
    headers=$(grep -h '/include/comet/' <<<"$opened" | sort -u | xargs grep -ho '^#include <[^>]*>' | grep -v '<comet/' | sort -u)
    {
        while read -r line; do
            local h=${line#*<}
            h=${h%>}
            grep -q "/$h\$" <<<"$opened" && echo "$line"
        done <<<"$headers"
        echo
        echo 'int main() {}'
    } >"$work/$1_floor.cpp"
}
floor_of kernel_threads
floor_of umbrella

tus=(kernel_threads kernel_threads_floor umbrella umbrella_floor fit kernel_threads_compiled umbrella_compiled)
# A base without the compiled part is measured header-only.
base_compiled=0
[[ -z $base || ! -f $base/include/comet/compiled/threads.hpp ]] || base_compiled=1
for ((i = 0; i < runs; ++i)); do
    for tu in "${tus[@]}"; do
        compile "$tu" "$root" ""
        [[ -z $base || ($tu == *_compiled && $base_compiled == 0) ]] || compile "$tu" "$base" .base
    done
done

# The library once: each unit of comet::compiled as CMakeLists.txt builds it (the kernels on
# the threads transport, the ordinary code).
library_cpu=0
for src in "$root"/src/*.cpp; do
    usage "$work/library.usage" "$cxx" "${flags[@]}" -DCOMET_COMPILED -DCOMET_COMPILED_TRANSPORT=::comet::threads::transport \
        '-DCOMET_SRC_TRANSPORT_HEADER="comet/transport/threads.hpp"' -I "$root/include" -c "$src" -o "$work/library.o" 2>"$work/library.err" ||
        { echo "compile_cost.sh: $src does not compile:" >&2; cat "$work/library.err" >&2; exit 1; }
    library_cpu=$(awk -v sum="$library_cpu" '{ printf "%.2f", sum + $1 + $2 }' "$work/library.usage")
done

# row NAME LABEL TARGET [SUFFIX]: the table's line for one TU; TARGET in CPU seconds, or "-"
# for none; SUFFIX .base for the base's figures.
row() {
    sort -g -k1,1 "$work/$1.runs${4:-}" | awk -v label="$2" -v target="$3" '
        { cpu[NR] = $1; if ($2 > peak) peak = $2 }
        END {
            median = NR % 2 ? cpu[(NR + 1) / 2] : (cpu[NR / 2] + cpu[NR / 2 + 1]) / 2
            line = sprintf("  %-50s %8.2f %6.2f %6.2f %9.0f", label, median, cpu[1], cpu[NR], peak / 1024)
            if (target == "-") print line
            else printf "%s   %-9s %s\n", line, "<= " target " s", median <= target ? "ok" : "MISSED"
        }'
}

echo "compile cost of including comet: $("$cxx" --version | head -n 1)"
echo "flags: ${flags[*]} -I include; $runs run(s) each, CPU = user + system seconds of the compiler"
# table SUFFIX: the three rows.
table() {
    printf '  %-50s %8s %6s %6s %9s   %-9s\n' "translation unit" "CPU[s]" "min" "max" "peak[MB]" "target"
    row kernel_threads "kernels/echo.hpp + transport/threads.hpp, echo" 1.5 "$1"
    row kernel_threads_floor "  floor: their $(grep -c '^#include' "$work/kernel_threads_floor.cpp") std headers alone" - "$1"
    row umbrella "comet/comet.hpp, empty main" 3 "$1"
    row umbrella_floor "  floor: its $(grep -c '^#include' "$work/umbrella_floor.cpp") std and Eigen headers alone" - "$1"
    row fit "stats/fit.hpp alone (for information)" - "$1"
    [[ -z $1 || $base_compiled == 1 ]] || return 0
    echo "  with the compiled part (-DCOMET_COMPILED, linking comet::compiled):"
    row kernel_threads_compiled "kernels/echo.hpp + compiled/threads.hpp, echo" 2.5 "$1"
    row umbrella_compiled "comet/comet.hpp, empty main" 3.5 "$1"
}
echo
[[ -z $base ]] || echo "this checkout ($root):"
table ""
echo
echo "building the compiled part's library (comet::compiled, $(ls "$root"/src/*.cpp | wc -l) units) once: $library_cpu s CPU"
if [[ -n $base ]]; then
    echo
    echo "base (COMET_BASE=$base), compiled in turn with the above:"
    table .base
fi
