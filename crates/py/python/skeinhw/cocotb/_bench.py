"""The cocotb test that ``python -m skeinhw.cocotb`` runs: its inputs come in the environment
variable SKEINHW_COCOTB_CONFIG (JSON), its verdict goes to SKEINHW_COCOTB_REPORT."""

import json
import os

import cocotb

import skeinhw
from skeinhw.cocotb import GoldenChecker, drive_messages


@cocotb.test()
async def golden_model(dut):
    """The DUT against the skeinhw golden model, by cycle or by event."""
    config = json.loads(os.environ["SKEINHW_COCOTB_CONFIG"])
    schedule = skeinhw.Schedule.from_json(config["schedule"])
    messages = [bytes.fromhex(m) for m in config["messages"]]
    key = bytes.fromhex(config.get("key", ""))
    checker = GoldenChecker(
        dut,
        schedule,
        messages,
        key=key,
        map=config.get("map"),
        align=config.get("align", "cycle"),
        clock=config.get("clock", "clk"),
        skip=config.get("skip"),
        partial=config.get("partial", False),
    )
    task = cocotb.start_soon(checker.run())
    if config.get("drive", True):
        await drive_messages(dut, schedule, messages, key=key)
    await task
