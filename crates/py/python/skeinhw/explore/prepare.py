"""From points to jobs, in the driver: each point's schedule is built and checked, its
Verilog generated, the model's estimate taken, its command lines and tool versions fixed,
and its key (:func:`store.point_key`) computed. Everything the user can get wrong fails here,
before any tool runs or the store is touched."""

from __future__ import annotations

import json
import os
from typing import Any

from . import flows, tools
from .errors import ExploreError
from .store import point_key
from .study import Point


def schedule_of(point: Point):
    """The point's schedule with its ``--set`` fields (preset name, ``preset+field=value,...``
    or a JSON file)."""
    from .. import Schedule

    name, sets = point.schedule, list(point.sets)
    if not os.path.exists(name) and "+" in name:
        # `preset+field=value,...`: the name `skeinhw rtl --set` gives a what-if.
        name, _, fields = name.partition("+")
        sets = [f for f in fields.split(",") if f] + sets
    try:
        if os.path.exists(name):
            with open(name) as f:
                base = Schedule.from_json(f.read())
        else:
            base = Schedule.preset(name)
    except (ValueError, OSError) as e:
        raise ExploreError(f"--schedule {point.schedule}: {one_line(e)}") from None
    if base.algorithm != "skein":
        raise ExploreError(f"--schedule {point.schedule}: the flows take Skein schedules only")
    try:
        return base.with_set(sets)
    except ValueError as e:
        raise ExploreError(f"--set {','.join(sets)} on {name}: {one_line(e)}") from None


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


def model_figures(schedule) -> dict[str, Any]:
    """The estimator's figures for a schedule (Virtex-5, ISE 13 delays; the full core)."""
    from .. import _native

    e = json.loads(_native.model_estimate(schedule))
    return {
        "area": e["slices"],
        "slices": e["slices"],
        "luts": e["luts"],
        "ffs": e["ffs"],
        "period_ns": round(e["period_ns"], 4),
        "throughput_mbps": round(e["throughput_mbps"], 3),
    }


class Preparer:
    """Makes jobs; tool versions are looked up once per flow."""

    def __init__(self, tool_kind: str, time_limit_s: float):
        self.tool_kind = tool_kind
        self.time_limit_s = time_limit_s
        self._versions: dict[str, dict[str, str]] = {}
        self._kind: dict[str, dict[str, str]] = {}

    def tools_for(self, flow: str) -> tuple[dict[str, str], dict[str, str]]:
        """The kind of each tool of ``flow`` (``--yosys`` names Yosys's; nextpnr is YoWASP's
        when installed) and their version lines."""
        if flow not in self._versions:
            kinds = {t: tools.resolve_kind(self.tool_kind if t == "yosys" else "auto", [t])
                     for t in flows.FLOWS[flow].tools}
            self._kind[flow] = kinds
            self._versions[flow] = tools.versions(kinds)
        return self._kind[flow], self._versions[flow]

    def job(self, point: Point) -> dict[str, Any]:
        from .. import _native

        flows.check_args(point.flow, list(point.flow_args))
        schedule = schedule_of(point)
        verilog = _native.design_verilog(schedule, lean=point.core == "lean")
        model = model_figures(schedule)
        e = json.loads(_native.model_estimate(schedule))
        kind, versions = self.tools_for(point.flow)
        commands = flows.command_lines(point.flow, list(point.flow_args), point.seed)
        return {
            "key": point_key(verilog, point.flow, versions, [" ".join(c) for c in commands],
                             point.seed),
            "point": point.as_dict(),
            "label": point.label(),
            "schedule_name": schedule.name,
            "schedule_json": schedule.to_json(),
            "verilog": verilog,
            "flow": point.flow,
            "flow_args": list(point.flow_args),
            "seed": point.seed,
            "commands": commands,
            "tools": versions,
            "tool_kind": kind,
            "time_limit_s": self.time_limit_s,
            "model": model,
            "mbps_per_mhz": e["throughput_mbps"] / e["clock_mhz"],
        }
