#!/usr/bin/env bash
# Installs the Debian packages comet needs that are missing (as root, or through sudo), and
# does nothing when everything is there. Called by scripts/main.sh and scripts/test.sh.
set -euo pipefail

packages=(
  cmake g++ make                      # the build
  clang libclang-rt-dev               # libFuzzer (clang's -fsanitize=fuzzer), for the command line's fuzz test
  libeigen3-dev                       # least-squares fits, the distributed matrix
  libboost-test-dev                   # the tests
  libboost-program-options-dev        # the comet program's command line
  libboost-mpi-dev openmpi-bin libopenmpi-dev   # the MPI transport
  libboost-context-dev                # fibers for the simulated iPSC/860's nodes
  gnuplot-nox                         # plots in the report
  libbenchmark-tools python3-scipy    # Google Benchmark's compare.py, which reads comet's gbench.json
                                      # in a test (it imports scipy, which the package does not pull in)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "comet: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "comet: missing Debian packages: ${missing[*]}; run this as root or install them" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q "${missing[@]}"
