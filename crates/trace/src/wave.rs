//! The signal level under every waveform writer (VCD and FST): a format declares the signals
//! and takes value changes at time stamps; [`Edges`] turns one cycle's values into the changes
//! of its rising edge and the falling clock, and [`SkeinWave`] turns a Skein cycle record into
//! those values. Only changes are written: the formats are value *change* dumps.

use std::io;

use skeinhw_sched::sim::{CycleRecord, TraceHeader};

use crate::names::{self, Signal};

/// Time units per clock cycle (timescale 1 ns): the clock rises at 10 x cycle.
pub const PERIOD: u64 = 10;

/// A waveform file format, at the level of signal indices (into the declared list) and values.
pub(crate) trait WaveFormat {
    /// Declares the scope [`names::SCOPE`] with `signals` (the clock first); `header_json` is
    /// the trace header, kept where the format can hold it.
    fn declare(&mut self, header_json: &str, signals: &[Signal]) -> io::Result<()>;
    /// Starts time stamp `t` (not less than the last one).
    fn time(&mut self, t: u64) -> io::Result<()>;
    /// Signal `i` takes value `v` (its low `width` bits).
    fn change(&mut self, i: usize, v: u64) -> io::Result<()>;
    /// Writes what is buffered and completes the file.
    fn finish(&mut self) -> io::Result<()>;
}

/// The rising and falling edges of a trace in a [`WaveFormat`], writing only what changed.
#[derive(Debug)]
pub(crate) struct Edges<F> {
    pub(crate) format: F,
    prev: Vec<u64>,
}

impl<F: WaveFormat> Edges<F> {
    pub(crate) fn new(format: F) -> Self {
        Edges {
            format,
            prev: Vec::new(),
        }
    }

    /// The number of signals declared.
    pub(crate) fn signal_count(&self) -> usize {
        self.prev.len()
    }

    /// Declares the signals and writes all of them zero (the reset values) at time 0.
    pub(crate) fn declare(&mut self, header_json: &str, signals: &[Signal]) -> io::Result<()> {
        self.format.declare(header_json, signals)?;
        self.format.time(0)?;
        self.prev = vec![0; signals.len()];
        for i in 0..signals.len() {
            self.format.change(i, 0)?;
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
        self.format.time(cycle * PERIOD)?;
        for (i, (&v, prev)) in values.iter().zip(self.prev.iter_mut()).enumerate() {
            if *prev == v || hold(i) {
                continue;
            }
            self.format.change(i, v)?;
            *prev = v;
        }
        self.format.time(cycle * PERIOD + PERIOD / 2)?;
        self.format.change(0, 0)?;
        self.prev[0] = 0;
        Ok(())
    }

    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.format.finish()
    }
}

/// A Skein trace in a [`WaveFormat`]: the signals of [`names::trace_signals`] and the core's
/// `in_ready` port (see [`port_width`]); the output lines hold while no output is valid.
#[derive(Debug)]
pub(crate) struct SkeinWave<F> {
    pub(crate) edges: Edges<F>,
    values: Vec<u64>,
    port: bool,
}

/// Besides `in_ready_<k>`, a waveform carries the bits as the generated core's port `in_ready`
/// (bit k = `in_ready_<k>`), so that the core's `signal_map.json` (`"in_ready_1":
/// "in_ready[1]"`) reads a trace's waveform as it reads the core's; up to 64 streams (one
/// value).
fn port_width(header: &TraceHeader) -> Option<u32> {
    (1..=64)
        .contains(&header.in_ready)
        .then_some(header.in_ready as u32)
}

/// Every signal a waveform of the trace `header` describes declares, in order: those of
/// [`names::trace_signals`], then the `in_ready` port where there is one.
pub fn wave_signals(header: &TraceHeader) -> Vec<Signal> {
    let mut signals = names::trace_signals(header);
    if let Some(width) = port_width(header) {
        signals.push(Signal::new(names::IN_READY_PORT, width));
    }
    signals
}

impl<F: WaveFormat> SkeinWave<F> {
    pub(crate) fn new(format: F) -> Self {
        SkeinWave {
            edges: Edges::new(format),
            values: Vec::new(),
            port: false,
        }
    }

    pub(crate) fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        let json = serde_json::to_string(header).map_err(io::Error::other)?;
        self.port = port_width(header).is_some();
        self.edges.declare(&json, &wave_signals(header))
    }

    pub(crate) fn cycle(&mut self, r: &CycleRecord<'_>) -> io::Result<()> {
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
        let result = self
            .edges
            .edge(r.cycle, &values, |i| idle && out_lines.contains(&i));
        self.values = values;
        result
    }
}
