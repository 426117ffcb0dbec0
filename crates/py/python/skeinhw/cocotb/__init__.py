"""The skeinhw golden model inside a cocotb test bench.

:class:`GoldenChecker` compares the DUT with the golden model at every rising clock edge,
through the same Rust comparison as ``skeinhw diff`` (:class:`skeinhw.LiveDiff`), cycle by
cycle or at architectural events (``align="event"``, for RTL of another schedule), and fails
the test at the first divergence with the same report: golden cycle (or RTL edge and event),
field, both values, context. :func:`drive_messages` feeds the generated Verilog's input port exactly as its own
test bench does, so that the golden cycles line up with the DUT's.

Example (the generated design ``skeinhw`` as the cocotb toplevel)::

    import cocotb
    from skeinhw.cocotb import GoldenChecker, drive_messages

    @cocotb.test()
    async def golden(dut):
        messages = [b"abc", b"", b"x" * 200]
        checker = GoldenChecker(dut, "ath-1r", messages)
        task = cocotb.start_soon(checker.run())
        await drive_messages(dut, "ath-1r", messages)
        await task          # raises on a divergence, or if nothing was compared

Runs on cocotb 1.9 with Icarus Verilog 11 (Debian 12) and Verilator 5.006, and with GHDL 2.0 on
VHDL sources (the checker reads any simulator's signals; the generated design is Verilog).
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, Timer

import skeinhw

__all__ = ["GoldenChecker", "GoldenMismatch", "drive_messages", "resolve"]

Messages = Union[bytes, Sequence[bytes]]


class GoldenMismatch(AssertionError):
    """The DUT diverged from the golden model (or nothing could be compared)."""

    def __init__(self, report: str):
        super().__init__(report)
        self.report = report


def _schedule(schedule: Any) -> "skeinhw.Schedule":
    if isinstance(schedule, skeinhw.Schedule):
        return schedule
    if isinstance(schedule, str):
        if schedule.endswith(".json") or os.path.isfile(schedule):
            with open(schedule, encoding="utf-8") as f:
                return skeinhw.Schedule.from_json(f.read())
        return skeinhw.Schedule.preset(schedule)
    raise TypeError(
        f"schedule: a skeinhw.Schedule or a preset name is required, not {type(schedule).__name__!r}"
    )


def resolve(dut: Any, name: str) -> Any:
    """The handle of the hierarchical signal `name` under `dut` (a leading component equal to
    the toplevel's own name is dropped, so map scopes like ``tb.dut`` work with ``tb`` as the
    toplevel)."""
    parts = name.split(".")
    if len(parts) > 1 and parts[0] == dut._name:
        parts = parts[1:]
    handle = dut
    for i, part in enumerate(parts):
        try:
            handle = getattr(handle, part)
        except AttributeError:
            where = ".".join([dut._name] + parts[:i]) or dut._name
            raise AttributeError(f"no signal '{part}' in {where} (map entry '{name}')") from None
    return handle


def _read(handle: Any, width_hint: Optional[Tuple[int, int]]) -> Any:
    """A probe's value for LiveDiff.step: an int, a list of 64-bit words, or the X/Z char."""
    value = handle.value
    binstr = value.binstr
    if width_hint is not None:
        hi, lo = width_hint
        n = len(binstr)
        if hi >= n:
            return "x"
        binstr = binstr[n - 1 - hi : n - lo]
    for c in binstr:
        if c not in "01":
            return c.lower()
    v = int(binstr, 2) if binstr else 0
    if v >> 64:
        words = []
        while v:
            words.append(v & 0xFFFFFFFFFFFFFFFF)
            v >>= 64
        return words
    return v


