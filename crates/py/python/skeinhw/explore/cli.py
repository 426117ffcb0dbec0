"""``skeinhw explore``: the command line.

    skeinhw explore --schedule long-iter-256 --schedule long-split-256 \\
        --set first_subkey_cycle=false,true --core lean,full --flow v5-netlist --out study1
    skeinhw explore --study study.toml --address auto --out study1
    skeinhw explore --study study.toml --guided --out study1
    skeinhw explore table --store study1    # the ECP5 rows and README table (see tablecmd)

Exit status: 0 when the study ran (a tool's failure is a record, not an error), 2 on bad input
(one line naming the thing; nothing written), 130 after Ctrl-C (the store consistent: run the
same command again to resume).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import shutil
import sys
from typing import Any, Sequence

from . import engine, flows, guided, report, store as storemod, study, tools
from .errors import ExploreError

PROG = "skeinhw explore"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Design-space studies with real "
                                "synthesis on Ray: resumable, fault-tolerant, model-guided.",
                                epilog="skeinhw explore table --store DIR: the README's ECP5 "
                                "table and its rows (results.json) from a store (table --help)")
    g = p.add_argument_group("the study (a grid; or --study FILE)")
    g.add_argument("--study", metavar="FILE", help="study file (TOML or JSON), copied into --out")
    g.add_argument("--schedule", action="append", default=[], metavar="NAME|FILE.json",
                   help="a preset or schedule JSON file (repeat for more)")
    g.add_argument("--set", action="append", default=[], metavar="FIELD=V1,V2",
                   help="a schedule field and its values (repeat for more fields)")
    g.add_argument("--core", default=None, metavar="full,lean", help="core styles (default lean)")
    g.add_argument("--flow", default=None, metavar="FLOW,...",
                   help=f"flows: {', '.join(flows.FLOWS)} (default v5-netlist)")
    g.add_argument("--flow-args", action="append", default=None, metavar="ARGS",
                   help="extra arguments of the flow (nextpnr's placer/router; repeat for "
                        "alternatives)")
    g.add_argument("--seeds", default=None, metavar="1,2,3", help="seeds (flows that take one)")
    r = p.add_argument_group("running")
    r.add_argument("--out", default="explore-out", metavar="DIR",
                   help="study directory: results.jsonl, the study, front.md, pareto.svg")
    r.add_argument("--address", default=None, metavar="auto|HOST:PORT|ray://HOST:PORT",
                   help="an existing Ray cluster (default: a Ray started here)")
    r.add_argument("--num-cpus", type=int, default=None, metavar="N",
                   help="CPUs of the Ray started here (default: all); with no --address")
    r.add_argument("--serial", action="store_true", help="run in this process, without Ray")
    r.add_argument("--yosys", choices=tools.KINDS, default="auto",
                   help="Yosys from YoWASP (PyPI) or the system (default: YoWASP if installed; "
                        "nextpnr is YoWASP's when installed, else the system's)")
    r.add_argument("--time-limit", type=float, default=3600.0, metavar="S",
                   help="per-point time limit, seconds (default 3600)")
    r.add_argument("--max-retries", type=int, default=3, metavar="N",
                   help="runs again of a point whose worker died (default 3)")
    r.add_argument("--retry-failed", action="store_true",
                   help="run again the points recorded failed, timeout or oom")
    r.add_argument("--guided", action="store_true",
                   help="run only the points the model places on the front, in rounds")
    r.add_argument("--compare", metavar="DIR",
                   help="with --guided: the full grid's study directory; say whether the "
                        "guided search found its measured front")
    r.add_argument("--list", action="store_true", help="list the points and their keys; run none")
    r.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    return p


def grid_of(a: argparse.Namespace) -> study.Grid:
    g = study.load_study(a.study) if a.study else study.Grid()
    g.schedules += a.schedule
    for s in a.set:
        name, values = study.parse_set(s)
        g.sets[name] = values
    if a.core:
        g.cores = study.split_list(a.core, "--core")
    if a.flow:
        g.flows = study.split_list(a.flow, "--flow")
    if a.flow_args is not None:
        g.flow_args = a.flow_args
    if a.seeds:
        g.seeds = study.parse_seeds(a.seeds)
    return g


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["table"]:
        from . import tablecmd

        return tablecmd.main(argv[1:])
    a = parser().parse_args(argv)
    try:
        return run(a)
    except ExploreError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted; the store is consistent: run the same command to resume",
              file=sys.stderr)
        return 130
    finally:
        engine.shutdown()


def run(a: argparse.Namespace) -> int:
    from .prepare import Preparer

    if a.serial and a.address:
        raise ExploreError("--serial runs without Ray: drop --address")
    if a.num_cpus is not None and (a.address or a.num_cpus < 1):
        raise ExploreError("--num-cpus N (N >= 1) sizes the Ray started here: drop --address")
    if a.time_limit <= 0 or a.max_retries < 0:
        raise ExploreError("--time-limit must be positive and --max-retries not negative")
    g = grid_of(a)
    points = g.points(flows.seeded())
    st = storemod.Store.open(a.out)
    prep = Preparer(a.yosys, a.time_limit)
    jobs = [prep.job(p) for p in points]

    def done(key: str) -> bool:
        rec = st.get(key)
        return rec is not None and not (a.retry_failed and rec["status"] != "ok")

    if a.list:
        for j in jobs:
            rec = st.get(j["key"])
            print(f"{j['key'][:16]} {rec['status'] if rec else 'todo':8} {j['label']}")
        return 0
    if not a.serial and any(not done(j["key"]) for j in jobs):
        engine.connect(a.address, a.num_cpus)  # only when there is work: a rerun starts nothing
    st.lock()
    keep_study(a, g)
    if st.torn:
        print(f"{PROG}: {st.path}: a torn last line (an interrupted write) is ignored",
              file=sys.stderr)

    def on_result(job: dict[str, Any], result: dict[str, Any]) -> None:
        st.append(record(job, result))

    def run_jobs(batch: list[dict[str, Any]]) -> None:
        todo = [j for j in batch if not done(j["key"])]
        if not todo:
            return
        if a.serial:
            engine.run_serial(todo, on_result, not a.no_progress)
        else:
            engine.run_ray(todo, on_result, a.max_retries, not a.no_progress)

    summary = None
    if a.guided:
        measured = {j["key"]: st.get(j["key"]) for j in jobs if done(j["key"])}

        def guided_run(batch):
            run_jobs(batch)
            measured.update({j["key"]: st.get(j["key"]) for j in batch})

        summary = guided.search(jobs, measured, guided_run)
        if a.compare:
            summary["compare"] = compare(jobs, storemod.Store.open(a.compare), summary)
    else:
        run_jobs(jobs)
    write_report(a.out, jobs, st, summary)
    return 0


def keep_study(a: argparse.Namespace, g: study.Grid) -> None:
    """The study beside its results: the file as given, or the command line's grid as JSON."""
    os.makedirs(a.out, exist_ok=True)
    if a.study:
        ext = ".toml" if a.study.endswith(".toml") else ".json"
        dest = os.path.join(a.out, "study" + ext)
        if os.path.abspath(a.study) != os.path.abspath(dest):
            shutil.copyfile(a.study, dest)
    with open(os.path.join(a.out, "grid.json"), "w") as f:
        json.dump(g.as_dict(), f, indent=2)
        f.write("\n")


