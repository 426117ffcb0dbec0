"""python -m skeinhw.cocotb: run the golden checker in a cocotb simulation (cocotb 1.9 or 2.x)
of a schedule's generated Verilog, built for the output length and tree asked for, or of the
sources in --rtl-dir. Every Skein option goes to the golden model and to the port; arguments
``+name=value`` go to the simulator as plusargs (for a test bench of one's own).

Exit status: 0 the DUT matched the golden model, 1 a divergence (the report is printed),
2 a usage or input error (cocotb missing included).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import skeinhw

SIMULATORS = ("icarus", "verilator", "ghdl")


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m skeinhw.cocotb",
        description="Check RTL against the skeinhw golden model inside a cocotb simulation "
        "(cocotb 1.9 or 2.x: pip install 'skeinhw[cocotb]'). Arguments +NAME=VALUE go to the "
        "simulator as plusargs. Exit status: 0 passed, 1 divergence (report printed), 2 usage "
        "or input error.",
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
    p.add_argument("--pers", metavar="HEX", help="personalization string in hex")
    p.add_argument("--public-key", metavar="HEX", help="public key in hex")
    p.add_argument("--key-id", metavar="HEX", help="key identifier in hex")
    p.add_argument("--nonce", metavar="HEX", help="nonce in hex")
    p.add_argument("--out-bits", type=int, metavar="N",
                   help="output length in bits (default the state size); the generated core "
                   "is built for it (as skeinhw rtl --out-bits)")
    p.add_argument("--tree", metavar="YL,YF,YM",
                   help="tree hashing (leaf, fan-out, max height); the generated core is built "
                   "for it (as skeinhw rtl --tree)")
    p.add_argument("--set", action="append", metavar="FIELD=VALUE", default=[], dest="set",
                   help="override a schedule field, e.g. --set first_subkey_cycle=false "
                   "(repeatable; as the CLI's --set)")
    p.add_argument("--scope", metavar="PATH",
                   help="the core's path under --top (e.g. dut): map signals, the clock and "
                   "the ports driven are looked up there")
    p.add_argument("--no-drive", action="store_true",
                   help="do not drive the input port (a test bench of one's own feeds the "
                   "core; the default drives the generated design when it is the toplevel)")
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


def _tree(text: Optional[str]) -> Optional[Tuple[int, int, int]]:
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
        raise UsageError(f"--tree '{text}': three numbers YL,YF,YM, e.g. 1,2,2")
    yl, yf, ym = (int(p) for p in parts)
    return yl, yf, ym


def _options(args: argparse.Namespace) -> Dict[str, Any]:
    """The Skein options of every message, as skeinhw.simulate takes them."""
    options: Dict[str, Any] = {"key": _hex(args.key, "--key")}
    for name in ("pers", "public_key", "key_id", "nonce"):
        value = getattr(args, name)
        if value is not None:
            options[name] = _hex(value, "--" + name.replace("_", "-"))
    if args.out_bits is not None:
        options["digest_bits"] = args.out_bits
    options["tree"] = _tree(args.tree)
    return options


def run(argv: Optional[List[str]] = None) -> int:
    args, rest = _parser().parse_known_args(argv)
    unknown = [a for a in rest if not a.startswith("+")]
    if unknown:
        _parser().error("unrecognized arguments: " + " ".join(unknown))
    args.plusargs = [a for a in rest if a.startswith("+")]
    try:
        return _run(args)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _cocotb() -> Tuple[int, ...]:
    """cocotb's version, or a usage error naming what to install."""
    try:
        import cocotb
    except ImportError:
        raise UsageError("cocotb is not installed: pip install 'skeinhw[cocotb]' "
                         "(cocotb 1.9 or 2.x)") from None
    return tuple(int(p) for p in cocotb.__version__.split(".")[:2] if p.isdigit())


def _verilator_for(version: Tuple[int, ...]) -> None:
    """cocotb 2 builds its Verilator interface for Verilator 5.036 or newer."""
    if version < (2, 0):
        return
    try:
        out = subprocess.run(["verilator", "--version"], capture_output=True, text=True).stdout
        found = tuple(int(x) for x in out.split()[1].split(".")[:2])
    except (OSError, IndexError, ValueError):
        return
    if found < (5, 36):
        raise UsageError(f"--simulator verilator: cocotb {'.'.join(map(str, version))} needs "
                         f"Verilator 5.036 or newer, this is {out.split()[1]}: use --simulator "
                         "icarus, or cocotb 1.9 (pip install 'cocotb>=1.9,<2')")


