"""The flows: what one point runs, in a worker, on its own temporary directory.

``v5-netlist``: Yosys ``synth_xilinx -family xc5v -flatten`` with the script ``skeinhw
estimate --synth`` runs, the netlist read and timed by the estimator's netlist path.
``ecp5``: Yosys ``synth_ecp5`` and nextpnr-ecp5 (an LFE5UM-85F, out of context, with the
point's placer/router arguments and seed). ``fake``: a deterministic function of the model's
estimate (for tests and for Ray's overhead; ``--sleep S`` makes it take S seconds).

:func:`run_job` never raises for a tool's failure: a failure, a time-out or an out-of-memory
kill is a result (status, reason, log tail), because a design that does not route is data.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from . import tools as toolmod

TOP = "skeinhw"
ECP5_DEVICE = ["--um-85k", "--package", "CABGA381", "--speed", "6"]
ECP5_BASE = ECP5_DEVICE + ["--out-of-context", "--freq", "100", "--timing-allow-fail",
                           "--threads", "1"]
UNPLACEABLE = "Unable to find legal placement for all cells"
OOM_WORDS = ("out of memory", "std::bad_alloc", "MemoryError", "Cannot allocate memory")
LOG_TAIL_LINES = 20


@dataclass(frozen=True)
class FlowSpec:
    """What the driver needs to know of a flow before running it."""

    name: str
    tools: tuple[str, ...]
    seeded: bool
    num_cpus: float
    memory: int  # bytes Ray reserves for one point


FLOWS = {
    "v5-netlist": FlowSpec("v5-netlist", ("yosys",), False, 1, 1 << 30),
    "ecp5": FlowSpec("ecp5", ("yosys", "nextpnr-ecp5"), True, 1, 2 << 30),
    "fake": FlowSpec("fake", (), True, 1, 64 << 20),
}


def seeded() -> dict[str, bool]:
    return {name: f.seeded for name, f in FLOWS.items()}


def command_lines(flow: str, flow_args: list[str], seed: int | None) -> list[list[str]]:
    """The exact command lines of a point (recorded, and part of its key); file names are
    the work directory's own, relative."""
    if flow == "v5-netlist":
        from .. import _native

        return [["yosys", "-q", "-l", "netlist.json.log", "-p",
                 _native.yosys_script(["skeinhw.v"], TOP, "netlist.json")]]
    if flow == "ecp5":
        return [
            ["yosys", "-q", "-l", "ecp5-yosys.log", "-p",
             f"read_verilog skeinhw.v; synth_ecp5 -top {TOP} -json ecp5.json"],
            ["nextpnr-ecp5", *ECP5_BASE, "--seed", str(seed), *flow_args,
             "--json", "ecp5.json", "--report", "ecp5-report.json"],
        ]
    return [["fake", *flow_args, "--seed", str(seed)]]


class ToolFailed(Exception):
    """A point that ended without its figures (or with some: a design that does not fit)."""

    def __init__(self, status: str, reason: str, log: str, figures: dict | None = None):
        super().__init__(reason)
        self.status, self.reason, self.log = status, reason, log
        self.figures = figures or {}


def tail(text: str) -> str:
    return "\n".join(text.splitlines()[-LOG_TAIL_LINES:])


def run_tool(argv: list[str], cwd: str, log_name: str, deadline: float) -> str:
    """Runs one tool in ``cwd`` until ``deadline``; returns its log, raises :class:`ToolFailed`."""
    log_path = os.path.join(cwd, log_name)
    left = deadline - time.monotonic()
    if left <= 0:
        raise ToolFailed("timeout", f"time limit reached before {os.path.basename(argv[0])}", "")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=die_with_parent)
        try:
            code = proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            text = read(log_path)
            raise ToolFailed("timeout", f"{os.path.basename(argv[0])} passed the time limit",
                             text) from None
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
    text = read(log_path)
    for extra in (os.path.join(cwd, n) for n in ("netlist.json.log", "ecp5-yosys.log")):
        if extra != log_path and os.path.exists(extra) and argv[0].endswith("yosys"):
            text += read(extra)
    if code != 0:
        name = os.path.basename(argv[0])
        if code in (-signal.SIGKILL, 137) or any(w in text for w in OOM_WORDS):
            raise ToolFailed("oom", f"{name} ran out of memory (exit {code})", text)
        first = next((ln.strip() for ln in text.splitlines() if ln.startswith("ERROR")), "")
        raise ToolFailed("failed", f"{name} failed (exit {code}) {first}".strip(), text)
    return text