def record(job: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The store record of a finished job (see :mod:`.store`)."""
    return {
        "key": job["key"],
        "point": job["point"],
        "label": job["label"],
        "schedule_name": job["schedule_name"],
        "verilog_sha256": hashlib.sha256(job["verilog"].encode()).hexdigest(),
        "tools": job["tools"],
        "args": job["commands"],
        "time_limit_s": job["time_limit_s"],
        "status": result["status"],
        "reason": result["reason"],
        "log_tail": result["log_tail"],
        "figures": result["figures"],
        "model": job["model"],
        "wall_s": result["wall_s"],
        "node": result["node"],
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def write_report(out: str, jobs: list[dict[str, Any]], st: storemod.Store,
                 summary: dict[str, Any] | None) -> None:
    records = [st.get(j["key"]) for j in jobs if st.get(j["key"]) is not None]
    rows = report.measured_rows(records)
    table = report.front_table(rows)
    failed = [r for r in records if r["status"] != "ok"]
    with open(os.path.join(out, "front.md"), "w") as f:
        f.write(table)
    with open(os.path.join(out, "pareto.svg"), "w") as f:
        f.write(report.pareto_svg(rows))
    print(table, end="")
    print(f"{len(records)} of {len(jobs)} points in {st.path} ({len(failed)} not ok); "
          f"front.md and pareto.svg in {out}")
    for r in failed:
        print(f"  {r['status']}: {r['label']}: {r['reason']}")
    if summary is not None:
        with open(os.path.join(out, "guided.json"), "w") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")
        print(f"guided: {summary['real_runs']} real runs ({summary['reused']} reused from the "
              f"store) of {summary['candidates']} candidates ({summary['designs']} distinct "
              f"designs), {len(summary['rounds'])} rounds")
        c = summary.get("compare")
        if c:
            print(f"guided vs the full grid ({c['grid_points']} points measured, "
                  f"{c['grid_missing']} missing): found {c['found']} of its {c['grid_front']} "
                  f"front points; same front: {'yes' if c['same_front'] else 'no'}")
            for label, gap in c["missed_by"].items():
                print(f"  missed {label}: the guided front's nearest point is {gap:.1%} short")
        for i, rd in enumerate(summary["rounds"], 1):
            print(f"  round {i}: {rd['runs']} runs; model error (area, throughput) raw "
                  f"{pct(rd['model_error_raw'])}, before refit {pct(rd['error_before_refit'])}, "
                  f"after {pct(rd['error_after_refit'])}; widest family band {rd['band']:.1%}; "
                  f"{rd['open']} candidates left that can be on the front")


def compare(jobs: list[dict[str, Any]], grid: storemod.Store,
            summary: dict[str, Any]) -> dict[str, Any]:
    """The guided front against the full grid's measured one (same keys, same figures)."""
    recs = [grid.get(j["key"]) for j in jobs]
    missing = sum(r is None for r in recs)
    rows = {r["key"]: r for r in report.measured_rows([r for r in recs if r])}
    front = {r["key"] for r in report.pareto(list(rows.values()))}
    found = front & set(summary["front"])
    mine = [rows[k] for k in summary["front"] if k in rows]
    return {"grid_points": len(jobs) - missing, "grid_missing": missing,
            "grid_front": len(front), "found": len(found), "missed": sorted(front - found),
            "missed_by": {rows[k]["label"]: round(shortfall(rows[k], mine), 4)
                          for k in sorted(front - found)},
            "same_front": not missing and found == front == set(summary["front"])}


def shortfall(point: dict[str, Any], front: list[dict[str, Any]]) -> float:
    """How far the nearest point of ``front`` falls short of ``point``: the larger of its
    excess area and missing throughput, relative (0: as good on both)."""
    gaps = [max(0.0, g["area"] / point["area"] - 1,
                point["throughput_mbps"] / g["throughput_mbps"] - 1) for g in front]
    return min(gaps, default=1.0)


def pct(e: dict[str, Any]) -> str:
    return "/".join("-" if v is None else f"{v:.1%}" for v in e.values())
