#!/bin/sh
# Whole-process figures of `skeinhw trace` (issue 34): the golden trace of a 1 MiB message
# through ath-1r (1,196,178 cycles) written as JSON lines, VCD and FST: wall time, cycles per
# second and file size of each, and each format's time as a ratio to JSON lines. Each format
# is run RUNS times and the best kept (the machine may be shared: the load average is printed
# before and after). A measurement, not a test.
#
#   scripts/bench-trace.sh                         # 3 runs each, files in /tmp
#   RUNS=1 DIR=/var/tmp/t SCHEDULE=ath-8r scripts/bench-trace.sh
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DIR=${DIR:-/tmp/skeinhw-bench-trace}
SCHEDULE=${SCHEDULE:-ath-1r}
TARGET=${CARGO_TARGET_DIR:-target}
# BIN: a binary carried from elsewhere (then nothing is built).
if [ -z "${BIN:-}" ]; then
    BIN=$TARGET/release/skeinhw
    BUILD=1
fi

[ -z "${BUILD:-}" ] || nice cargo build --release --locked -q -p skeinhw
mkdir -p "$DIR"
MSG=$DIR/message-1MiB.bin
[ -s "$MSG" ] || head -c 1048576 /dev/zero | tr '\0' '\132' > "$MSG"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "avx512: $(grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
CYCLES=$("$BIN" trace --schedule "$SCHEDULE" --msg-file "$MSG" --summary --force \
    -o "$DIR/t.jsonl" | awk '/^cycles  /{print $2}')
echo "schedule $SCHEDULE, 1 MiB message, $CYCLES cycles"

best() { # best wall seconds of RUNS runs of: trace -o $DIR/t.$1
    b=""
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        s=$(date +%s.%N)
        "$BIN" trace --schedule "$SCHEDULE" --msg-file "$MSG" --force -o "$DIR/t.$1"
        e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
        i=$((i + 1))
    done
    echo "$b"
}

JSONL=$(best jsonl)
printf '%-6s %9s %14s %14s %8s\n' format seconds cycles/s bytes "x jsonl"
for f in jsonl vcd fst; do
    if [ "$f" = jsonl ]; then t=$JSONL; else t=$(best $f); fi
    size=$(stat -c %s "$DIR/t.$f")
    printf '%-6s %9.2f %14.0f %14d %8.2f\n' "$f" "$t" "$(echo "$CYCLES / $t" | bc -l)" \
        "$size" "$(echo "$t / $JSONL" | bc -l)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
