#!/usr/bin/env bash
# `skeinhw explore`'s scaling on this machine (a benchmark, not a test):
#   1. Ray's overhead per point: N no-op points (the `fake` flow, no sleep) as Ray tasks on a
#      local Ray of 1 CPU, against the same points run in-process (--serial); Ray's start is
#      not counted.
#   2. Points per hour of real flows (256-bit lean cores, Yosys synth_xilinx -family xc5v, the
#      system Yosys) with 1 and with 2 workers (--num-cpus 1, 2), and the speed-up.
# Needs target/venv with skeinhw[explore] (scripts/test.d/30-python.sh installs it).
# Usage: scripts/bench-explore.sh [NOOP_POINTS (60)] [REAL_POINTS (4; 0: none)]
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${SKEINHW_PYTHON:-target/venv/bin/python}"
NOOP="${1:-60}"
REAL="${2:-4}"
export RAY_USAGE_STATS_ENABLED=0
WORK=$(mktemp -d /tmp/bench-explore.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

"$PY" - "$NOOP" "$REAL" "$WORK" <<'PYEOF'
import subprocess, sys, time
import skeinhw
from skeinhw.explore import engine, flows
from skeinhw.explore.prepare import Preparer
from skeinhw.explore.study import Grid

noop, real, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
names = [s.name for s in skeinhw.Schedule.presets() if s.algorithm == "skein"]
seeds = list(range(1, noop // len(names) + 2))
points = Grid(schedules=names, flows=["fake"], seeds=seeds).points(flows.seeded())[:noop]
prep = Preparer("auto", 60)
jobs = [prep.job(p) for p in points]
sink = lambda job, result: None

engine.run_serial(jobs[:2], sink, False)  # imports done
t = time.perf_counter()
engine.run_serial(jobs, sink, False)
serial = time.perf_counter() - t
engine.connect(None, 1)
engine.run_ray(jobs[:2], sink, 0, False)  # workers started, code shipped
t = time.perf_counter()
engine.run_ray(jobs, sink, 0, False)
on_ray = time.perf_counter() - t
engine.shutdown()
print(f"no-op points: {len(jobs)}; in-process {serial / len(jobs) * 1000:.1f} ms/point, "
      f"Ray (1 CPU) {on_ray / len(jobs) * 1000:.1f} ms/point: Ray's overhead "
      f"{(on_ray - serial) / len(jobs) * 1000:.1f} ms/point")

six = ["long-iter-256", "long-ks1-256", "long-outshare-256", "long-inshare-256",
       "long-split-256", "long-overlap-256"][:real]
rate = {}
for cpus in (1, 2) if six else ():
    args = [sys.executable, "-m", "skeinhw.explore", "--no-progress", "--yosys", "system",
            "--flow", "v5-netlist", "--core", "lean", "--num-cpus", str(cpus),
            "--out", f"{work}/real{cpus}"]
    for s in six:
        args += ["--schedule", s]
    t = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    wall = time.perf_counter() - t
    rate[cpus] = len(six) / wall * 3600
    print(f"{len(six)} real points (v5-netlist, 256-bit lean), {cpus} worker(s): {wall:.1f} s "
          f"with Ray's start, {rate[cpus]:.0f} points/hour")
if rate:
    print(f"speed-up with 2 workers: {rate[2] / rate[1]:.2f}x")
PYEOF
