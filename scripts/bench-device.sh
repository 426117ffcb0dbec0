#!/bin/sh
# Issue 34's many-core figures in one call, for a machine lent for a few minutes (the `device`
# tool: 16 cores, no network): carry a release binary built here and run
#
#   BIN=target/release/skeinhw OUT=$OUT scripts/bench-device.sh
#
# It prints the CPU and its vector units, then scripts/bench-scaling.sh (--jobs 1, 2, 4, 8, 16
# and the CPU count: `--tree 5,2,255` on 4 GiB four ways, 16 files of 256 MiB), then
# scripts/bench-diff.sh (the 1 MiB ath-1r trace: the diff's cycles per second) and
# scripts/bench-trace.sh, and leaves scaling.csv and scaling.svg in OUT. About five minutes
# on 16 cores (8 GiB of files made first, in DIR). A measurement, not a test.
set -eu
cd "$(dirname "$0")/.."
: "${BIN:?give BIN, the skeinhw binary to measure}"
OUT=${OUT:-/tmp/skeinhw-device}
DIR=${DIR:-/tmp/skeinhw-device-files}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
echo "== machine"
grep -m1 'model name' /proc/cpuinfo
grep -m1 -E '^cpu family' /proc/cpuinfo
echo "$(nproc) CPUs; $(grep -o 'avx512[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "== scaling (scripts/bench-scaling.sh)"
BIN=$BIN OUT=$OUT DIR=$DIR/scaling RUNS=$RUNS scripts/bench-scaling.sh
echo "== diff (scripts/bench-diff.sh)"
BIN=$BIN DIR=$DIR/diff RUNS=$RUNS KIB=1024 scripts/bench-diff.sh
echo "== trace (scripts/bench-trace.sh)"
BIN=$BIN DIR=$DIR/trace RUNS=$RUNS KIB=1024 scripts/bench-trace.sh
