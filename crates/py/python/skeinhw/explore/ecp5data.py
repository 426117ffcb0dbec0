"""The measured ECP5 rows (``estimator/data/ecp5/results.json``) made from an explore store.

One row per design and core: ``xc5v`` from the point's ``v5-netlist`` record and ``ecp5``
from its ``ecp5`` record (seed 1 where there are several; a design that does not fit is
``"fits": false``), with the FNV-1a 64 hash of the Verilog it came from. The format is the
one the estimator and ``crates/rtl/tests/ecp5_data.rs`` read: do not change its keys.

A record becomes a row only when it is of today's Verilog (the full core: the checked-in
``crates/rtl/generated/<design>/skeinhw.v``, so a what-if's full core, which has none, is no
row; the lean core: generated now), because the rows are checked against today's Verilog.
Files are written whole (a temporary file renamed over the old one), never half.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any, Iterable

from . import flows
from .errors import ExploreError

RESULTS = os.path.join("estimator", "data", "ecp5", "results.json")
GENERATED = os.path.join("crates", "rtl", "generated")

# Long's baseline, his five section 3.4 designs, the other Long designs that fit, and
# Athanasiou's round-unrolled cores; then the what-ifs (a preset with schedule fields set,
# named as `skeinhw rtl --set` names it): the order of the rows.
DESIGNS = [
    "long-iter-256", "long-ks1-256", "long-outshare-256", "long-inshare-256",
    "long-split-256", "long-overlap-256", "long-iter-512", "long-iter-1024",
    "ath-1r", "ath-4r", "ath-8r",
]
WHAT_IFS = [
    "long-iter-256+first_subkey_cycle=true",
    "long-split-256+first_subkey_cycle=true",
    "long-overlap-256+first_subkey_cycle=true",
]
ALL = DESIGNS + WHAT_IFS
VARIANTS = ["full", "lean"]
# nextpnr's common arguments as a row records them (`tools.nextpnr_args`), seed in place.
NEXTPNR_HEAD = flows.ECP5_DEVICE + ["--out-of-context", "--freq", "100", "--timing-allow-fail"]

ABOUT = (
    "Written by skeinhw explore table from a study store (skeinhw explore --study "
    "scripts/ecp5-study.toml); rows whose tools.yosys_ecp5 reads \"{v}\" ran the same flows "
    "one after another, before the store. xc5v: Yosys synth_xilinx -family xc5v netlist, the "
    "estimator's netlist path (the v5-netlist flow, what skeinhw estimate --synth [--lean] "
    "--style generated --json runs). ecp5: Yosys synth_ecp5, then nextpnr-ecp5 "
    + " ".join(NEXTPNR_HEAD) + " --seed 1 --threads 1 (and a row's own flow, "
    "tools.nextpnr_args, where the default does not route it); fmax_mhz is the routed maximum "
    "frequency of clk; \"fits\": false where nextpnr found no legal placement (comb_used logic "
    "cells, TRELLIS_COMB, of comb_available). verilog_fnv1a64: FNV-1a 64 of the Verilog (the "
    "checked-in crates/rtl/generated/<design>/skeinhw.v, or skeinhw rtl --lean). ecp5_verilog, "
    "where present: the ECP5 run is of other Verilog (its FNV-1a 64), equivalent by the "
    "evidence given; xc5v is of verilog_fnv1a64."
)

Row = dict[str, Any]
Record = dict[str, Any]


def fnv1a64(data: bytes) -> str:
    """FNV-1a 64, as the rows and the estimator's netlist summaries hash the Verilog."""
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def nextpnr_args(seed: int | None, flow_args: Iterable[str]) -> str:
    """A row's ``tools.nextpnr_args``: the common arguments, the seed, the point's own."""
    return " ".join([*NEXTPNR_HEAD, "--seed", str(seed), "--threads", "1", *flow_args])


def xc5v_of(f: dict[str, Any]) -> dict[str, Any]:
    """A ``v5-netlist`` record's figures as a row's ``xc5v``."""
    return {
        "luts": f["luts"],
        "ffs": f["ffs"],
        "carry4": f["carry4"],
        "lut_ff_pairs": f["lut_ff_pairs"],
        "slices": f["slices"],
        "period_ns": round(f["period_ns"], 3),
        "path_carry_chains": f["path_carry_chains"],
        "path_lut_depth": f["path_lut_depth"],
        "path": f["path"],
        "cycles_per_block": f["cycles_per_block"],
        "blocks_in_flight": f.get("blocks_in_flight"),
        "block_latency_cycles": f["block_latency_cycles"],
        "throughput_mbps": round(f["throughput_mbps"], 2),
    }


