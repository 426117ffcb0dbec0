#!/bin/sh
# Whole-process figures of `skeinhw hash` (issue 17's table) on cached files:
#
#   1. 1 GiB, plain `hash` vs `--tree 5,2,255 --jobs 1`, both pinned to one CPU (taskset -c 0),
#      and vs `--tree 5,2,255 --jobs 2` (two CPUs);
#   2. 8 files x 64 MiB in one call (`--jobs 1`, pinned) vs one call per file (pinned);
#   3. peak RSS of `--tree 5,2,255` on a 4 GiB sparse file (`/usr/bin/time -v`), goal < 64 MB;
#   4. what mapping the file gains: `--tree --jobs 1` against the same with `--no-mmap`.
#
# How the files sit in the page cache matters on Linux 6.x: a file read from disk (readahead)
# is held in large folios, one written 4 KiB at a time (`head -c`) in 4 KiB pages, and both
# the kernel's copy (`read`) and mapping cost per page: for 1 GiB, 0.10 s against 0.17 to
# 0.26 s of system time to read, under 0.01 s against 0.10 to 0.12 s to map (AMD EPYC Zen 4,
# ext4). So the files are dropped from the cache and read back (`dd iflag=nocache`, `cat`),
# as a file read from disk is; WRITTEN=1 instead writes them anew 4 KiB at a time and
# measures them as written.
#
# DIR holds this script's files alone: it makes them where they are missing, and WRITTEN=1
# rewrites them, so it does so only in a DIR the script made (marked `.skeinhw-bench-hash`).
#
# Each pair is run alternately RUNS times and the best of each side is kept (the machine may be
# shared: the load average is printed before and after); the digests of both sides of a pair are
# compared where they must agree (the 8 files) and every run's exit status is checked. Prints
# the lane backend that ran (SKEINHW_LANES if set, else the one `batch::detected` picks on this
# CPU: avx512 if /proc/cpuinfo has avx512f, else avx2, else scalar). A measurement, not a test.
#
#   scripts/bench-hash.sh                  # 3 runs each
#   RUNS=5 DIR=/var/tmp/skeinhw-bench scripts/bench-hash.sh
#   WRITTEN=1 scripts/bench-hash.sh        # the files as just written
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DIR=${DIR:-/tmp/skeinhw-bench-hash}
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release/skeinhw

nice cargo build --release --locked -q -p skeinhw
if [ ! -e "$DIR" ]; then
    mkdir -p "$DIR" && touch "$DIR/.skeinhw-bench-hash"
fi
if [ -n "${WRITTEN:-}" ] && [ ! -e "$DIR/.skeinhw-bench-hash" ]; then
    echo "bench-hash.sh: $DIR was not made by this script (no .skeinhw-bench-hash in it):" \
        "WRITTEN=1 rewrites its files; give a DIR that does not exist yet" >&2
    exit 2
fi
[ -f "$DIR/1g.bin" ] || { head -c 1G /dev/urandom > "$DIR/1g.part" && mv "$DIR/1g.part" "$DIR/1g.bin"; }
for i in 1 2 3 4 5 6 7 8; do
    [ -f "$DIR/f$i.bin" ] || { head -c 64M /dev/urandom > "$DIR/f$i.part" && mv "$DIR/f$i.part" "$DIR/f$i.bin"; }
done
[ -f "$DIR/4g-sparse.bin" ] || truncate -s 4G "$DIR/4g-sparse.bin"
if [ -n "${WRITTEN:-}" ]; then
    cache="as written 4 KiB at a time (WRITTEN=1)"
    for f in "$DIR"/1g.bin "$DIR"/f*.bin; do
        head -c "$(stat -c %s "$f")" /dev/urandom > "$f.part" && mv "$f.part" "$f"
    done
else
    cache="read back from disk (dropped from the cache, then read)"
    for f in "$DIR"/1g.bin "$DIR"/f*.bin; do dd if="$f" iflag=nocache count=0 status=none; done
fi
cat "$DIR"/1g.bin "$DIR"/f*.bin > /dev/null

if [ -n "${SKEINHW_LANES:-}" ]; then
    lanes="$SKEINHW_LANES (forced by SKEINHW_LANES)"
elif grep -qw avx512f /proc/cpuinfo; then
    lanes="avx512 (detected: 8 lanes)"
elif grep -qw avx2 /proc/cpuinfo; then
    lanes="avx2 (detected: 4 lanes)"
else
    lanes="scalar (detected)"
fi
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs; lanes: $lanes"
echo "page cache: files $cache"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$BIN" "$DIR" "$RUNS" <<'PY'
import subprocess, sys, time
binary, d, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
one = ["taskset", "-c", "0"]

def timed(cmds):
    """Wall time of running the commands one after another; their outputs."""
    t = time.perf_counter()
    outs = [subprocess.run(c, check=True, capture_output=True, text=True).stdout for c in cmds]
    return time.perf_counter() - t, outs

def pair(name, a, b, same_output):
    best = [float("inf"), float("inf")]
    outs = [None, None]
    for _ in range(runs):
        for i, cmds in enumerate((a, b)):
            s, o = timed(cmds)
            best[i] = min(best[i], s)
            outs[i] = "".join(o)
    if same_output and outs[0] != outs[1]:
        sys.exit(f"{name}: the digests differ:\n{outs[0]}\n{outs[1]}")
    print(f"{name}: {best[0]:.3f} s vs {best[1]:.3f} s: {best[0] / best[1]:.2f}x")

big = f"{d}/1g.bin"
plain = [one + [binary, "hash", big]]
pair("1 GiB, plain hash vs --tree 5,2,255 --jobs 1 (taskset -c 0)",
     plain, [one + [binary, "hash", "--tree", "5,2,255", "--jobs", "1", big]], False)
pair("1 GiB, plain hash (one CPU) vs --tree 5,2,255 --jobs 2",
     plain, [[binary, "hash", "--tree", "5,2,255", "--jobs", "2", big]], False)
files = [f"{d}/f{i}.bin" for i in range(1, 9)]
pair("8 x 64 MiB, one call per file vs one call --jobs 1 (taskset -c 0)",
     [one + [binary, "hash", f] for f in files],
     [one + [binary, "hash", "--jobs", "1"] + files], True)
pair("8 x 64 MiB, one call per file (one CPU) vs one call --jobs 2",
     [one + [binary, "hash", f] for f in files],
     [[binary, "hash", "--jobs", "2"] + files], True)

pair("1 GiB, --tree 5,2,255 --jobs 1 --no-mmap vs mapped (taskset -c 0)",
     [one + [binary, "hash", "--tree", "5,2,255", "--jobs", "1", "--no-mmap", big]],
     [one + [binary, "hash", "--tree", "5,2,255", "--jobs", "1", big]], True)

over = False
for extra in ([], ["--no-mmap"]):
    r = subprocess.run(["/usr/bin/time", "-v", binary, "hash", "--tree", "5,2,255", *extra,
                        f"{d}/4g-sparse.bin"], check=True, capture_output=True, text=True)
    rss = next(int(l.split()[-1]) for l in r.stderr.splitlines() if "Maximum resident set size" in l)
    verdict = "under" if rss < 64 * 1000 else "NOT under"
    name = " ".join(["--tree 5,2,255", *extra])
    print(f"peak RSS of {name} on a 4 GiB sparse file: {rss / 1000:.1f} MB ({verdict} 64 MB)")
    over = over or rss >= 64 * 1000
if over:
    sys.exit(1)
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
