"""A cocotb test to copy for your own Skein core: the skeinhw golden model checks the DUT's
registers at every rising edge while the messages are driven into its input port.

Run it on the generated Verilog of a preset (see README.md beside this file):

    python examples/cocotb/run.py --schedule ath-1r

For your own core: pass --rtl-dir/--top, write a signal map (the format of
``skeinhw diff --map``; ``skeinhw map`` finds one from a waveform) and drive your own port
instead of calling ``drive_messages``.
"""

import os

import cocotb
from cocotb.triggers import FallingEdge

import skeinhw
from skeinhw.cocotb import GoldenChecker, drive_messages

# What to hash, one run after another: a plain hash and a MAC (a design with several blocks in
# flight takes one message per stream in each run: pass a list as long as its streams).
CASES = [
    (b"The quick brown fox jumps over the lazy dog", b""),
    (bytes(range(200)), bytes(range(32))),
]


@cocotb.test()
async def golden_model_checks_every_cycle(dut):
    """Every mapped register equals the golden model's on every cycle; digests match."""
    schedule = skeinhw.Schedule.preset(os.environ.get("SKEINHW_SCHEDULE", "ath-1r"))
    # map=None: the generated Verilog names its registers like the golden trace.
    map_file = os.environ.get("SKEINHW_MAP") or None
    bits = schedule.size
    for run, (message, key) in enumerate(CASES):
        checker = GoldenChecker(dut, schedule, [message], key=key, map=map_file)
        task = cocotb.start_soon(checker.run())
        # The first run starts the clock; each run resets the core first.
        digests = await drive_messages(dut, schedule, [message], key=key, start_clock=run == 0)
        await task  # raises at the first divergence, with the diff's report
        await FallingEdge(dut.clk)  # out of the read-only phase the checker ended in
        dut._log.info("compared %s", checker.compared)
        expected = getattr(skeinhw, f"skein{bits}")(message, digest_bits=bits, key=key)
        assert digests[0] == expected.digest(), "digest differs from the library's"
