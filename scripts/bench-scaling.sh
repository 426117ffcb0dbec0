#!/bin/sh
# How `skeinhw hash` scales with --jobs (issue 34: the tree's efficiency from 1 to 16 jobs at
# least 75%; 16 files on 16 jobs at least 4x --jobs 1), and where it loses what it loses:
#
#   1. `--tree 5,2,255` over one file of TREE_MIB MiB (default 4096), --jobs 1, 2, 4, 8, 16,
#      ... up to the CPUs there are (and their number), four ways: the detected lanes and the
#      scalar ones (SKEINHW_LANES=scalar: no wide vector unit, so no vector frequency licence),
#      each with the file mapped (the default) and with --no-mmap (read);
#   2. FILES files of FILE_MIB MiB (default 16 x 256) in one call, the same --jobs.
#
# For each: the best wall time of RUNS (default 3), with that run's user and system CPU time
# (wait4), and
#   speed-up     T1 / Tn;  efficiency  T1 / (n Tn), which is the product of
#   1 / growth   growth = CPU time at n / CPU time at 1: above 1, each CPU does the same work
#                more slowly (clock frequency under load, memory bandwidth, the page cache;
#                the system time column shows the kernel's part: mapping, faults, copies);
#   busy ratio   (CPU time / (n T)) at n over the same at 1: below 1, threads wait (the end of a
#                round, the upper levels, a reader);
# and the run's minor page faults (mapping) and voluntary context switches (a thread that
# blocked: waits at a round's end or for work).
# Every run's digests must agree (the tree's across all ways and job counts; the files' across
# job counts); an exit status other than 0 stops the script. Writes scaling.csv and
# scaling.svg (speed-up against jobs, one line per way, beside the ideal and the 75% goal) in
# OUT (default DIR). A measurement, not a test.
#
# DIR holds this script's files alone (marked `.skeinhw-bench-scaling`): it makes the files
# where they are missing, drops them from the page cache and reads them back, so that they sit
# there as a file read from disk does (large folios on Linux 6.x; see scripts/bench-hash.sh).
#
#   scripts/bench-scaling.sh
#   RUNS=5 TREE_MIB=1024 FILES=8 FILE_MIB=64 DIR=/var/tmp/s scripts/bench-scaling.sh
#   BIN=./skeinhw JOBS="1 4 16" scripts/bench-scaling.sh     # a binary carried elsewhere
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
TREE_MIB=${TREE_MIB:-4096}
FILES=${FILES:-16}
FILE_MIB=${FILE_MIB:-256}
DIR=${DIR:-/tmp/skeinhw-bench-scaling}
OUT=${OUT:-$DIR}
CPUS=$(nproc)
if [ -z "${JOBS:-}" ]; then
    JOBS=""
    n=1
    while [ "$n" -lt "$CPUS" ]; do JOBS="$JOBS $n"; n=$((n * 2)); done
    JOBS="$JOBS $CPUS"
fi
if [ -z "${BIN:-}" ]; then
    BIN=${CARGO_TARGET_DIR:-target}/release/skeinhw
    nice cargo build --release --locked -q -p skeinhw
fi

if [ ! -e "$DIR" ]; then
    mkdir -p "$DIR" && touch "$DIR/.skeinhw-bench-scaling"
fi
if [ ! -e "$DIR/.skeinhw-bench-scaling" ]; then
    echo "bench-scaling.sh: $DIR was not made by this script (no .skeinhw-bench-scaling in it);" \
        "give a DIR that does not exist yet" >&2
    exit 2
