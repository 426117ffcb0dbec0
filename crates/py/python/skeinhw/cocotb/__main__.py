"""python -m skeinhw.cocotb: run the golden checker in a cocotb simulation of a schedule's
generated Verilog (or of the Verilog sources in --rtl-dir).

Exit status: 0 the DUT matched the golden model, 1 a divergence (the report is printed),
2 a usage or input error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

import skeinhw

SIMULATORS = ("icarus", "verilator", "ghdl")


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m skeinhw.cocotb",
        description="Check RTL against the skeinhw golden model inside a cocotb simulation. "
        "Exit status: 0 passed, 1 divergence (report printed), 2 usage or input error.",
    )
    p.add_argument("--schedule", required=True, metavar="NAME|FILE.json",
                   help="a preset name or a schedule JSON file")
    p.add_argument("--rtl-dir", metavar="DIR",
                   help="Verilog sources (*.v, *.sv) to simulate instead of the generated design")
    p.add_argument("--top", metavar="NAME", default="skeinhw",
                   help="toplevel module (default: skeinhw, the generated design)")
    p.add_argument("--map", metavar="FILE",
                   help="signal map (as skeinhw diff --map); none needed for the generated design")
    p.add_argument("--align", choices=("cycle", "event"), default="cycle",
                   help="cycle: golden cycle by cycle (the generated design, or RTL of the same "
                   "schedule); event: the architectural events in order (RTL of another "
                   "schedule or latency, as skeinhw diff --align event)")
    p.add_argument("--partial", action="store_true",
                   help="event alignment: accept a register mapped in part")
    p.add_argument("--simulator", choices=SIMULATORS, default="icarus",
                   help="cocotb simulator (default icarus); ghdl simulates VHDL sources "
                   "(*.vhd, *.vhdl) in --rtl-dir only: the generated design is Verilog")
    p.add_argument("--define", action="append", metavar="NAME=VALUE", default=[],
                   help="a Verilog define (or VHDL generic with ghdl) for the sources "
                   "(repeatable)")
    p.add_argument("--hex", action="append", metavar="MSG", default=[], dest="messages",
                   help="a message in hex (repeat for several streams; '' for the empty one)")
    p.add_argument("--key", metavar="HEX", default="", help="Skein-MAC key in hex")
    p.add_argument("--build-dir", metavar="DIR",
                   help="where cocotb builds (default: a new temporary directory)")
    p.add_argument("--skip", type=int, default=None, metavar="N",
                   help="rising edges after reset before golden cycle 1 (default 1 with "
                   "--align cycle, 0 with --align event)")
    return p


def _hex(text: str, what: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise UsageError(f"{what} '{text}': not hex (pairs of 0-9a-f)") from None


def _schedule(arg: str) -> "skeinhw.Schedule":
    try:
        if arg in skeinhw.presets():
            return skeinhw.Schedule.preset(arg)
        if arg.endswith(".json") or os.path.isfile(arg):
            try:
                text = Path(arg).read_text(encoding="utf-8")
            except OSError as e:
                raise UsageError(f"{arg}: {e.strerror or e}") from None
            try:
                return skeinhw.Schedule.from_json(text)
            except ValueError as e:
                raise UsageError(f"{arg}: {e}") from None
        return skeinhw.Schedule.preset(arg)
    except ValueError as e:
        raise UsageError(str(e)) from None


def run(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    schedule = _schedule(args.schedule)
    if not args.messages:
        raise UsageError("give at least one message with --hex")
    messages = [_hex(m, "--hex") for m in args.messages]
    key = _hex(args.key, "--key")
    if args.skip is not None and args.skip < 0:
        raise UsageError(f"--skip {args.skip}: must not be negative")
    defines = {}
    for d in args.define:
        name, eq, value = d.partition("=")
        if not name or not name.replace("_", "a").isalnum():
            raise UsageError(f"--define '{d}': NAME=VALUE with NAME a Verilog identifier")
        defines[name] = value if eq else "1"
    vhdl = args.simulator == "ghdl"
    if vhdl and not args.rtl_dir:
        raise UsageError("--simulator ghdl simulates VHDL, and the generated design is Verilog: "
                         "give --rtl-dir with VHDL sources (*.vhd, *.vhdl), or use --simulator "
                         "icarus or verilator")
    if vhdl and shutil.which("ghdl") is None:
        raise UsageError("--simulator ghdl: ghdl is not installed (Debian: apt-get install ghdl)")
    map_text = None
    if args.map:
        try:
            map_text = Path(args.map).read_text(encoding="utf-8")
        except OSError as e:
            raise UsageError(f"{args.map}: {e.strerror or e}") from None
    # Everything the checker needs, validated before any simulator runs.
    try:
        skeinhw.LiveDiff(schedule, messages, key=key, map=map_text,
                         map_name=args.map or "map", align=args.align, partial=args.partial)
        skeinhw.input_blocks(schedule, messages, key=key)
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None

    try:
        from cocotb.runner import get_runner  # cocotb 1.9
    except ImportError:  # pragma: no cover - cocotb 2
        from cocotb_tools.runner import get_runner  # type: ignore

    work = Path(args.build_dir) if args.build_dir else Path(tempfile.mkdtemp(prefix="skeinhw-cocotb-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.rtl_dir:
        rtl = Path(args.rtl_dir)
        if not rtl.is_dir():
            raise UsageError(f"--rtl-dir {rtl}: not a directory")
        kinds = (".vhd", ".vhdl") if vhdl else (".v", ".sv")
        sources = sorted(p for p in rtl.iterdir() if p.suffix in kinds
                         and p.name != "skeinhw_tb.v")
        if not sources:
            what = "VHDL sources (*.vhd, *.vhdl)" if vhdl else "Verilog sources (*.v, *.sv)"
            raise UsageError(f"--rtl-dir {rtl}: no {what}")
    else:
        rtl = work / "rtl"
        try:
            skeinhw.generate_verilog(schedule, rtl, force=True)
        except ValueError as e:
            raise UsageError(str(e)) from None
        sources = [rtl / "skeinhw.v"]

    report_path = work / "report.json"
    if report_path.exists():
        report_path.unlink()
    config = {
        "schedule": schedule.to_json(),
        "messages": [m.hex() for m in messages],
        "key": key.hex(),
        "map": map_text,
        "skip": args.skip,
        "align": args.align,
        "partial": args.partial,
        "drive": args.top == "skeinhw" or not args.rtl_dir,
    }
    sys.stdout.flush()
    runner = get_runner(args.simulator)
    build_args = []
    if args.simulator == "verilator":
        build_args = ["-Wno-fatal", "-Wno-WIDTH"]
    if vhdl:
        runner.build(
            vhdl_sources=[str(s) for s in sources],
            hdl_toplevel=args.top,
            build_dir=str(work / "build"),
            parameters=defines,
            always=True,
        )
    else:
        runner.build(
            verilog_sources=[str(s) for s in sources],
            hdl_toplevel=args.top,
            build_dir=str(work / "build"),
            build_args=build_args,
            defines=defines,
            timescale=("1ns", "1ps"),
            always=True,
        )
    env = {
        "SKEINHW_COCOTB_CONFIG": json.dumps(config),
        "SKEINHW_COCOTB_REPORT": str(report_path),
    }
    runner.test(
        hdl_toplevel=args.top,
        test_module="skeinhw.cocotb._bench",
        build_dir=str(work / "build"),
        extra_env=env,
    )
    if not report_path.exists():
        print("error: the simulation ended before the checker reported (see the log above)",
              file=sys.stderr)
        return 1
    report = json.loads(report_path.read_text(encoding="utf-8"))
    sys.stdout.flush()
    print(report["report"], flush=True)
    return 0 if report["verdict"] == "identical" else 1


if __name__ == "__main__":
    sys.exit(run())
