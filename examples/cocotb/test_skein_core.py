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

# What to hash, one run after another: a plain hash, a MAC, and a personalized MAC with a nonce
# (a design with several blocks in flight takes any number of messages per run: message i on
# stream i mod S, a stream's messages back to back). The output length is the core's
# (SKEINHW_DIGEST_BITS, default the state size: skeinhw.generate_verilog(..., digest_bits=N)).
CASES = [
    (b"The quick brown fox jumps over the lazy dog", {}),
    (bytes(range(200)), {"key": bytes(range(32))}),
    (b"abc" * 30, {"key": b"k", "pers": b"20081031 me@example.org", "nonce": bytes(16)}),
]


@cocotb.test()
async def golden_model_checks_every_cycle(dut):
    """Every mapped register equals the golden model's on every cycle; digests match."""
    schedule = skeinhw.Schedule.preset(os.environ.get("SKEINHW_SCHEDULE", "ath-1r"))
    # map=None: the generated Verilog names its registers like the golden trace.
    map_file = os.environ.get("SKEINHW_MAP") or None
    size = schedule.size
    digest_bits = int(os.environ.get("SKEINHW_DIGEST_BITS") or size)
    for run, (message, options) in enumerate(CASES):
        options = dict(options, digest_bits=digest_bits)
        checker = GoldenChecker(dut, schedule, [message], map=map_file, **options)
        task = cocotb.start_soon(checker.run())
        # The first run starts the clock; each run resets the core first.
        digests = await drive_messages(dut, schedule, [message], start_clock=run == 0, **options)
        await task  # raises at the first divergence, with the diff's report
        await FallingEdge(dut.clk)  # out of the read-only phase the checker ended in
        dut._log.info("compared %s", checker.compared)
        expected = getattr(skeinhw, f"skein{size}")(message, **options)
        assert digests[0] == expected.digest(), "digest differs from the library's"