class GoldenChecker:
    """Compares the DUT with the golden model of `messages` on `schedule` at every rising edge.

    - `map`: a signal map (a file name, its JSON text, or a dict: the format of
      ``skeinhw diff --map``); None for the generated Verilog (every trace field is the DUT
      signal of the same name).
    - `align`: "cycle" (golden cycle c against the c-th compared rising edge) or "event" (the
      mapped registers must take the golden model's architectural events in order, as
      ``skeinhw diff --align event`` checks a waveform: for RTL of another schedule or
      latency; see :func:`skeinhw.events`). On a Skein schedule the events are Threefish's
      (the state before and after each subkey, key, tweak, feed-forward, digest); on a Shabal
      schedule A, B and C after each round (``a_<i>``, ``b_<i>``, ``c_<i>``) and the digest
      (``out_valid``, ``out_data_<w>``). Event alignment ends once the mapped digest port
      has shown every digest, or after `max_edges` rising edges.
    - `clock`: the clock's name (the map's ``clock`` wins when it names one).
    - `reset`: the active-high reset (None: no reset); edges while it is 1 are not counted.
    - `skip`: rising edges after reset before the golden trace's first cycle (default 1 for
      cycle alignment, the generated Verilog driven by :func:`drive_messages`: the edge that
      loads the first block; 0 for event alignment).
    - `key`, `bits`: the MAC key and message bit lengths, as in :func:`skeinhw.simulate`.
    - `partial`: event alignment accepts a register mapped in part (``--partial``).
    - `max_edges`: event alignment stops after this many edges after reset (default ten
      times the golden run's cycles plus 10,000).

    ``checker.compared`` gives ``{"cycles": n, "fields": f}``; ``checker.report`` the text.
    """

    def __init__(
        self,
        dut: Any,
        schedule: Any,
        messages: Messages,
        *,
        map: Union[None, str, os.PathLike, Dict[str, Any]] = None,
        align: str = "cycle",
        clock: str = "clk",
        reset: Optional[str] = "rst",
        skip: Optional[int] = None,
        key: bytes = b"",
        bits: Any = None,
        context: int = 3,
        partial: bool = False,
        max_edges: Optional[int] = None,
    ):
        if align not in ("cycle", "event"):
            raise ValueError(f"align={align!r}: \"cycle\" or \"event\"")
        if skip is None:
            skip = 1 if align == "cycle" else 0
        if skip < 0:
            raise ValueError(f"skip must not be negative, got {skip}")
        self.dut = dut
        self.schedule = _schedule(schedule)
        self.align = align
        map_text, map_name = _map_text(map)
        self._diff = skeinhw.LiveDiff(
            self.schedule,
            messages,
            key=key,
            bits=bits,
            map=map_text,
            map_name=map_name,
            context=context,
            align=align,
            partial=partial,
        )
        if max_edges is None and align == "event":
            max_edges = 10 * (self._diff.golden_cycles or 0) + 10000
        if max_edges is not None and max_edges < 1:
            raise ValueError(f"max_edges must be at least 1, got {max_edges}")
        self._max_edges = max_edges
        clock_name = self._diff.clock or clock
        self._clock = resolve(dut, clock_name)
        self._reset = resolve(dut, reset) if reset else None
        self._skip = skip
        self._probes = [
            (field, resolve(dut, signal), slice_)
            for field, signal, slice_ in self._diff.probes
        ]
        self.report: Optional[str] = None
        self.verdict: Optional[str] = None
        self._compared = 0
        self._golden_cycles = 0

    @property
    def compared(self) -> Dict[str, int]:
        """Cycles compared so far and fields per cycle."""
        cycles = self._compared if self.verdict is not None else self._diff.compared
        return {"cycles": cycles, "fields": self._diff.fields}

    def _in_reset(self) -> bool:
        if self._reset is None:
            return False
        binstr = self._reset.value.binstr
        return binstr != "0" * len(binstr)

    async def run(self) -> None:
        """Compares until the golden trace ends; raises :class:`GoldenMismatch` at the first
        divergence, or when the DUT stopped before anything was compared."""
        edge = 0
        after_reset = 0
        try:
            while True:
                await RisingEdge(self._clock)
                await ReadOnly()
                edge += 1
                if self._in_reset():
                    after_reset = 0
                    continue
                after_reset += 1
                if after_reset <= self._skip:
                    continue
                values = [_read(h, s) for _, h, s in self._probes]
                time = cocotb.utils.get_sim_time("ns")
                if not self._diff.step(edge - 1, int(time), values):
                    break
                if self._max_edges is not None and after_reset - self._skip >= self._max_edges:
                    break
        finally:
            if self.verdict is None:
                self._finish()
        if self.verdict != "identical":
            raise GoldenMismatch(self.report or "")

    def _finish(self) -> None:
        try:
            verdict, text, compared, _fields, golden = self._diff.finish()
        except ValueError as e:
            verdict, text, compared, golden = "error", str(e), 0, 0
        self.verdict, self.report = verdict, text
        self._compared, self._golden_cycles = compared, golden
        log = self.dut._log
        (log.info if verdict == "identical" else log.error)("skeinhw golden checker: %s", text)
        path = os.environ.get("SKEINHW_COCOTB_REPORT")
        if path:
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"verdict": verdict, "report": text, "compared": compared}, f)

    def check(self) -> None:
        """Raises unless the checker finished and everything it compared agreed."""
        if self.verdict is None:
            self._finish()
        if self.verdict != "identical":
            raise GoldenMismatch(self.report or "")


