#!/usr/bin/env bash
# bench/compare_same_build.sh — how often `comet compare` calls two runs of the same build the
# same, beside the target: no significant change on >= 95% of points.
#
# Runs the comet program twice, one after the other, each into its own --out folder, and
# compares the second run (B) with the first (A); PAIRS such pairs on the threads transport,
# then one pair on the simulated iPSC/860 (--transport ipsc860) for contrast: the simulator is
# deterministic, so every point of its pair must come out the same, and a point that does not
# is a bug in the comparison, not noise. Both run the default suite (every kernel, default
# sizes; on threads in its default 8 rounds, which `comet compare` tests on: 15-60 s a run,
# depending on other work; 70 s on the simulator at its default 16 nodes, in one round).
# Give a comet from before rounds, or `-- --rounds 1`, to see the test on one round's samples.
#
# Per pair it prints the points compared, the points flagged slower and faster, the fraction
# unchanged, "target >= 95%: met" or "MISSED", the load average (1 minute, /proc/loadavg) and
# the cores other work kept busy (over a second of this script's idling), both before A and
# after B, and the 8-byte echo's median in A and in B, which tells the threads transport's two
# states of the machine apart (about 0.1 µs, or 4-9 µs): a pair whose runs were taken in
# different states, or under other work, says so, and its miss is not the comparison's fault.
# The flagged points follow, counted by kernel and the first 12 listed with their change and
# p, so that a miss says which points moved and how. Why pairs run back to back and not interleaved: that is
# how compare is used (a run before a change, a run after), and the target is about that use.
#
# usage: bench/compare_same_build.sh [COMET] [--pairs N] [--no-ipsc860] [--keep DIR] [-- ARGS...]
#   COMET         the comet program; default: the first of build/*/examples/comet (release first)
#   --pairs N     pairs on the threads transport (default 3)
#   --no-ipsc860  skip the simulator's pair
#   --keep DIR    leave the runs and compare's outputs in DIR (default: a temporary folder, removed)
#   -- ARGS       passed to every run (e.g. -- --kernels echo,pairwise), and said in the header
#   COMPARE_ARGS  (environment) passed to `comet compare`, e.g. COMPARE_ARGS="--threshold 0.1"
# Exit status: 0 when every pair met the target, 1 when one missed it, 2 on bad usage or when
# a run or compare failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
comet=""
pairs=3
ipsc=1
keep=""
list=12  # flagged points listed a pair; the rest are counted by kernel
args=()
while (($#)); do
    case $1 in
        --pairs) pairs=${2:-}; shift 2 || { echo "compare_same_build.sh: --pairs needs a count" >&2; exit 2; } ;;
        --no-ipsc860) ipsc=0; shift ;;
        --keep) keep=${2:-}; shift 2 || { echo "compare_same_build.sh: --keep needs a folder" >&2; exit 2; } ;;
        --) shift; args=("$@"); break ;;
        -*) echo "compare_same_build.sh: unknown option '$1'" >&2; exit 2 ;;
        *) comet=$1; shift ;;
    esac
