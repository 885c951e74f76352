#!/usr/bin/env bash
# The main job: installs what is missing, builds, runs the CoMet suite on the simulated
# iPSC/860 (2, 4, 8 and 16 nodes, as the thesis did, with its figures beside the measured ones)
# and on this machine's threads transport, and leaves the reports in report/ipsc860/ and
# report/threads/ (summary.txt, results.json, CSV files, plots/). Extra arguments go to both
# runs of the comet program (e.g. --kernels echo,pairwise --reps 200). Then global time (Hoefler
# et al.): clock synchronisation on 2 to 1024 simulated nodes, linear against log P, and the
# collectives in time windows on 16 simulated nodes and on two threads ranks, in
# report/ipsc860-sync/, report/ipsc860-collectives/ and report/threads-global-time/. Last, the
# nonblocking collectives' overhead and progression (seed 002, section 4) on 4 and 16 simulated
# nodes and two threads ranks, in report/ipsc860-nbc/ and report/threads-nbc/; and NIST's
# synthetic applications under time dilation (seed 003) on the machine the seed ran them on, a
# simulated 16-node iPSC/1, and on four threads ranks, in report/ipsc1-nist/ and
# report/threads-nist/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

build=${COMET_BUILD_DIR:-build}/release
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCOMET_BUILD_TESTS=OFF -DCOMET_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target comet_cli

out=${COMET_REPORT_DIR:-report}
echo "== the CoMet suite on the simulated iPSC/860 (2, 4, 8 and 16 nodes, as in the thesis)"
"$build/examples/comet" --transport ipsc860 --nodes 2,4,8,16 --out "$out/ipsc860" "$@"
echo
echo "== the CoMet suite on this machine's threads transport (2 and 4 ranks)"
"$build/examples/comet" --transport threads --nodes 2,4 --out "$out/threads" "$@"
echo
echo "== global time: clock synchronisation on 2 to 1024 simulated nodes, collectives in time windows"
"$build/examples/comet" --transport ipsc860 --nodes 2,4,8,16,32,64,128,256,512,1024 --kernels sync --out "$out/ipsc860-sync"
"$build/examples/comet" --transport ipsc860 --nodes 16 --kernels collectives \
  --operations broadcast,linear_broadcast,reduce,allreduce,barrier,alltoall,gather --out "$out/ipsc860-collectives"
"$build/examples/comet" --transport threads --nodes 2 --kernels sync,collectives --out "$out/threads-global-time"
echo
echo "== nonblocking collectives: overhead and progression on 4 and 16 simulated nodes and two threads ranks"
"$build/examples/comet" --transport ipsc860 --nodes 4,16 --kernels nbc --operations ibarrier,ibcast,iallreduce,ialltoall,igather \
  --sizes 8,1024,65536 --intervals 65536,32768,21846,16384,4096,1024 --out "$out/ipsc860-nbc"
"$build/examples/comet" --transport threads --nodes 2 --kernels nbc --operations ibarrier,ibcast,iallreduce,ialltoall,igather \
  --out "$out/threads-nbc"
echo
echo "== NIST's synthetic applications (ring, rc, mesh) under time dilation on a simulated 16-node iPSC/1 and four threads ranks"
"$build/examples/comet" --transport ipsc1 --nodes 16 --kernels ring,rc,mesh --out "$out/ipsc1-nist"
"$build/examples/comet" --transport threads --nodes 4 --kernels ring,rc,mesh --out "$out/threads-nist"
echo
echo "reports: $out/ipsc860/, $out/threads/, $out/ipsc860-sync/, $out/ipsc860-collectives/, $out/threads-global-time/,"
echo "         $out/ipsc860-nbc/, $out/threads-nbc/, $out/ipsc1-nist/, $out/threads-nist/"