def ecp5_of(rec: Record) -> dict[str, Any]:
    """An ``ecp5`` record's figures as a row's ``ecp5`` (placed and routed, or not placed)."""
    f = rec["figures"]
    seconds = None if rec.get("wall_s") is None else round(rec["wall_s"], 1)
    if f.get("fits") is False:
        return {"fits": False, "lut4": f["lut4"], "ccu2c": f.get("ccu2c"), "ffs": f["ffs"],
                "pfumx": f.get("pfumx"), "comb_used": f.get("comb_used"),
                "comb_available": f.get("comb_available"), "seconds": seconds}
    return {
        "lut4": f["lut4"],
        "ccu2c": f["ccu2c"],
        "ffs": f["ffs"],
        "pfumx": f["pfumx"],
        "comb_used": f["comb_used"],
        "ff_used": f["ff_used"],
        "slices": f["slices"],
        "fmax_mhz": round(f["fmax_mhz"], 2),
        "seconds": seconds,
    }


def usable_ecp5(rec: Record) -> bool:
    return rec["status"] == "ok" or rec["figures"].get("fits") is False


def ecp5_rank(rec: Record) -> tuple:
    """Which ``ecp5`` record a row takes: routed before not placed, seed 1, the common flow."""
    p = rec["point"]
    return (rec["status"] != "ok", p.get("seed") != 1, len(p.get("flow_args") or []))


def todays_verilog(rec: Record, root: str) -> bytes | None:
    """Today's Verilog of a record's point, or None when the record is of other Verilog."""
    p = rec["point"]
    if p["core"] == "full":
        path = os.path.join(root, GENERATED, rec["schedule_name"], "skeinhw.v")
        try:
            text = open(path, "rb").read()
        except OSError:
            return None
    else:
        from .. import _native
        from .prepare import schedule_of
        from .study import Point

        point = Point(schedule=p["schedule"], sets=tuple(p["set"]), core="lean")
        text = _native.design_verilog(schedule_of(point), lean=True).encode()
    return text if hashlib.sha256(text).hexdigest() == rec["verilog_sha256"] else None


def rows_from_records(records: Iterable[Record], root: str) -> tuple[list[Row], list[str]]:
    """Rows from store records, and a note per (design, core) left out (not of today's
    Verilog, or no ``v5-netlist`` record)."""
    by_row: dict[tuple[str, str], dict[str, list[Record]]] = {}
    for rec in records:
        flow = rec["point"]["flow"]
        if flow not in ("v5-netlist", "ecp5"):
            continue
        key = (rec["schedule_name"], rec["point"]["core"])
        by_row.setdefault(key, {"v5-netlist": [], "ecp5": []})[flow].append(rec)
    rows, notes = [], []
    for (design, core), recs in by_row.items():
        texts = {id(r): todays_verilog(r, root) for r in recs["v5-netlist"] + recs["ecp5"]}
        v5 = [r for r in recs["v5-netlist"] if r["status"] == "ok" and texts[id(r)]]
        pnr = sorted((r for r in recs["ecp5"] if usable_ecp5(r) and texts[id(r)]),
                     key=ecp5_rank)
        if not v5:
            why = "no v5-netlist record of today's Verilog" if recs["v5-netlist"] else \
                "no v5-netlist record"
            notes.append(f"{design} {core}: {why}; no row")
            continue
        x = v5[-1]
        row: Row = {
            "design": design,
            "variant": core,
            "verilog_fnv1a64": fnv1a64(texts[id(x)]),
            "tools": {"yosys": x["tools"].get("yosys")},
            "xc5v": xc5v_of(x["figures"]),
            "ecp5": None,
        }
        if pnr:
            e = pnr[0]
            p = e["point"]
            row["ecp5"] = ecp5_of(e)
            row["tools"].update({
                "nextpnr": e["tools"].get("nextpnr-ecp5"),
                "nextpnr_args": nextpnr_args(p.get("seed"), p.get("flow_args") or []),
                "yosys_ecp5": e["args"][0][-1] if e.get("args") else None,
            })
        rows.append(row)
    return rows, notes


