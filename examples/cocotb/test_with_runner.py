"""pytest with cocotb's own runner (``cocotb.runner`` in 1.9, ``cocotb_tools.runner`` in 2.x):
builds the generated Verilog of a core built for 256 output bits and runs the cocotb tests of
test_skein_core.py on it in Icarus, with the skeinhw golden model checking every cycle.

    pytest examples/cocotb/test_with_runner.py

The runner leaves a JUnit file; a failed cocotb test shows in it as a <failure>.
"""

import os
import shutil
import sys
from pathlib import Path

import pytest

import skeinhw

cocotb = pytest.importorskip("cocotb")
if shutil.which("iverilog") is None:
    pytest.skip("Icarus Verilog is not installed", allow_module_level=True)

try:
    from cocotb_tools.runner import get_runner  # cocotb 2
except ImportError:
    from cocotb.runner import get_runner  # cocotb 1.9

HERE = Path(__file__).resolve().parent
COCOTB2 = int(cocotb.__version__.split(".")[0]) >= 2


def run(tmp_path: Path, schedule: str, rtl: Path) -> str:
    """Builds `rtl`/skeinhw.v, runs test_skein_core; the JUnit file's text."""
    runner = get_runner("icarus")
    sources = [str(rtl / "skeinhw.v")]
    runner.build(
        **({"sources": sources} if COCOTB2 else {"verilog_sources": sources}),
        hdl_toplevel="skeinhw",
        build_dir=str(tmp_path / "build"),
        timescale=("1ns", "1ps"),
        always=True,
    )
    sys.path.insert(0, str(HERE))
    # cocotb 2's runner exits when a test fails under pytest; the JUnit file tells either way.
    saved = os.environ.pop("PYTEST_CURRENT_TEST", None)
    try:
        results = runner.test(
            hdl_toplevel="skeinhw",
            test_module="test_skein_core",
            test_dir=str(HERE),
            build_dir=str(tmp_path / "build"),
            results_xml=str(tmp_path / "results.xml"),
            extra_env={"SKEINHW_SCHEDULE": schedule, "SKEINHW_DIGEST_BITS": "256",
                       "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])},
        )
    except SystemExit:
        results = tmp_path / "results.xml"
    finally:
        if saved is not None:
            os.environ["PYTEST_CURRENT_TEST"] = saved
    return Path(results).read_text(encoding="utf-8")


def test_generated_core_passes(tmp_path):
    rtl = tmp_path / "rtl"
    skeinhw.generate_verilog("ath-1r", rtl, digest_bits=256)
    text = run(tmp_path, "ath-1r", rtl)
    assert "<testcase" in text and "<failure" not in text and "<error" not in text, text


def test_mutant_fails(tmp_path):
    rtl = tmp_path / "rtl"
    skeinhw.generate_verilog("ath-1r", rtl, digest_bits=256)
    design = rtl / "skeinhw.v"
    line = "3'd3: y1 = rotl(x1, 6'd9) ^ y0; // ROT d=3 j=1"
    text = design.read_text()
    assert text.count(line) == 1
    design.write_text(text.replace(line, line.replace("6'd9", "6'd10")))
    assert "<failure" in run(tmp_path, "ath-1r", rtl)
