#!/usr/bin/env bash
# The main job: installs what is missing, builds, runs the CoMet suite on this machine's
# threads transport, and leaves the report in report/ (summary.txt, results.json, CSV files).
# Extra arguments go to the comet program (e.g. --nodes 4 --reps 200).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

build=${COMET_BUILD_DIR:-build}/release
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCOMET_BUILD_TESTS=OFF -DCOMET_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target comet_cli

out=${COMET_REPORT_DIR:-report}
echo "== the CoMet suite on this machine's threads transport"
"$build/examples/comet" --transport threads --nodes 2 --out "$out/threads" "$@"
echo
echo "report: $out/threads/summary.txt, results.json, results.csv, fits.csv, bandwidth.csv"
