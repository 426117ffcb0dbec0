"""GoldenChecker: the DUT against the golden model at every rising clock edge (see
:mod:`skeinhw.cocotb`)."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from cocotb.triggers import ReadOnly, RisingEdge

import skeinhw

from ._compat import bits as _bits
from ._compat import sim_time_ns

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
    binstr = _bits(handle.value)
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
    - `scope`: the dotted path under `dut` of the design the map (or the generated design's
      names) refers to, e.g. ``"dut"`` when the toplevel is a test bench that instantiates the
      core as ``dut``; the clock and reset are looked up there too.
    - `key`, `pers`, `public_key`, `key_id`, `nonce`, `tree`, `bits`, `digest_bits`: the Skein
      options of every message, as in :func:`skeinhw.simulate` (a core built for
      ``digest_bits``/``tree``: :func:`skeinhw.generate_verilog`). More messages than streams
      run back to back: message i on stream i mod S, as :func:`drive_messages` feeds them.
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
        scope: Optional[str] = None,
        context: int = 3,
        partial: bool = False,
        max_edges: Optional[int] = None,
        key: Optional[bytes] = None,
        pers: Optional[bytes] = None,
        public_key: Optional[bytes] = None,
        key_id: Optional[bytes] = None,
        nonce: Optional[bytes] = None,
        tree: Optional[Tuple[int, int, int]] = None,
        bits: Any = None,
        digest_bits: Optional[int] = None,
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
            pers=pers,
            public_key=public_key,
            key_id=key_id,
            nonce=nonce,
            tree=tree,
            bits=bits,
            digest_bits=digest_bits,
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
        top = resolve(dut, scope) if scope else dut
        self._clock = resolve(top, clock_name)
        self._reset = resolve(top, reset) if reset else None
        self._skip = skip
        self._probes = [
            (field, resolve(top, signal), slice_)
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
        binstr = _bits(self._reset.value)
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
                if not self._diff.step(edge - 1, sim_time_ns(), values):
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
