#!/bin/sh
# Whole-process figures of `skeinhw diff` (issue 34): the golden trace of a message through
# ath-1r (256 KiB by default: about 300,000 cycles) written as VCD and FST, then diffed against
# the golden model computed on the fly (IDENTICAL), beside `cat t.vcd > /dev/null` with the
# file cached (the physical limit: reading the file once). Prints wall seconds, cycles per
# second and each time as a ratio to the cached `cat` of the VCD; the VCD diff also with its
# body parsed in one thread (`SKEINHW_VCD_WORKERS=0`), the default on fewer than four cores.
# Each is run RUNS times and the best kept (the machine may be shared: the load average is
# printed before and after).
# A measurement, not a test.
#
#   scripts/bench-diff.sh                          # 3 runs each, 256 KiB, files in /tmp
#   RUNS=1 KIB=1024 DIR=/var/tmp/d scripts/bench-diff.sh   # the issue's 1 MiB trace
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
KIB=${KIB:-256}
DIR=${DIR:-/tmp/skeinhw-bench-diff}
SCHEDULE=${SCHEDULE:-ath-1r}
TARGET=${CARGO_TARGET_DIR:-target}
# BIN: a binary carried from elsewhere (then nothing is built).
if [ -z "${BIN:-}" ]; then
    BIN=$TARGET/release/skeinhw
    BUILD=1
fi

[ -z "${BUILD:-}" ] || nice cargo build --release --locked -q -p skeinhw
mkdir -p "$DIR"
MSG=$DIR/message-${KIB}KiB.bin
[ -s "$MSG" ] || head -c $((KIB * 1024)) /dev/zero | tr '\0' '\132' > "$MSG"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
CYCLES=$("$BIN" trace --schedule "$SCHEDULE" --msg-file "$MSG" --summary --force \
    -o "$DIR/t.vcd" | awk '/^cycles  /{print $2}')
"$BIN" trace --schedule "$SCHEDULE" --msg-file "$MSG" --force -o "$DIR/t.fst"
"$BIN" trace --schedule "$SCHEDULE" --msg-file "$MSG" --force -o "$DIR/t.jsonl"
echo "schedule $SCHEDULE, $KIB KiB message, $CYCLES cycles"
cat "$DIR/t.vcd" "$DIR/t.fst" "$DIR/t.jsonl" > /dev/null # cached

best() { # best wall seconds of RUNS runs of the command
    b=""
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        s=$(date +%s.%N)
        "$@" > /dev/null
        e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
        i=$((i + 1))
    done
    echo "$b"
}

diff_of() { # the diff of one file against the golden model (on the fly, or --golden JSONL)
    if [ "$2" = jsonl ]; then
        "$BIN" diff "$1" --golden "$DIR/t.jsonl"
    else
        "$BIN" diff "$1" --schedule "$SCHEDULE" --msg-file "$MSG"
    fi
}

CAT=$(best cat "$DIR/t.vcd")
printf '%-28s %9s %14s %14s %8s\n' what seconds cycles/s bytes "x cat"
row() { # name seconds bytes
    printf '%-28s %9.3f %14.0f %14d %8.2f\n' "$1" "$2" "$(echo "$CYCLES / $2" | bc -l)" "$3" \
        "$(echo "$2 / $CAT" | bc -l)"
}
VCD_BYTES=$(stat -c %s "$DIR/t.vcd")
FST_BYTES=$(stat -c %s "$DIR/t.fst")
row "cat t.vcd (cached)" "$CAT" "$VCD_BYTES"
row "dd bs=1M t.vcd (cached)" "$(best dd if="$DIR/t.vcd" of=/dev/null bs=1M status=none)" "$VCD_BYTES"
row "diff t.vcd --schedule" "$(best diff_of "$DIR/t.vcd" schedule)" "$VCD_BYTES"
row "diff t.fst --schedule" "$(best diff_of "$DIR/t.fst" schedule)" "$FST_BYTES"
# The VCD's body parsed in the reading thread only (on four cores or more it is parsed on
# several by default; on fewer this is the default row above again).
row "diff t.vcd, 1 parse thread" \
    "$(SKEINHW_VCD_WORKERS=0 best diff_of "$DIR/t.vcd" schedule)" "$VCD_BYTES"
row "diff t.vcd --golden jsonl" "$(best diff_of "$DIR/t.vcd" jsonl)" "$VCD_BYTES"
row "diff t.fst --golden jsonl" "$(best diff_of "$DIR/t.fst" jsonl)" "$FST_BYTES"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
