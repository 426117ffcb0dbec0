"""A study: the grid of points, from the command line or a study file (TOML or JSON).

A point is one real run: a schedule (preset name or JSON file) with ``--set`` fields, a core
(``full`` or ``lean``), a flow with its arguments, and a seed. The grid is the product of the
alternatives given; a flow that takes no seed (the Yosys netlist is deterministic) runs once
whatever the seeds.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
from dataclasses import dataclass, field
from typing import Any

from .errors import ExploreError

CORES = ("full", "lean")


@dataclass(frozen=True)
class Point:
    """One point of a study, before its Verilog is generated."""

    schedule: str
    sets: tuple[str, ...] = ()
    core: str = "lean"
    flow: str = "v5-netlist"
    flow_args: tuple[str, ...] = ()
    seed: int | None = None

    def label(self) -> str:
        """``preset+field=value,... lean v5-netlist seed 1``: how tables and logs name it."""
        name = os.path.basename(self.schedule)
        if self.sets:
            name += "+" + ",".join(self.sets)
        parts = [name, self.core, self.flow]
        if self.flow_args:
            parts.append(" ".join(self.flow_args))
        if self.seed is not None:
            parts.append(f"seed {self.seed}")
        return " ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule,
            "set": list(self.sets),
            "core": self.core,
            "flow": self.flow,
            "flow_args": list(self.flow_args),
            "seed": self.seed,
        }


@dataclass
class Grid:
    """The alternatives of a study; :meth:`points` is their product."""

    schedules: list[str] = field(default_factory=list)
    sets: dict[str, list[str]] = field(default_factory=dict)
    cores: list[str] = field(default_factory=lambda: ["lean"])
    flows: list[str] = field(default_factory=lambda: ["v5-netlist"])
    flow_args: list[str] = field(default_factory=lambda: [""])
    seeds: list[int] = field(default_factory=lambda: [1])
    # A schedule's own flow arguments for a flow, in place of ``flow_args`` (nextpnr's placer
    # and router for the designs its default flow does not route): schedule -> flow -> args.
    schedule_flow_args: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def points(self, seeded: "dict[str, bool]") -> list[Point]:
        """Every point, in grid order, without duplicates (``seeded[flow]``: takes a seed)."""
        if not self.schedules:
            raise ExploreError("no schedule: give --schedule NAME (or a study file)")
        for c in self.cores:
            if c not in CORES:
                raise ExploreError(f"--core {c}: expected full or lean")
        for f in self.flows:
            if f not in seeded:
                raise ExploreError(f"--flow {f}: unknown flow (known: {', '.join(seeded)})")
        fields = list(self.sets)
        combos = list(itertools.product(*(self.sets[f] for f in fields)))
        out: list[Point] = []
        seen = set()
        for sched, combo, core, flow in itertools.product(
            self.schedules, combos, self.cores, self.flows
        ):
            own = self.schedule_flow_args.get(sched, {}).get(flow)
            for args, seed in itertools.product(own or self.flow_args, self.seeds):
                p = Point(
                    schedule=sched,
                    sets=tuple(f"{f}={v}" for f, v in zip(fields, combo)),
                    core=core,
                    flow=flow,
                    flow_args=tuple(shlex.split(args)),
                    seed=seed if seeded[flow] else None,
                )
                if p not in seen:
                    seen.add(p)
                    out.append(p)
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "schedules": self.schedules,
            "set": self.sets,
            "cores": self.cores,
            "flows": self.flows,
            "flow_args": self.flow_args,
            "seeds": self.seeds,
            "schedule_flow_args": self.schedule_flow_args,
        }


def split_list(text: str, what: str) -> list[str]:
    items = [s.strip() for s in text.split(",") if s.strip()]
    if not items:
        raise ExploreError(f"{what} {text!r}: expected a comma-separated list")
    return items


def field_text(value) -> str:
    """A study file's field value as ``--set`` spells it: TOML/JSON booleans as ``true`` and
    ``false`` (Python's ``str`` gives ``True``, which the schedule refuses)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_set(text: str) -> tuple[str, list[str]]:
    """``--set field=v1,v2``: one field and its alternatives."""
    name, eq, values = text.partition("=")
    if not eq or not name.strip():
        raise ExploreError(f"--set {text}: expected FIELD=VALUE[,VALUE...]")
    return name.strip(), split_list(values, f"--set {name.strip()}=")


def parse_seeds(text: str) -> list[int]:
    try:
        return [int(s) for s in split_list(text, "--seeds")]
    except ValueError:
        raise ExploreError(f"--seeds {text}: expected integers, e.g. 1,2,3") from None


def load_study(path: str) -> Grid:
    """A study file: TOML or JSON with the keys of :meth:`Grid.as_dict` (``set`` maps a field
    to its values)."""
    try:
        raw = open(path, "rb").read()
    except OSError as e:
        raise ExploreError(f"{path}: cannot read the study file: {e.strerror}") from None
    try:
        if path.endswith(".toml"):
            import tomllib

            data = tomllib.loads(raw.decode())
        else:
            data = json.loads(raw)
    except Exception as e:  # noqa: BLE001 - any parse error is the file's
        raise ExploreError(f"{path}: not a valid study file: {e}") from None
    known = {"schedules", "set", "cores", "flows", "flow_args", "seeds", "schedule_flow_args"}
    unknown = set(data) - known
    if unknown:
        raise ExploreError(f"{path}: unknown key {sorted(unknown)[0]!r} (known: {sorted(known)})")
    g = Grid()
    g.schedules = [str(s) for s in data.get("schedules", [])]
    g.sets = {str(k): [field_text(v) for v in vs] for k, vs in data.get("set", {}).items()}
    g.cores = [str(c) for c in data.get("cores", g.cores)]
    g.flows = [str(f) for f in data.get("flows", g.flows)]
    g.flow_args = [str(a) for a in data.get("flow_args", g.flow_args)]
    g.seeds = [int(s) for s in data.get("seeds", g.seeds)]
    own = data.get("schedule_flow_args", {})
    if not isinstance(own, dict) or not all(isinstance(v, dict) for v in own.values()):
        raise ExploreError(f"{path}: schedule_flow_args: expected schedule -> flow -> "
                           f"[arguments, ...]")
    g.schedule_flow_args = {str(s): {str(f): [str(a) for a in args] for f, args in v.items()}
                            for s, v in own.items()}
    for s in g.schedule_flow_args:
        if s not in g.schedules:
            raise ExploreError(f"{path}: schedule_flow_args names {s!r}, not in schedules")
    return g