def die_with_parent() -> None:
    """Linux: the tool is killed when its worker dies (a node lost mid-point leaves no orphan
    running)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def read(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Runs one point (``job`` from the driver: Verilog, schedule JSON, flow, arguments,
    seed, time limit, tool kind) and returns its result record's measured part."""
    start = time.monotonic()
    result: dict[str, Any] = {"node": node_name(), "figures": {}, "reason": "", "log_tail": ""}
    with tempfile.TemporaryDirectory(prefix="skeinhw-explore-") as work:
        try:
            result["figures"] = FLOW_RUNNERS[job["flow"]](job, work,
                                                          start + job["time_limit_s"])
            result["status"] = "ok"
        except ToolFailed as e:
            result.update(status=e.status, reason=e.reason, log_tail=tail(e.log),
                          figures=e.figures)
    result["wall_s"] = round(time.monotonic() - start, 3)
    return result


def node_name() -> str:
    try:
        import ray

        if ray.is_initialized():
            return f"{socket.gethostname()}/{ray.get_runtime_context().get_node_id()[:12]}"
    except Exception:  # noqa: BLE001 - outside Ray, the host name alone
        pass
    return socket.gethostname()


def program(job: dict[str, Any], tool: str) -> str:
    kind = job["tool_kind"][tool]
    prog = toolmod.find(tool, kind)
    if prog is None:
        raise ToolFailed("failed", f"{tool} not found on this node ({kind})", "")
    return prog


def v5_netlist(job: dict[str, Any], work: str, deadline: float) -> dict[str, Any]:
    from .. import Schedule, _native

    with open(os.path.join(work, "skeinhw.v"), "w") as f:
        f.write(job["verilog"])
    argv = job["commands"][0]
    run_tool([program(job, "yosys"), *argv[1:]], work, "yosys.out", deadline)
    n = json.loads(_native.netlist_estimate(
        os.path.join(work, "netlist.json"), schedule=Schedule.from_json(job["schedule_json"]),
        top=TOP))
    cp = n["critical_path"]
    return {
        "luts": n["luts"],
        "ffs": n["ffs"],
        "lut_ff_pairs": n["lut_ff_pairs"],
        "slices": n["slices"],
        "area": n["slices"],
        "period_ns": round(n["period_ns"], 4),
        "freq_mhz": round(n["freq_mhz"], 3),
        "throughput_mbps": round(n["throughput_mbps"], 3),
        "carry4": n["cells"].get("carry4"),
        "cycles_per_block": n.get("cycles_per_block"),
        "blocks_in_flight": n.get("blocks_in_flight"),
        "block_latency_cycles": n.get("block_latency_cycles"),
        "path_lut_depth": cp.get("lut_depth"),
        "path_carry_chains": cp.get("carry_chains"),
        "path": f"{cp.get('from')} -> {cp.get('to')}",
    }


