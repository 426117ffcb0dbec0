"""skeinhw: Skein/Threefish and Shabal (a drop-in for pyskein 1.0) and the skeinhw golden model.

``import skeinhw as skein`` runs pyskein code: the hashers (with ``digest(start, stop)`` and
outputs of up to 2**64-1 bits), ``threefish``, ``Random``, ``RandomBytes`` and
``StreamCipher``; crates/py/README.md lists where skeinhw and pyskein 1.0 differ. The golden
model: :class:`Schedule`, :func:`simulate` (a lazy iterator of cycle records), :func:`events`
(the architectural events ``skeinhw diff --align event`` matches), :func:`generate_verilog`,
and the cocotb checker in :mod:`skeinhw.cocotb`. Everything calls the Rust crates of skeinhw.
"""

from ._native import (  # noqa: F401
    CycleRecord,
    Event,
    LiveDiff,
    Schedule,
    Simulation,
    __version__,
    events,
    generate_verilog,
    host_blocks,
    input_blocks,
    presets,
    shabal192,
    shabal224,
    shabal256,
    shabal384,
    shabal512,
    simulate,
    skein256,
    skein512,
    skein1024,
    threefish,
)
from ._pyskein import Random, RandomBytes, StreamCipher  # noqa: F401

__all__ = [
    "CycleRecord",
    "Event",
    "LiveDiff",
    "Random",
    "RandomBytes",
    "Schedule",
    "Simulation",
    "StreamCipher",
    "events",
    "generate_verilog",
    "host_blocks",
    "input_blocks",
    "presets",
    "shabal192",
    "shabal224",
    "shabal256",
    "shabal384",
    "shabal512",
    "simulate",
    "skein256",
    "skein512",
    "skein1024",
    "threefish",
]
