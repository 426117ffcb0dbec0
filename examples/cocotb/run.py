"""Builds the generated Verilog of a preset and runs test_skein_core.py on it in Icarus
(or --simulator verilator) with cocotb's Python runner.

    python examples/cocotb/run.py [--schedule ath-1r] [--simulator icarus]

Needs the skeinhw package and cocotb 1.9 or 2.x in the Python environment (README.md; cocotb
2 needs Verilator 5.036 or newer).
"""

import argparse
import sys
import tempfile
from pathlib import Path

import skeinhw

import cocotb

try:
    from cocotb_tools.runner import get_runner  # cocotb 2
except ImportError:
    from cocotb.runner import get_runner  # cocotb 1.9

COCOTB2 = int(cocotb.__version__.split(".")[0]) >= 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedule", default="ath-1r", help="a preset name")
    parser.add_argument("--simulator", default="icarus", choices=["icarus", "verilator"])
    args = parser.parse_args()
    here = Path(__file__).resolve().parent
    work = Path(tempfile.mkdtemp(prefix="skeinhw-example-"))
    schedule = skeinhw.Schedule.preset(args.schedule)
    skeinhw.generate_verilog(schedule, work / "rtl")
    runner = get_runner(args.simulator)
    sources = [str(work / "rtl" / "skeinhw.v")]
    runner.build(
        **({"sources": sources} if COCOTB2 else {"verilog_sources": sources}),
        hdl_toplevel="skeinhw",
        build_dir=str(work / "build"),
        build_args=["-Wno-fatal"] if args.simulator == "verilator" else [],
        timescale=("1ns", "1ps"),
    )
    sys.path.insert(0, str(here))
    results = runner.test(
        hdl_toplevel="skeinhw",
        test_module="test_skein_core",
        test_dir=str(here),
        build_dir=str(work / "build"),
        results_xml=str(work / "results.xml"),
        extra_env={"SKEINHW_SCHEDULE": args.schedule, "PYTHONPATH": str(here)},
    )
    # cocotb writes a JUnit file; a failed test shows as a <failure> in it.
    text = Path(results).read_text(encoding="utf-8")
    failed = "<failure" in text or "<error" in text
    print("FAIL" if failed else "PASS", f"({results})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
