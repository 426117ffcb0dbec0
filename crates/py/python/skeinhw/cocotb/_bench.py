"""The cocotb test that ``python -m skeinhw.cocotb`` runs: its inputs come in the environment
variable SKEINHW_COCOTB_CONFIG (JSON), its verdict goes to SKEINHW_COCOTB_REPORT."""

import json
import os

import cocotb

import skeinhw
from skeinhw.cocotb import GoldenChecker, drive_messages


def _options(config):
    """The Skein options of the run (bytes from hex, the tree as a tuple)."""
    out = {}
    for name, value in config.get("options", {}).items():
        if name in ("key", "pers", "public_key", "key_id", "nonce"):
            out[name] = bytes.fromhex(value)
        elif name == "tree" and value is not None:
            out[name] = tuple(value)
        else:
            out[name] = value
    return out


@cocotb.test()
async def golden_model(dut):
    """The DUT against the skeinhw golden model, by cycle or by event."""
    config = json.loads(os.environ["SKEINHW_COCOTB_CONFIG"])
    schedule = skeinhw.Schedule.from_json(config["schedule"])
    messages = [bytes.fromhex(m) for m in config["messages"]]
    options = _options(config)
    checker = GoldenChecker(
        dut,
        schedule,
        messages,
        map=config.get("map"),
        scope=config.get("scope"),
        align=config.get("align", "cycle"),
        clock=config.get("clock", "clk"),
        skip=config.get("skip"),
        partial=config.get("partial", False),
        **options,
    )
    task = cocotb.start_soon(checker.run())
    if config.get("drive", True):
        await drive_messages(dut, schedule, messages, scope=config.get("scope"), **options)
    await task