def _ghdl_for(version: Tuple[int, ...]) -> None:
    """cocotb 2 cannot stop GHDL 2.0 (Debian 12's) at the end of the test: the run never ends."""
    if version < (2, 0):
        return
    try:
        out = subprocess.run(["ghdl", "--version"], capture_output=True, text=True).stdout
        found = tuple(int(x) for x in out.split()[1].split(".")[:2])
    except (OSError, IndexError, ValueError):
        return
    if found < (3, 0):
        raise UsageError(f"--simulator ghdl: cocotb {'.'.join(map(str, version))} does not stop "
                         f"GHDL {out.split()[1]} when the test ends (the run hangs): use cocotb "
                         "1.9 with this GHDL (pip install 'cocotb>=1.9,<2')")


def _sources(args: argparse.Namespace, work: Path, schedule: "skeinhw.Schedule",
             options: Dict[str, Any], vhdl: bool) -> List[Path]:
    """The sources to simulate: --rtl-dir's, or the generated design built for the options."""
    if not args.rtl_dir:
        rtl = work / "rtl"
        try:
            skeinhw.generate_verilog(schedule, rtl, force=True,
                                     digest_bits=options.get("digest_bits"),
                                     tree=options.get("tree"))
        except ValueError as e:
            raise UsageError(str(e)) from None
        return [rtl / "skeinhw.v"]
    rtl = Path(args.rtl_dir)
    if not rtl.is_dir():
        raise UsageError(f"--rtl-dir {rtl}: not a directory")
    kinds = (".vhd", ".vhdl") if vhdl else (".v", ".sv")
    # A generated directory's test bench only when it is the toplevel.
    sources = sorted(p for p in rtl.iterdir() if p.suffix in kinds
                     and (p.name != "skeinhw_tb.v" or args.top == "skeinhw_tb"))
    if not sources:
        what = "VHDL sources (*.vhd, *.vhdl)" if vhdl else "Verilog sources (*.v, *.sv)"
        raise UsageError(f"--rtl-dir {rtl}: no {what}")
    return sources


def _run(args: argparse.Namespace) -> int:
    schedule = _schedule(args.schedule)
    try:
        schedule = schedule.with_set(args.set)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if not args.messages:
        raise UsageError("give at least one message with --hex")
    messages = [_hex(m, "--hex") for m in args.messages]
    options = _options(args)
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
    drive = not args.no_drive and (args.top == "skeinhw" or not args.rtl_dir or bool(args.scope))
    # Everything the checker needs, validated before any simulator runs.
    try:
        skeinhw.LiveDiff(schedule, messages, map=map_text, map_name=args.map or "map",
                         align=args.align, partial=args.partial, **options)
        if drive:
            skeinhw.host_blocks(schedule, messages, **options)
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None
    version = _cocotb()
    if args.simulator == "verilator":
        _verilator_for(version)
    if vhdl:
        _ghdl_for(version)

    work = Path(args.build_dir) if args.build_dir else Path(tempfile.mkdtemp(prefix="skeinhw-cocotb-"))
    work.mkdir(parents=True, exist_ok=True)
    sources = _sources(args, work, schedule, options, vhdl)
    report_path = work / "report.json"
    if report_path.exists():
        report_path.unlink()
    config = {
        "schedule": schedule.to_json(),
        "messages": [m.hex() for m in messages],
        "options": {k: (v.hex() if isinstance(v, bytes) else v) for k, v in options.items()},
        "map": map_text,
        "scope": args.scope,
        "skip": args.skip,
        "align": args.align,
        "partial": args.partial,
        "drive": drive,
    }
    sys.stdout.flush()
    from ._compat import get_runner

    runner = get_runner(args.simulator)
    build: Dict[str, Any] = {
        "hdl_toplevel": args.top,
        "build_dir": str(work / "build"),
        "always": True,
    }
    if version >= (2, 0):
        build["sources"] = [str(s) for s in sources]
    else:
        build["vhdl_sources" if vhdl else "verilog_sources"] = [str(s) for s in sources]
    if vhdl:
        build["parameters"] = defines
    else:
        build["defines"] = defines
        build["timescale"] = ("1ns", "1ps")
        if args.simulator == "verilator":
            build["build_args"] = ["-Wno-fatal", "-Wno-WIDTH"]
    runner.build(**build)
    env = {
        "SKEINHW_COCOTB_CONFIG": json.dumps(config),
        "SKEINHW_COCOTB_REPORT": str(report_path),
    }
    # cocotb 2's runner exits when a test failed if it believes it runs under pytest (a test
    # suite calling this runner): the verdict is the report's, read below.
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    try:
        runner.test(
            hdl_toplevel=args.top,
            test_module="skeinhw.cocotb._bench",
            build_dir=str(work / "build"),
            extra_env=env,
            plusargs=args.plusargs,
        )
    except SystemExit:
        pass
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
