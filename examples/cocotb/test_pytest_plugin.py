"""cocotb 2's pytest plugin with the skeinhw golden model: pytest builds the generated Verilog
(a core built for 128 output bits) and runs this file's async test inside Icarus, where the
checker compares every cycle of a personalized MAC.

    pytest -p cocotb_tools._pytest.plugin --cocotb-simulator icarus \
        examples/cocotb/test_pytest_plugin.py

(cocotb 2.1's plugin is experimental and lives in ``cocotb_tools._pytest``; cocotb 1.9 has
none: there, see test_with_runner.py. Without the plugin this file is skipped.)
"""

import shutil
import sys
from pathlib import Path

import pytest

import skeinhw

pytest.importorskip("cocotb_tools._pytest.hdl")
if "cocotb_tools._pytest.plugin" not in sys.modules:
    pytest.skip("cocotb's pytest plugin is not loaded (-p cocotb_tools._pytest.plugin)",
                allow_module_level=True)
if shutil.which("iverilog") is None:
    pytest.skip("Icarus Verilog is not installed", allow_module_level=True)

SCHEDULE = "ath-1r"
OPTIONS = {"digest_bits": 128, "key": b"secret", "pers": b"20081031 me@example.org"}
MESSAGES = [bytes(range(150))]


@pytest.fixture(name="skeinhw_core")
def skeinhw_core_fixture(request, tmp_path_factory):
    """The generated core, built by cocotb's runner for this file's tests."""
    hdl = request.getfixturevalue("hdl")
    rtl = Path(tmp_path_factory.mktemp("rtl"))
    skeinhw.generate_verilog(SCHEDULE, rtl, digest_bits=OPTIONS["digest_bits"])
    hdl.toplevel = "skeinhw"
    hdl.sources = [rtl / "skeinhw.v"]
    hdl.timescale = ("1ns", "1ps")
    hdl.build()
    return hdl


@pytest.mark.cocotb_runner
def test_skeinhw_core(skeinhw_core):
    """Runs the async tests below in the simulator; fails when one of them does."""
    skeinhw_core.test()


async def test_golden_model_on_every_cycle(dut):
    """In the simulator: the golden model against the core, and the digest against the
    library's."""
    from skeinhw.cocotb import GoldenChecker, drive_messages

    import cocotb

    checker = GoldenChecker(dut, SCHEDULE, MESSAGES, **OPTIONS)
    task = cocotb.start_soon(checker.run())
    digests = await drive_messages(dut, SCHEDULE, MESSAGES, **OPTIONS)
    await task
    assert digests[0] == skeinhw.skein512(MESSAGES[0], **OPTIONS).digest()
