"""drive_messages: the generated core's input port fed exactly as its own test bench feeds it
(``skeinhw_tb.v``), so that the golden cycles line up with the DUT's."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from cocotb.triggers import FallingEdge, RisingEdge, Timer

import skeinhw

from ._checker import Messages, _schedule, resolve
from ._compat import bits as _bits
from ._compat import start_clock as _start_clock

# The port of each block field (the stream, data and src fields are handled apart); a core
# without a tree has no in_level/in_root/in_offset, one older than in_type none of it.
_PORTS = (
    ("key", "in_key"),
    ("first", "in_first"),
    ("last", "in_last"),
    ("bitpad", "in_bitpad"),
    ("bytes", "in_bytes"),
    ("type", "in_type"),
    ("level", "in_level"),
    ("root", "in_root"),
    ("offset", "in_offset"),
)


def _bit(handle: Any, index: int) -> int:
    b = _bits(handle.value)
    if index >= len(b):
        return 0
    return 1 if b[len(b) - 1 - index] == "1" else 0


class _Collector:
    """Every stream's digests in order: a message's Output blocks (``out_valid``) until its
    digest is whole, then the stream's next message."""

    def __init__(self, nmessages: int, nstreams: int, digest_bytes: int):
        self.digest_bytes = digest_bytes
        self.nstreams = nstreams
        self.nmessages = nmessages
        self.done: List[List[bytes]] = [[] for _ in range(nstreams)]
        self.partial: List[bytes] = [b""] * nstreams

    def add(self, stream: int, data: bytes) -> None:
        self.partial[stream] += data
        if len(self.partial[stream]) >= self.digest_bytes:
            self.done[stream].append(self.partial[stream][: self.digest_bytes])
            self.partial[stream] = b""

    def complete(self) -> bool:
        return sum(len(d) for d in self.done) >= self.nmessages

    def digests(self) -> List[bytes]:
        """Message i's digest: the (i // S)-th of stream i mod S."""
        return [self.done[i % self.nstreams][i // self.nstreams] for i in range(self.nmessages)]


async def drive_messages(
    dut: Any,
    schedule: Any,
    messages: Messages,
    *,
    clock: str = "clk",
    period_ns: int = 10,
    start_clock: bool = True,
    scope: Optional[str] = None,
    key: Optional[bytes] = None,
    pers: Optional[bytes] = None,
    public_key: Optional[bytes] = None,
    key_id: Optional[bytes] = None,
    nonce: Optional[bytes] = None,
    tree: Optional[Tuple[int, int, int]] = None,
    bits: Any = None,
    digest_bits: Optional[int] = None,
) -> List[bytes]:
    """Drives the generated Verilog's input port with `messages` as the generated test bench
    does: reset for two rising edges, then at every falling edge the next block of the stream
    whose input register has been free longest (Skein) or the next block in order (Shabal).
    Message i goes to stream i mod S; a stream's messages follow one another as it frees up.
    The Skein options (`key`, `pers`, `public_key`, `key_id`, `nonce`, `tree`, `bits`,
    `digest_bits`) are those of :func:`skeinhw.simulate`: the MAC key and the optional
    arguments go through the port as UBI blocks of their type (``in_type``), a tree's nodes
    carry the child results the core returns on ``res_data``; the core must be built for
    `digest_bits` and `tree` (:func:`skeinhw.generate_verilog`). `scope`: the core's path
    under `dut` (default: `dut` is the core). Returns each message's digest, read from
    ``out_data_*`` when ``out_valid`` is set."""
    sched = _schedule(schedule)
    blocks = skeinhw.host_blocks(
        sched, messages, key=key, pers=pers, public_key=public_key, key_id=key_id,
        nonce=nonce, tree=tree, bits=bits, digest_bits=digest_bits,
    )
    core = resolve(dut, scope) if scope else dut
    shabal = sched.algorithm == "shabal"
    nmessages = 1 if isinstance(messages, (bytes, bytearray, memoryview)) else len(messages)
    ns = sched.blocks_in_flight
    # Shabal: stream i is message i, one after the other.
    nstreams = nmessages if shabal else min(ns, nmessages)
    per_stream: List[List[Dict[str, int]]] = [[] for _ in range(nstreams)]
    for b in blocks:
        per_stream[b["stream"]].append(b)
    word_bytes = 4 if shabal else 8
    if shabal:
        digest_bytes = sched.size // 8
        out_words = digest_bytes // word_bytes
    else:
        digest_bytes = ((digest_bits or sched.size) + 7) // 8
        out_words = sched.size // 64
    collect = _Collector(nmessages, nstreams, digest_bytes)
    ports = {}
    for field, name in _PORTS:
        try:
            ports[field] = getattr(core, name)
        except AttributeError:
            ports[field] = None
    for b in blocks:
        for field, _ in _PORTS:
            if b[field] and ports[field] is None and not shabal:
                raise ValueError(f"the core has no port {dict(_PORTS)[field]}, and a block needs it")

    clk = resolve(core, clock)
    core.rst.value = 1
    core.in_valid.value = 0
    if start_clock:
        clk.value = 0
        _start_clock(clk, period_ns)

    ptr = [0] * nstreams
    shabal_ptr = 0
    freed = [s - 1000000 for s in range(ns)]
    was_ready = [0] * ns
    results: List[List[int]] = [[] for _ in range(nstreams)]
    offered: Optional[int] = None
    edges = 0
    cycle = 0

    def drive(b: Dict[str, int], stream: int) -> None:
        core.in_valid.value = 1
        core.in_stream.value = stream
        data = b["data"] if b["src"] == 0 else results[stream][b["src"] - 1]
        core.in_data.value = data
        core.in_last.value = b["last"]
        if shabal:
            return
        for field, _ in _PORTS:
            if ports[field] is not None:
                ports[field].value = b[field]

    while True:
        await RisingEdge(clk)
        # Values before the edge: the block offered is taken when its stream is ready.
        if offered is not None and _bit(core.in_ready, 0 if shabal else offered):
            if shabal:
                shabal_ptr += 1
            else:
                ptr[offered] += 1
        edges += 1
        if edges >= 4:
            cycle += 1
        if edges == 2:
            # Reset released between the second edge and the falling edge, so that the
            # falling edge sees the ports out of reset (as the generated test bench does).
            await Timer(1, "ns")
            core.rst.value = 0
        await FallingEdge(clk)
        if _bit(core.out_valid, 0):
            stream = int(core.out_stream.value)
            words = [int(getattr(core, f"out_data_{w}").value) for w in range(out_words)]
            collect.add(stream, b"".join(w.to_bytes(word_bytes, "little") for w in words))
            if collect.complete():
                core.in_valid.value = 0
                return collect.digests()
        offered = None
        if shabal:
            if edges >= 3 and shabal_ptr < len(blocks):
                drive(blocks[shabal_ptr], blocks[shabal_ptr]["stream"])
                offered = 0
            else:
                core.in_valid.value = 0
            continue
        if ports["level"] is not None and _bit(core.res_valid, 0):
            results[int(core.res_stream.value)].append(int(core.res_data.value))
        ready_bits = [_bit(core.in_ready, s) for s in range(ns)]
        for s in range(ns):
            if ready_bits[s] and not was_ready[s] and s < nstreams and ptr[s] > 0:
                freed[s] = cycle
            was_ready[s] = ready_bits[s]
        pick = -1
        for s in range(ns - 1, -1, -1):
            if (
                s < nstreams
                and ready_bits[s]
                and ptr[s] < len(per_stream[s])
                and (pick < 0 or freed[s] <= freed[pick])
                and per_stream[s][ptr[s]]["src"] <= len(results[s])
            ):
                pick = s
        if pick >= 0:
            drive(per_stream[pick][ptr[pick]], pick)
            offered = pick
        else:
            core.in_valid.value = 0

