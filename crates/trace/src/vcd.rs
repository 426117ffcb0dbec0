//! VCD traces, written with the `vcd` crate: one scope (`skeinhw`), the signals of
//! [`crate::names`], the clock rising at time 10 x cycle (timescale 1 ns) with every register
//! changing at that edge, and the [`TraceHeader`] as JSON in a `$comment` so that a reader
//! knows the schedule. Only changes are written (it is a value *change* dump).

use std::collections::HashMap;
use std::io::{self, BufRead, Write};

use skeinhw_sched::sim::{
    AdderBusy, CycleRecord, MAX_WORDS, OutputRecord, OwnedCycleRecord, Phase, SlotRecord,
    TraceHeader, TraceSink,
};
use vcd::{IdCode, ScopeItem, TimescaleUnit, Value};

use crate::error::TraceError;
use crate::names::{self, Signal};

/// Time units per clock cycle.
pub const PERIOD: u64 = 10;

/// Prefix of the `$comment` that carries the header.
const HEADER_COMMENT: &str = "skeinhw-trace ";

/// The signal-level VCD writer under both algorithms' traces: the header comment, one scope
/// of signals, then per rising edge only the values that changed and the falling clock.
pub(crate) struct SignalVcd<W: Write> {
    vcd: vcd::Writer<W>,
    ids: Vec<IdCode>,
    widths: Vec<u32>,
    prev: Vec<u64>,
}

impl<W: Write> SignalVcd<W> {
    pub(crate) fn new(out: W) -> Self {
        SignalVcd {
            vcd: vcd::Writer::new(out),
            ids: Vec::new(),
            widths: Vec::new(),
            prev: Vec::new(),
        }
    }

    /// Writes the header: `header_json` in a comment, the signals (the clock first), and all
    /// values zero at time 0.
    pub(crate) fn declare(
        &mut self,
        header_json: &str,
        signals: &[names::Signal],
    ) -> io::Result<()> {
        self.vcd
            .comment(&format!("{HEADER_COMMENT}{header_json}"))?;
        self.vcd.timescale(1, TimescaleUnit::NS)?;
        self.vcd.add_module(names::SCOPE)?;
        for sig in signals {
            self.ids.push(self.vcd.add_wire(sig.width, &sig.name)?);
            self.widths.push(sig.width);
        }
        self.vcd.upscope()?;
        self.vcd.enddefinitions()?;
        self.vcd.timestamp(0)?;
        self.prev = vec![0; self.ids.len()];
        for i in 0..self.ids.len() {
            self.change(i, 0)?;
        }
        Ok(())
    }

    /// Writes rising edge `cycle` with `values` (one per signal; index 0 is the clock), except
    /// the signals `hold` says keep their previous value; then the falling clock.
    pub(crate) fn edge(
        &mut self,
        cycle: u64,
        values: &[u64],
        hold: impl Fn(usize) -> bool,
    ) -> io::Result<()> {
        self.vcd.timestamp(cycle * PERIOD)?;
        for (i, &v) in values.iter().enumerate() {
            if hold(i) || self.prev[i] == v {
                continue;
            }
            self.change(i, v)?;
            self.prev[i] = v;
        }
        self.vcd.timestamp(cycle * PERIOD + PERIOD / 2)?;
        self.change(0, 0)?;
        self.prev[0] = 0;
        Ok(())
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.vcd.flush()
    }

    fn change(&mut self, i: usize, v: u64) -> io::Result<()> {
        let width = self.widths[i];
        if width == 1 {
            self.vcd
                .change_scalar(self.ids[i], if v & 1 == 1 { Value::V1 } else { Value::V0 })
        } else {
            let bits = (0..width).rev().map(|b| {
                if (v >> b) & 1 == 1 {
                    Value::V1
                } else {
                    Value::V0
                }
            });
            self.vcd.change_vector(self.ids[i], bits)
        }
    }
}

/// Writes a VCD trace to `W` (give it a buffered writer).
pub struct VcdWriter<W: Write> {
    vcd: SignalVcd<W>,
    values: Vec<u64>,
    /// The `in_ready` bits are also written as the core's port (see [`port_width`]).
    port: bool,
}

/// Besides `in_ready_<k>`, a VCD carries the bits as the generated core's port `in_ready`
/// (bit k = `in_ready_<k>`), so that the core's `signal_map.json` (`"in_ready_1":
/// "in_ready[1]"`) reads a trace's VCD as it reads the core's; up to 64 streams (one value).
fn port_width(header: &TraceHeader) -> Option<u32> {
    (1..=64)
        .contains(&header.in_ready)
        .then_some(header.in_ready as u32)
}

impl<W: Write> std::fmt::Debug for VcdWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VcdWriter")
            .field("signals", &self.vcd.ids.len())
            .finish()
    }
}

impl<W: Write> VcdWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> Self {
        VcdWriter {
            vcd: SignalVcd::new(out),
            values: Vec::new(),
            port: false,
        }
    }
}

impl<W: Write> TraceSink for VcdWriter<W> {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        let json = serde_json::to_string(header).map_err(io::Error::other)?;
        let mut signals = names::trace_signals(header);
        if let Some(width) = port_width(header) {
            signals.push(Signal::new(names::IN_READY_PORT, width));
        }
        self.port = port_width(header).is_some();
        self.vcd.declare(&json, &signals)
    }

    fn cycle(&mut self, r: &CycleRecord<'_>) -> io::Result<()> {
        let mut values = std::mem::take(&mut self.values);
        names::values(r, &mut values);
        if self.port {
            let packed = r
                .in_ready
                .iter()
                .enumerate()
                .fold(0u64, |v, (k, &b)| v | (u64::from(b) << k));
            values.push(packed);
        }
        // The output lines keep their last value while no output is valid.
        let out_lines = 3..5 + r.words; // out_stream, out_index, out_data_*
        let idle = r.out.is_none();
        self.vcd
            .edge(r.cycle, &values, |i| idle && out_lines.contains(&i))?;
        self.values = values;
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.vcd.flush()
    }
}