def row_of(data: dict[str, Any], design: str, variant: str) -> Row | None:
    for r in data["rows"]:
        if r["design"] == design and r["variant"] == variant:
            return r
    return None


def routed_verilog(old: Row, fnv: str) -> dict[str, Any] | None:
    """Where an old row's ECP5 run, kept beside a new row's ``xc5v`` of Verilog ``fnv``, came
    from: ``None`` when it is that Verilog, else the routed Verilog's hash and why it counts as
    the same (so a kept run never claims Verilog it was not made from)."""
    if old.get("ecp5_verilog") is not None:
        return old["ecp5_verilog"]
    if old["verilog_fnv1a64"] == fnv:
        return None
    evidence = (old.get("equivalent_verilog") or {}).get("evidence")
    return {"fnv1a64": old["verilog_fnv1a64"], "evidence": evidence}


def merge(data: dict[str, Any], rows: Iterable[Row]) -> dict[str, Any]:
    """``data`` with ``rows`` in place of its rows of the same design and core. A new row
    without an ECP5 run keeps the old row's when both are of the same Verilog."""
    out = {"about": ABOUT, "rows": [dict(r) for r in data["rows"]]}
    for row in rows:
        old = row_of(out, row["design"], row["variant"])
        if old is not None:
            same = row["verilog_fnv1a64"] in (old["verilog_fnv1a64"],
                                              (old.get("equivalent_verilog") or {}).get("fnv1a64"))
            if row["ecp5"] is None and same and old.get("ecp5") is not None:
                row = dict(row, ecp5=old["ecp5"],
                           tools={**old["tools"], "yosys": row["tools"]["yosys"]})
                routed = routed_verilog(old, row["verilog_fnv1a64"])
                if routed is not None:
                    row["ecp5_verilog"] = routed
            out["rows"].remove(old)
        out["rows"].append(row)
    out["rows"].sort(key=lambda r: (ALL.index(r["design"]) if r["design"] in ALL else 99,
                                    r["design"], r["variant"]))
    return out


def load(path: str) -> dict[str, Any]:
    """The rows file (``{"about", "rows"}``); none yet: no rows."""
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError:
        return {"about": ABOUT, "rows": []}
    except (OSError, ValueError) as e:
        raise ExploreError(f"{path}: cannot read the ECP5 rows: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise ExploreError(f"{path}: not an ECP5 rows file (no \"rows\" list)")
    return data


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def regular_target(path: str) -> str:
    """The file a write to ``path`` replaces: a symbolic link's target; an error when that is
    not a regular file (a directory, FIFO or device is never replaced by a file)."""
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):
        raise ExploreError(f"{path}: not a regular file; nothing written")
    return target


def write_whole(path: str, text: str) -> None:
    """Writes ``text`` to ``path`` through a temporary file renamed over it: a reader (or a
    crash) sees the old file or the new one, never half of one. A symbolic link is written
    through (its target replaced, the link kept); anything but a regular file is refused."""
    path = regular_target(path)
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# The netlist's own figures (Yosys's cells); the rest of ``xc5v`` is the estimator's reading
# of the netlist (packing, timing), which changes with the estimator's constants.
NETLIST_CELLS = ("luts", "ffs", "carry4")


def estimator_only(diffs: list[str]) -> bool:
    """Whether ``diffs`` (of :func:`differences`) are all in the estimator's reading of an
    unchanged netlist."""
    return bool(diffs) and all(d.startswith("xc5v.") and d.split()[0][5:] not in NETLIST_CELLS
                               for d in diffs)


def differences(old: Row, new: Row) -> list[str]:
    """What a re-made row measures differently from the checked-in one (not the seconds);
    an ``ecp5`` not re-run is not compared."""
    out = []
    hashes = (old["verilog_fnv1a64"], (old.get("equivalent_verilog") or {}).get("fnv1a64"))
    if new["verilog_fnv1a64"] not in hashes:
        out.append(f"Verilog {new['verilog_fnv1a64']}, checked in {old['verilog_fnv1a64']}")
    for part in ("xc5v", "ecp5"):
        if part == "ecp5" and new["ecp5"] is None:
            continue
        for k, want in (old.get(part) or {}).items():
            got = (new.get(part) or {}).get(k)
            if k != "seconds" and got != want:
                out.append(f"{part}.{k} {got}, checked in {want}")
    return out