fi
make() { # name MiB
    [ "$(stat -c %s "$DIR/$1" 2>/dev/null || echo 0)" = $(($2 << 20)) ] && return
    head -c $(($2 << 20)) /dev/urandom > "$DIR/$1.part" && mv "$DIR/$1.part" "$DIR/$1"
}
make tree.bin "$TREE_MIB"
i=1
while [ "$i" -le "$FILES" ]; do make "f$i.bin" "$FILE_MIB"; i=$((i + 1)); done
for f in "$DIR"/tree.bin "$DIR"/f*.bin; do dd if="$f" iflag=nocache count=0 status=none; done
cat "$DIR"/tree.bin "$DIR"/f*.bin > /dev/null

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $CPUS CPUs;" \
    "$(grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ')$(grep -qw avx2 /proc/cpuinfo && echo avx2)"
echo "kernel: $(uname -r); binary: $BIN; best of $RUNS; jobs:$JOBS"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$BIN" "$DIR" "$OUT" "$RUNS" "$FILES" "$JOBS" <<'PY'
import os, subprocess, sys, time
binary, d, out, runs, files = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
jobs = sorted({int(j) for j in sys.argv[6].split()})
tree_file = f"{d}/tree.bin"
many = [f"{d}/f{i}.bin" for i in range(1, files + 1)]

def run(args, env):
    """Wall, user and system seconds of one run; its standard output."""
    t = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, env=env)
    stdout = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(args)}: exit status {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime, usage.ru_stime, stdout, usage.ru_minflt, usage.ru_nvcsw

def best(args, lanes):
    env = dict(os.environ)
    if lanes:
        env["SKEINHW_LANES"] = lanes
    else:
        env.pop("SKEINHW_LANES", None)
    results = [run(args, env) for _ in range(runs)]
    outputs = {r[3] for r in results}
    if len(outputs) != 1:
        sys.exit(f"{' '.join(args)}: the digests differ between runs")
    return min(results, key=lambda r: r[0])

ways = [
    ("tree, detected lanes, mapped", None, ["--tree", "5,2,255"], tree_file),
    ("tree, detected lanes, read", None, ["--tree", "5,2,255", "--no-mmap"], tree_file),
    ("tree, scalar lanes, mapped", "scalar", ["--tree", "5,2,255"], tree_file),
    ("tree, scalar lanes, read", "scalar", ["--tree", "5,2,255", "--no-mmap"], tree_file),
    (f"{files} files, detected lanes", None, [], many),
]
rows, digests = [], {}
print(f"{'way':34} {'jobs':>4} {'wall s':>8} {'user s':>8} {'sys s':>7} {'speed-up':>8} "
      f"{'effic.':>7} {'growth':>7} {'busy':>6} {'faults':>8} {'waits':>7}")
for name, lanes, opts, inputs in ways:
    first = None
    for n in jobs:
        args = [binary, "hash", *opts, "--jobs", str(n)]
        args += inputs if isinstance(inputs, list) else [inputs]
        wall, user, sys_t, stdout, faults, waits = best(args, lanes)
        key = "tree" if name.startswith("tree") else "files"
        if digests.setdefault(key, stdout) != stdout:
            sys.exit(f"{name}, --jobs {n}: digests differ from the first run's")
        cpu = user + sys_t
        if first is None:
            first = (wall, cpu)
        speedup = first[0] / wall
        growth = cpu / first[1]
        busy = (cpu / (n * wall)) / (first[1] / first[0])
        rows.append((name, n, wall, user, sys_t, speedup, speedup / n, growth, busy, faults, waits))
        print(f"{name:34} {n:>4} {wall:8.3f} {user:8.3f} {sys_t:7.3f} {speedup:8.2f} "
              f"{speedup / n:7.0%} {growth:7.2f} {busy:6.0%} {faults:>8} {waits:>7}", flush=True)

os.makedirs(out, exist_ok=True)
with open(f"{out}/scaling.csv", "w") as f:
    f.write("way,jobs,wall_s,user_s,sys_s,speedup,efficiency,cpu_growth,busy_ratio,"
            "minor_faults,voluntary_switches\n")
    for r in rows:
        f.write(f"{r[0]},{r[1]},{r[2]:.4f},{r[3]:.4f},{r[4]:.4f},{r[5]:.4f},{r[6]:.4f},"
                f"{r[7]:.4f},{r[8]:.4f},{r[9]},{r[10]}\n")

# Speed-up against jobs, both on log2 axes.
import math
w, h, left, top, right, bottom = 640, 420, 60, 40, 230, 50
top_n = max(jobs)
span = max(1.0, math.log2(top_n))
x = lambda n: left + (w - left - right) * math.log2(n) / span
y = lambda s: h - bottom - (h - top - bottom) * math.log2(max(s, 0.5) / 0.5) / (span + 1)
colours = ["#1f77b4", "#9ecae1", "#d62728", "#fc9272", "#2ca02c"]
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
       f'<text x="{left}" y="20" font-size="14">skeinhw hash: speed-up against --jobs ({os.cpu_count()} CPUs)</text>']
for n in jobs:
    svg.append(f'<line x1="{x(n):.1f}" y1="{top}" x2="{x(n):.1f}" y2="{h - bottom}" stroke="#eee"/>')
    svg.append(f'<text x="{x(n):.1f}" y="{h - bottom + 16}" text-anchor="middle">{n}</text>')
for s in [2 ** k for k in range(0, int(span) + 1)]:
    svg.append(f'<text x="{left - 8}" y="{y(s) + 4:.1f}" text-anchor="end">{s}x</text>')
svg.append(f'<text x="{(left + w - right) / 2}" y="{h - 10}" text-anchor="middle">jobs</text>')
for label, factor, dash in [("ideal", 1.0, "2,3"), ("75% goal", 0.75, "6,4")]:
    pts = " ".join(f"{x(n):.1f},{y(n * factor):.1f}" for n in jobs)
    svg.append(f'<polyline points="{pts}" fill="none" stroke="#888" stroke-dasharray="{dash}"/>')
ways_seen = []
for r in rows:
    if r[0] not in ways_seen:
        ways_seen.append(r[0])
for k, name in enumerate(ways_seen + ["ideal", "75% goal"]):
    ly = top + 18 * k
    colour = colours[k] if k < len(ways_seen) else "#888"
    dash = {"ideal": "2,3", "75% goal": "6,4"}.get(name, "none")
    svg.append(f'<line x1="{w - right + 10}" y1="{ly}" x2="{w - right + 30}" y2="{ly}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>')
    svg.append(f'<text x="{w - right + 36}" y="{ly + 4}">{name}</text>')
for k, name in enumerate(ways_seen):
    pts = " ".join(f"{x(r[1]):.1f},{y(r[5]):.1f}" for r in rows if r[0] == name)
    svg.append(f'<polyline points="{pts}" fill="none" stroke="{colours[k]}" stroke-width="2"/>')
svg.append("</svg>")
with open(f"{out}/scaling.svg", "w") as f:
    f.write("\n".join(svg) + "\n")
print(f"wrote {out}/scaling.csv and {out}/scaling.svg")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