// ---- reading ------------------------------------------------------------------------------

/// Reads a VCD trace this crate wrote back into records, sampling every signal at each rising
/// edge of `clk` (values changed at the edge's time stamp count, as the writer puts them
/// there).
pub fn read_vcd<R: BufRead>(input: R) -> Result<(TraceHeader, Vec<OwnedCycleRecord>), TraceError> {
    let mut parser = vcd::Parser::new(input);
    let header = parser
        .parse_header()
        .map_err(|e| TraceError::Vcd(format!("header: {e}")))?;
    let mut trace_header = None;
    let mut vars: HashMap<String, IdCode> = HashMap::new();
    for item in &header.items {
        match item {
            ScopeItem::Comment(c) => {
                if let Some(json) = c.trim().strip_prefix(HEADER_COMMENT) {
                    trace_header = Some(
                        serde_json::from_str::<TraceHeader>(json)
                            .map_err(|e| TraceError::Vcd(format!("header comment: {e}")))?,
                    );
                }
            }
            ScopeItem::Scope(s) if s.identifier == names::SCOPE => {
                for v in &s.items {
                    if let ScopeItem::Var(v) = v {
                        vars.insert(v.reference.clone(), v.code);
                    }
                }
            }
            _ => {}
        }
    }
    let th = trace_header.ok_or_else(|| {
        TraceError::Vcd("no `skeinhw-trace` header comment: not a skeinhw trace".into())
    })?;
    let sigs = names::trace_signals(&th);
    let mut index: HashMap<IdCode, usize> = HashMap::new();
    for (i, s) in sigs.iter().enumerate() {
        let id = vars
            .get(&s.name)
            .ok_or_else(|| TraceError::Vcd(format!("signal `{}` is missing", s.name)))?;
        index.insert(*id, i);
    }
    let mut values = vec![0u64; sigs.len()];
    let mut records = Vec::new();
    let mut time = 0u64;
    let mut rose = false;
    let sample = |time: u64, values: &[u64], out: &mut Vec<OwnedCycleRecord>| {
        if time.is_multiple_of(PERIOD) && time > 0 {
            out.push(record_of(&th, time / PERIOD, values));
        }
    };
    for cmd in parser {
        let cmd = cmd.map_err(|e| TraceError::Vcd(e.to_string()))?;
        match cmd {
            vcd::Command::Timestamp(t) => {
                if rose {
                    sample(time, &values, &mut records);
                }
                rose = false;
                time = t;
            }
            vcd::Command::ChangeScalar(id, v) => {
                if let Some(&i) = index.get(&id) {
                    values[i] = u64::from(v == Value::V1);
                    if i == 0 && v == Value::V1 {
                        rose = true;
                    }
                }
            }
            vcd::Command::ChangeVector(id, v) => {
                if let Some(&i) = index.get(&id) {
                    let mut x = 0u64;
                    for b in &v {
                        match b {
                            Value::V0 => x <<= 1,
                            Value::V1 => x = (x << 1) | 1,
                            other => {
                                return Err(TraceError::Vcd(format!(
                                    "time {time}: signal `{}` is {other}, expected 0 or 1",
                                    sigs[i].name
                                )));
                            }
                        }
                    }
                    values[i] = x;
                }
            }
            _ => {}
        }
    }
    if rose {
        sample(time, &values, &mut records);
    }
    Ok((th, records))
}

fn record_of(th: &TraceHeader, cycle: u64, v: &[u64]) -> OwnedCycleRecord {
    let nw = th.words;
    let phase = |c: u64| Phase::from_code(c as u8).unwrap_or_default();
    let out = if v[2] == 1 {
        let mut data = [0u64; MAX_WORDS];
        data[..nw].copy_from_slice(&v[5..5 + nw]);
        Some(OutputRecord {
            stream: v[3] as u32,
            index: v[4],
            data,
        })
    } else {
        None
    };
    let b = 5 + nw;
    let busy = AdderBusy {
        mix: v[b] as u32,
        subkey: v[b + 1] as u32,
        key_schedule: v[b + 2] as u32,
        first_subkey: v[b + 3] as u32,
    };
    let per_slot = names::slot_fields(nw).len();
    let ready = b + 4 + th.slots * per_slot;
    let slots = (0..th.slots)
        .map(|s| {
            let f = &v[b + 4 + s * per_slot..b + 4 + (s + 1) * per_slot];
            let mut slot = SlotRecord {
                valid: f[0] == 1,
                stream: f[1] as u32,
                phase: phase(f[2]),
                block: f[3],
                round: f[4] as u32,
                subkey: f[5] as u32,
                ..SlotRecord::default()
            };
            slot.state[..nw].copy_from_slice(&f[6..6 + nw]);
            slot.key[..=nw].copy_from_slice(&f[6 + nw..7 + 2 * nw]);
            slot.tweak.copy_from_slice(&f[7 + 2 * nw..10 + 2 * nw]);
            slot
        })
        .collect();
    OwnedCycleRecord {
        cycle,
        phase: phase(v[1]),
        words: nw,
        slots,
        busy,
        out,
        in_ready: v[ready..ready + th.in_ready]
            .iter()
            .map(|&b| b == 1)
            .collect(),
    }
}