def _map_text(map: Any) -> Tuple[Optional[str], str]:
    if map is None:
        return None, "map"
    if isinstance(map, dict):
        return json.dumps(map), "map"
    text = str(os.fspath(map))
    if text.lstrip().startswith("{"):
        return text, "map"
    with open(text, encoding="utf-8") as f:
        return f.read(), text


def _bit(handle: Any, index: int) -> int:
    binstr = handle.value.binstr
    if index >= len(binstr):
        return 0
    c = binstr[len(binstr) - 1 - index]
    return 1 if c == "1" else 0


async def drive_messages(
    dut: Any,
    schedule: Any,
    messages: Messages,
    *,
    key: bytes = b"",
    bits: Any = None,
    clock: str = "clk",
    period_ns: int = 10,
    start_clock: bool = True,
) -> List[bytes]:
    """Drives the generated Verilog's input port with `messages` (one stream each; `key`
    makes each a MAC) as the generated test bench does: reset for two rising edges, then at
    every falling edge the next block of the stream whose input register has been free longest
    (Skein) or the next block in order (Shabal). Returns each stream's digest, read from
    ``out_data_*`` when ``out_valid`` is set."""
    sched = _schedule(schedule)
    blocks = skeinhw.input_blocks(sched, messages, key=key, bits=bits)
    shabal = sched.algorithm == "shabal"
    nstreams = 1 if isinstance(messages, (bytes, bytearray, memoryview)) else len(messages)
    per_stream: List[List[Tuple[Any, ...]]] = [[] for _ in range(nstreams)]
    for b in blocks:
        per_stream[b[0]].append(b)
    order = blocks  # Shabal: one after the other
    ns = sched.blocks_in_flight
    word_bytes = 4 if shabal else 8
    digest_bytes = sched.size // 8
    out_words = digest_bytes // word_bytes if shabal else sched.size // 64

    clk = resolve(dut, clock)
    dut.rst.value = 1
    dut.in_valid.value = 0
    if start_clock:
        clk.value = 0
        cocotb.start_soon(Clock(clk, period_ns, units="ns").start(start_high=False))

    ptr = [0] * nstreams
    shabal_ptr = 0
    freed = [s - 1000000 for s in range(ns)]
    was_ready = [0] * ns
    offered: Optional[int] = None
    digests: Dict[int, bytes] = {}
    edges = 0
    cycle = 0

    def drive(b: Tuple[Any, ...]) -> None:
        stream, k, first, last, bitpad, nbytes, data = b
        dut.in_valid.value = 1
        dut.in_stream.value = stream
        dut.in_data.value = data
        dut.in_last.value = int(last)
        if not shabal:
            dut.in_key.value = int(k)
            dut.in_first.value = int(first)
            dut.in_bitpad.value = int(bitpad)
            dut.in_bytes.value = nbytes
            try:
                # A key or message block (type 0 means the message); cores older than the
                # in_type port have none.
                dut.in_type.value = 0
            except AttributeError:
                pass

    while True:
        await RisingEdge(clk)
        # Values before the edge: the block offered is taken when its stream is ready.
        if offered is not None:
            ready = _bit(dut.in_ready, 0 if shabal else offered)
            if ready:
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
            await Timer(1, units="ns")
            dut.rst.value = 0
        await FallingEdge(clk)
        if _bit(dut.out_valid, 0):
            stream = int(dut.out_stream.value)
            words = [int(getattr(dut, f"out_data_{w}").value) for w in range(out_words)]
            data = b"".join(w.to_bytes(word_bytes, "little") for w in words)
            digests[stream] = digests.get(stream, b"") + data
            if sum(len(d) >= digest_bytes for d in digests.values()) == nstreams:
                dut.in_valid.value = 0
                return [digests[s][:digest_bytes] for s in range(nstreams)]
        offered = None
        if shabal:
            if edges >= 3 and shabal_ptr < len(order):
                drive(order[shabal_ptr])
                offered = order[shabal_ptr][0]
            else:
                dut.in_valid.value = 0
            continue
        ready_bits = [_bit(dut.in_ready, s) for s in range(ns)]
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
            ):
                pick = s
        if pick >= 0:
            drive(per_stream[pick][ptr[pick]])
            offered = pick
        else:
            dut.in_valid.value = 0
