#!/bin/sh
# Whole-process Skein-256/512/1024 of a cached file: `skeinhw hash --size S FILE` against
# pyskein 1.0 (PyPI; the optimized reference C of the Skein authors behind a Python module)
# reading the same file in 1 MiB pieces. Each run is timed as a whole process (start-up and
# reading included); RUNS runs of each, interleaved; the median and the best are printed, the
# ratio is of the medians; the digests of the two are compared (a mismatch fails). Not part of
# ./test.sh: a measurement, not a test.
#
#   scripts/bench-pyskein.sh            # 256 MiB, 7 runs
#   MIB=1024 RUNS=3 scripts/bench-pyskein.sh
#
# Needs python3-venv; installs pyskein into target/venv-pyskein and builds the release binary.
set -eu
cd "$(dirname "$0")/.."
MIB=${MIB:-256}
RUNS=${RUNS:-7}
TARGET=${CARGO_TARGET_DIR:-target}
VENV=$TARGET/venv-pyskein
FILE=$TARGET/bench-pyskein-$MIB.bin
BIN=$TARGET/release/skeinhw

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import skein" 2>/dev/null || "$VENV/bin/pip" install -q pyskein==1.0
cargo build --release --locked -q -p skeinhw
if [ ! -f "$FILE" ]; then
    head -c "${MIB}M" /dev/urandom > "$FILE.part"
    mv "$FILE.part" "$FILE"
fi
cat "$FILE" > /dev/null

"$VENV/bin/python" - "$BIN" "$FILE" "$RUNS" <<'PY'
import subprocess, sys, time
binary, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
PYSKEIN = """
import skein, sys
size = int(sys.argv[1])
h = getattr(skein, "skein%d" % size)(digest_bits=size)
with open(sys.argv[2], "rb", buffering=0) as f:
    while True:
        b = f.read(1 << 20)
        if not b:
            break
        h.update(b)
print(h.hexdigest())
"""
def run(cmd):
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t, out.split()[0]
mib = __import__("os").path.getsize(path) / (1 << 20)
for size in (256, 512, 1024):
    ours = [binary, "hash", "--size", str(size), path]
    theirs = [sys.executable, "-c", PYSKEIN, str(size), path]
    times = [[], []]
    digests = set()
    for _ in range(runs):
        for i, cmd in enumerate((ours, theirs)):
            s, d = run(cmd)
            times[i].append(s)
            digests.add(d)
    med = [sorted(t)[len(t) // 2] for t in times]
    best = [min(t) for t in times]
    if len(digests) != 1:
        sys.exit("Skein-%d: skeinhw and pyskein differ: %s" % (size, sorted(digests)))
    print("Skein-%d-%d, %.0f MiB, median of %d: skeinhw %.3f s (%.0f MiB/s), pyskein %.3f s "
          "(%.0f MiB/s), ratio %.2fx (best: %.3f s, %.3f s, %.2fx; digests equal)"
          % (size, size, mib, runs, med[0], mib / med[0], med[1], mib / med[1],
             med[1] / med[0], best[0], best[1], best[1] / best[0]))
PY
