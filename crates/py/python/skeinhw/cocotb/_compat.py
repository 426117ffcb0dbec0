"""What differs between cocotb 1.9 and 2.x, in one place: reading a signal's bits, the clock,
the simulation time, and where the runner lives.

cocotb 2 reads a vector as ``LogicArray`` and a single bit as ``Logic`` (no ``binstr``: its
``str`` is the bits), starts a clock with ``Clock.start()`` alone, and moved the runner to
``cocotb_tools.runner``.
"""

from __future__ import annotations

from typing import Any

import cocotb
from cocotb.clock import Clock

VERSION = tuple(int(p) for p in cocotb.__version__.split(".")[:2] if p.isdigit())
COCOTB2 = VERSION >= (2, 0)

try:  # cocotb 2
    from cocotb.simtime import get_sim_time as _get_sim_time
except ImportError:  # cocotb 1.9
    from cocotb.utils import get_sim_time as _get_sim_time


def bits(value: Any) -> str:
    """A signal's value as its bits, most significant first: ``0``/``1`` or the simulator's
    X/Z/U/... characters. Works on cocotb 1.9's ``BinaryValue`` and 2.x's ``LogicArray``,
    ``Logic``, and on the ints and bools either gives for integer and boolean signals."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return format(value, "b") if value >= 0 else "x"
    if not COCOTB2:
        b = getattr(value, "binstr", None)
        if b is not None:
            return b
    return str(value)


def sim_time_ns() -> int:
    """The simulation time in whole nanoseconds."""
    return int(_get_sim_time("ns"))


def start_clock(signal: Any, period_ns: int) -> None:
    """Drives `signal` with a clock of `period_ns`, low first (as the generated test bench)."""
    clock = Clock(signal, period_ns, "ns")
    if COCOTB2:
        clock.start(start_high=False)
    else:
        cocotb.start_soon(clock.start(start_high=False))


def get_runner(simulator: str) -> Any:
    """cocotb's runner of `simulator` (``cocotb_tools.runner`` in 2.x, ``cocotb.runner`` in
    1.9)."""
    try:
        from cocotb_tools.runner import get_runner as get
    except ImportError:
        from cocotb.runner import get_runner as get  # type: ignore[no-redef]
    return get(simulator)