def ecp5(job: dict[str, Any], work: str, deadline: float) -> dict[str, Any]:
    with open(os.path.join(work, "skeinhw.v"), "w") as f:
        f.write(job["verilog"])
    synth, pnr = job["commands"]
    run_tool([program(job, "yosys"), *synth[1:]], work, "yosys.out", deadline)
    cells: dict[str, int] = {}
    for c in json.load(open(os.path.join(work, "ecp5.json")))["modules"][TOP]["cells"].values():
        cells[c["type"]] = cells.get(c["type"], 0) + 1
    try:
        run_tool([program(job, "nextpnr-ecp5"), *pnr[1:]], work, "nextpnr.log", deadline)
    except ToolFailed as e:
        if UNPLACEABLE in e.log:
            # Data, not a fault: the core needs more logic cells than the device has.
            comb = re.search(r"TRELLIS_COMB:\s*(\d+)/\s*(\d+)", e.log)
            used = {"comb_used": int(comb.group(1)), "comb_available": int(comb.group(2))} \
                if comb else {}
            raise ToolFailed("failed", "does not fit: " + UNPLACEABLE, e.log,
                             {"fits": False, "lut4": cells.get("LUT4", 0),
                              "ccu2c": cells.get("CCU2C", 0), "ffs": cells.get("TRELLIS_FF", 0),
                              "pfumx": cells.get("PFUMX", 0) + cells.get("L6MUX21", 0),
                              **used}) from None
        raise
    rep = json.load(open(os.path.join(work, "ecp5-report.json")))
    clk = [v for k, v in rep.get("fmax", {}).items() if "clk" in k]
    if not clk:
        raise ToolFailed("failed", "nextpnr reported no fmax for clk", read(
            os.path.join(work, "nextpnr.log")))
    util = rep.get("utilization", {})
    comb = util.get("TRELLIS_COMB", {}).get("used") or 0
    ff = util.get("TRELLIS_FF", {}).get("used") or 0
    fmax = clk[0]["achieved"]
    slices = max(math.ceil(comb / 2), math.ceil(ff / 2))
    return {
        "lut4": cells.get("LUT4", 0),
        "ccu2c": cells.get("CCU2C", 0),
        "ffs": cells.get("TRELLIS_FF", 0),
        "pfumx": cells.get("PFUMX", 0) + cells.get("L6MUX21", 0),
        "comb_used": comb,
        "ff_used": ff,
        "slices": slices,
        "area": slices,
        "fmax_mhz": round(fmax, 3),
        "throughput_mbps": round(fmax * job["mbps_per_mhz"], 3),
    }


def fake(job: dict[str, Any], work: str, deadline: float) -> dict[str, Any]:
    """The model's area and throughput, scaled (1.3x, 0.8x) and perturbed by up to 3% by a
    hash of the Verilog and seed: a deterministic stand-in for a real flow."""
    args = list(job["flow_args"])
    sleep = float(args[args.index("--sleep") + 1]) if "--sleep" in args else 0.0
    if sleep:
        time.sleep(min(sleep, max(0.0, deadline - time.monotonic())))
        if time.monotonic() >= deadline:
            raise ToolFailed("timeout", "fake passed the time limit", "")
    h = hashlib.sha256((job["verilog"] + str(job["seed"])).encode()).digest()
    a = 1.3 * (1 + (h[0] / 255 - 0.5) * 0.06)
    t = 0.8 * (1 + (h[1] / 255 - 0.5) * 0.06)
    model = job["model"]
    return {
        "area": round(model["area"] * a),
        "slices": round(model["area"] * a),
        "throughput_mbps": round(model["throughput_mbps"] * t, 3),
    }


FLOW_RUNNERS = {"v5-netlist": v5_netlist, "ecp5": ecp5, "fake": fake}


def check_args(flow: str, flow_args: list[str]) -> None:
    """Flow arguments the flow cannot take are the user's error, found before any run."""
    from .errors import ExploreError

    if flow == "v5-netlist" and flow_args:
        raise ExploreError(f"--flow-args {' '.join(flow_args)}: v5-netlist takes none")
    if flow == "fake" and flow_args and not re.fullmatch(r"(--sleep [0-9.]+)?",
                                                         " ".join(flow_args)):
        raise ExploreError(f"--flow-args {' '.join(flow_args)}: fake takes --sleep S only")
