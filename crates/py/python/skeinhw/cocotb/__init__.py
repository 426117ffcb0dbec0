"""The skeinhw golden model inside a cocotb test bench (cocotb 1.9 or 2.x).

:class:`GoldenChecker` compares the DUT with the golden model at every rising clock edge,
through the same Rust comparison as ``skeinhw diff`` (:class:`skeinhw.LiveDiff`), cycle by
cycle or at architectural events (``align="event"``, for RTL of another schedule), and fails
the test at the first divergence with the same report: golden cycle (or RTL edge and event),
field, both values, context. :func:`drive_messages` feeds the generated Verilog's input port
exactly as its own test bench does, so that the golden cycles line up with the DUT's.

Both take every Skein option: the MAC ``key``, ``pers``, ``public_key``, ``key_id``,
``nonce`` (UBI blocks on the port), and ``digest_bits`` and ``tree``, which the core is built
for (:func:`skeinhw.generate_verilog`); more messages than streams run back to back.

Example (the generated design ``skeinhw`` as the cocotb toplevel)::

    import cocotb
    from skeinhw.cocotb import GoldenChecker, drive_messages

    @cocotb.test()
    async def golden(dut):
        messages = [b"abc", b"", b"x" * 200]
        options = dict(pers=b"me@example.org", digest_bits=256)
        checker = GoldenChecker(dut, "ath-1r", messages, **options)
        task = cocotb.start_soon(checker.run())
        await drive_messages(dut, "ath-1r", messages, **options)
        await task          # raises on a divergence, or if nothing was compared

Runs on cocotb 1.9 (Icarus Verilog 11, Verilator 5.006, GHDL 2.0 on VHDL sources) and on
cocotb 2.x (Icarus 11, GHDL; cocotb 2 needs Verilator 5.036 or newer). ``python -m
skeinhw.cocotb`` runs the checker without writing a test (see its ``--help``). Importing this
package needs cocotb only when one of its names is used: ``pip install 'skeinhw[cocotb]'``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GoldenChecker", "GoldenMismatch", "drive_messages", "resolve"]

INSTALL_HINT = "the cocotb checker needs cocotb 1.9 or 2.x: pip install 'skeinhw[cocotb]'"


def __getattr__(name: str) -> Any:
    # Lazy, so that `python -m skeinhw.cocotb --help` works without cocotb.
    if name not in __all__:
        raise AttributeError(f"module 'skeinhw.cocotb' has no attribute '{name}'")
    try:
        if name == "drive_messages":
            from ._drive import drive_messages as value
        else:
            from . import _checker

            value = getattr(_checker, name)
    except ImportError as e:
        if e.name is not None and e.name.split(".")[0] == "cocotb":
            raise ImportError(f"{INSTALL_HINT} ({e})") from e
        raise
    globals()[name] = value
    return value