done
[[ $pairs =~ ^[1-9][0-9]*$ ]] || { echo "compare_same_build.sh: --pairs must be a count >= 1, got '$pairs'" >&2; exit 2; }
if [[ -z $comet ]]; then
    for c in "$root"/build/release/examples/comet "$root"/build/*/examples/comet; do
        [[ -x $c ]] && { comet=$c; break; }
    done
fi
[[ -n $comet && -x $comet ]] || { echo "compare_same_build.sh: no comet program (build the target comet_cli, or name it: $0 path/to/comet)" >&2; exit 2; }
read -r -a compare_args <<<"${COMPARE_ARGS:-}"

if [[ -n $keep ]]; then
    mkdir -p "$keep"
    work=$(cd "$keep" && pwd)
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi

load() { cut -d' ' -f1 /proc/loadavg; }
# others: the cores kept busy by everything else, over one second in which this script runs
# nothing (/proc/stat's busy time: all but idle and iowait). Why beside the load average: the
# load average is a minute-long mean that still counts the previous run's two spinning ranks;
# this is what the next run will share the machine with.
others() {
    local a b
    a=($(head -1 /proc/stat)); sleep 1; b=($(head -1 /proc/stat))
    awk -v u="$((b[1] + b[2] + b[3] + b[6] + b[7] + b[8] - a[1] - a[2] - a[3] - a[6] - a[7] - a[8]))" \
        -v t="$((b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + b[7] + b[8] - a[1] - a[2] - a[3] - a[4] - a[5] - a[6] - a[7] - a[8]))" \
        -v n="$(nproc)" 'BEGIN { printf "%.1f", (t > 0) ? n * u / t : 0 }'
}
cores=$(nproc)

# echo_state FILE: ", echo 8 B A -> B µs" from a compare output that has the point: on the
# threads transport it tells the machine's state apart (about 0.1 µs with a core for each
# rank, about 4 µs when the two ranks share one and every message waits for a context switch).
echo_state() {
    awk '$1 ~ /^echo\/size:8\/hops:1\// { printf ", echo 8 B %s -> %s us", $(NF-4), $(NF-3); exit }' "$1"
}

# pair NAME ARGS...: two runs of comet ARGS into $work/NAME-a and -b, then compare; prints
# the pair's line and its flagged points, and returns 1 when it missed the target.
pair() {
    local name=$1; shift
    local before after busy_before busy_after status=0
    busy_before=$(others)
    before=$(load)
    for side in a b; do
        if ! "$comet" "$@" "${args[@]}" --out "$work/$name-$side" >"$work/$name-$side.log" 2>&1; then
            echo "compare_same_build.sh: run $name-$side failed; its output:" >&2
            tail -20 "$work/$name-$side.log" >&2
            exit 2
        fi
    done
    after=$(load)
    busy_after=$(others)
    "$comet" compare "${compare_args[@]}" "$work/$name-a" "$work/$name-b" >"$work/$name.compare" 2>&1 || status=$?
    if ((status > 1)); then
        echo "compare_same_build.sh: comet compare failed (status $status):" >&2
        cat "$work/$name.compare" >&2
        exit 2
    fi
    # compare's summary line, "236 points: 11 slower, 34 faster, 191 same (...)": the only
    # line of its output that starts with a count of points.
    local summary
    summary=$(grep -E '^[0-9]+ points?: [0-9]+ slower, [0-9]+ faster, [0-9]+ same' "$work/$name.compare" | head -1) || true
    [[ -n $summary ]] || { echo "compare_same_build.sh: no summary line in compare's output ($work/$name.compare)" >&2; exit 2; }
    local points slower faster same
    read -r points slower faster same < <(sed -E 's/^([0-9]+) points?: ([0-9]+) slower, ([0-9]+) faster, ([0-9]+) same.*/\1 \2 \3 \4/' <<<"$summary")
    local verdict=met
    ((same * 100 >= points * 95)) || verdict=MISSED
    printf '%-12s %6d %7d %7d %9.1f%%  target >= 95%%: %-6s  load %s -> %s, others busy %s -> %s of %d cores%s\n' \
        "$name" "$points" "$slower" "$faster" "$(awk -v s="$same" -v p="$points" 'BEGIN { print 100 * s / p }')" \
        "$verdict" "$before" "$after" "$busy_before" "$busy_after" "$cores" "$(echo_state "$work/$name.compare")"
    # The flagged points, by kernel, then the first $list of them: a table row ends in its
    # verdict, and its first field is the point ("kernel/param:value/...").
    awk -v list="$list" -v where="${keep:+$work/$name.compare}" '
        $NF == "slower" || $NF == "faster" {
            k = $1; sub(/\/.*/, "", k)
            if (!(k in by)) order[++kernels] = k
            by[k] = by[k] " " ($NF == "slower" ? "+" : "-")
            if (++shown <= list) rows = rows sprintf("    %-9s %8s  p %-9s  %s -> %s us  %s\n", $NF, $(NF-2), $(NF-1), $(NF-4), $(NF-3), $1)
        }
        END {
            if (!shown) exit
            line = "    flagged by kernel:"
            for (i = 1; i <= kernels; ++i) {
                s = gsub(/\+/, "", by[order[i]]); f = gsub(/-/, "", by[order[i]])
                line = line sprintf(" %s %d slower %d faster;", order[i], s, f)
            }
            print line
            printf "%s", rows
            if (shown > list) printf "    ... and %d more (%s)\n", shown - list, where != "" ? where : "--keep DIR keeps them"
        }' "$work/$name.compare"
    [[ $verdict == met ]]
}

echo "comet compare of two runs of one build, run back to back"
echo "program: $comet"
echo "runs:    the default suite${args[*]:+ with ${args[*]}}; comet compare ${compare_args[*]:-with its defaults}"
echo "machine: $cores cores; $(uname -n)"
echo
printf '%-12s %6s %7s %7s %10s\n' pair points slower faster unchanged
missed=0
for ((i = 1; i <= pairs; ++i)); do
    pair "threads-$i" --transport threads || missed=1
done
if ((ipsc)); then
    pair ipsc860 --transport ipsc860 || missed=1
fi
# compare's own lines saying what it tested and how it decides (its alpha and threshold).
cat "$work"/*.compare | grep -E '^(tested on|each point:)' | sed -E 's/ \([0-9]+ of [0-9]+ points[^)]*\)//; s/^/compare: /' | awk '!seen[$0]++' || true
[[ -n $keep ]] && echo "runs and compare outputs: $work"
exit "$missed"
