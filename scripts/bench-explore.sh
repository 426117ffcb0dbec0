#!/usr/bin/env bash
# `skeinhw explore`'s scaling on this machine (a benchmark, not a test):
#   1. Ray's overhead per point: N no-op points (the `fake` flow, no sleep) as Ray tasks on a
#      local Ray of 1 CPU, against the same points run in-process (--serial); Ray's start is
#      not counted.
#   2. Points per hour of real flows (256-bit lean cores: Long's six designs, then each again
#      with subkey 0 in a cycle of its own; Yosys synth_xilinx -family xc5v, the system Yosys)
#      with 1 and with 2 workers (a local Ray of 1 and 2 CPUs), and the speed-up: with Ray's
#      start (ray.init, about 5 s) counted and without it.
# Run it on an idle machine (the figures are wall times). Needs target/venv with
# skeinhw[explore] (scripts/test.d/30-python.sh installs it).
# Usage: scripts/bench-explore.sh [NOOP_POINTS (60)] [REAL_POINTS (12, at most 12; 0: none)]
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${SKEINHW_PYTHON:-target/venv/bin/python}"
NOOP="${1:-60}"
REAL="${2:-12}"
export RAY_USAGE_STATS_ENABLED=0
WORK=$(mktemp -d /tmp/bench-explore.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

"$PY" - "$NOOP" "$REAL" "$WORK" <<'PYEOF'
import json, subprocess, sys, time
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

long = ["long-iter-256", "long-ks1-256", "long-outshare-256", "long-inshare-256",
        "long-split-256", "long-overlap-256"]
design = (long + [f"{d}+first_subkey_cycle=true" for d in long])[:real]
# One study per worker count, in its own process (a fresh Ray each): ray.init's time is
# measured apart from the points'.
STUDY = """
import json, sys, time
from skeinhw.explore import engine, flows
from skeinhw.explore.prepare import Preparer
from skeinhw.explore.study import Grid
cpus, names = int(sys.argv[1]), sys.argv[2:]
points = Grid(schedules=names, flows=["v5-netlist"]).points(flows.seeded())
jobs = [Preparer("system", 3600).job(p) for p in points]
t0 = time.perf_counter()
engine.connect(None, cpus)
t1 = time.perf_counter()
engine.run_ray(jobs, lambda job, result: None, 0, False)
t2 = time.perf_counter()
engine.shutdown()
print(json.dumps({"start": t1 - t0, "points": t2 - t1}))
"""
rate, bare = {}, {}
for cpus in (1, 2) if design else ():
    out = subprocess.run([sys.executable, "-c", STUDY, str(cpus), *design], check=True,
                         capture_output=True, text=True).stdout
    t = json.loads(out.strip().splitlines()[-1])
    wall = t["start"] + t["points"]
    rate[cpus] = len(design) / wall * 3600
    bare[cpus] = len(design) / t["points"] * 3600
    print(f"{len(design)} real points (v5-netlist, 256-bit lean), {cpus} worker(s): "
          f"{wall:.1f} s with Ray's start ({t['start']:.1f} s), {rate[cpus]:.0f} points/hour; "
          f"{t['points']:.1f} s without it, {bare[cpus]:.0f} points/hour")
if rate:
    print(f"speed-up with 2 workers: {rate[2] / rate[1]:.2f}x with Ray's start, "
          f"{bare[2] / bare[1]:.2f}x without it")
PYEOF
