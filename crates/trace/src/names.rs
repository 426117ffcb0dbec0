//! The signal names of a trace: the VCD writes them and the generated Verilog names its
//! registers after them, so that a trace of the RTL diffs against the golden trace with no
//! mapping. This module is the only place that spells them; see the table in the README.

/// One signal: its name, width in bits, and the 1-bit signal that must be set for its value
/// to matter (the output lines while no output is valid, a pipeline register's contents while
/// it holds no block): a diff skips it otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signal {
    /// The name (a Verilog identifier).
    pub name: String,
    /// Width in bits.
    pub width: u32,
    /// The name of the valid bit that qualifies this signal, if any.
    pub care_if: Option<String>,
}

impl Signal {
    /// A signal that always matters.
    pub fn new(name: impl Into<String>, width: u32) -> Signal {
        Signal {
            name: name.into(),
            width,
            care_if: None,
        }
    }

    /// The same signal, mattering only while `valid` is 1.
    pub fn qualified_by(mut self, valid: impl Into<String>) -> Signal {
        self.care_if = Some(valid.into());
        self
    }
}

use skeinhw_sched::sim::{CycleRecord, TraceHeader};

/// The top-level VCD scope (the Verilog top module's name).
pub const SCOPE: &str = "skeinhw";
/// Clock; rises at time 10 x cycle, falls 5 time units later (timescale 1 ns).
pub const CLK: &str = "clk";
/// Controller phase, 3 bits: 0 idle, 1 key, 2 config, 3 message, 4 output.
pub const PHASE: &str = "phase";
/// An Output UBI block completed in this cycle.
pub const OUT_VALID: &str = "out_valid";
/// Stream (message index) of the output.
pub const OUT_STREAM: &str = "out_stream";
/// Output counter i of the output block.
pub const OUT_INDEX: &str = "out_index";
/// Busy adders of each role (see `skeinhw_sched::sim::AdderBusy`).
pub const BUSY: [&str; 4] = [
    "busy_mix",
    "busy_subkey",
    "busy_key_schedule",
    "busy_first_subkey",
];

/// Width of `phase`.
pub const PHASE_BITS: u32 = 3;
/// Width of stream numbers.
pub const STREAM_BITS: u32 = 32;
/// Width of block indices and output counters.
pub const INDEX_BITS: u32 = 64;
/// Width of the round and subkey counters (Nr = 80 < 128).
pub const COUNTER_BITS: u32 = 8;
/// Width of busy-adder counts.
pub const BUSY_BITS: u32 = 16;
/// Width of a state, key or tweak word.
pub const WORD_BITS: u32 = 64;

/// The core's input handshake port, one bit per stream (a VCD carries it beside the
/// `in_ready_<k>` fields; see `crate::vcd`).
pub const IN_READY_PORT: &str = "in_ready";

/// Bit `k` of the core's `in_ready` port (stream k's input register is free): `in_ready_<k>`.
pub fn in_ready(k: usize) -> String {
    format!("in_ready_{k}")
}

/// Output word `w`: `out_data_<w>`.
pub fn out_data(w: usize) -> String {
    format!("out_data_{w}")
}

/// Register `field` of pipeline slot `slot`: `slot<i>_<field>`, e.g. `slot0_state_3`.
pub fn slot(slot: usize, field: &str) -> String {
    format!("slot{slot}_{field}")
}

/// The per-slot fields, in declaration order, for `words` state words.
pub fn slot_fields(words: usize) -> Vec<(String, u32)> {
    let mut v = vec![
        ("valid".to_owned(), 1),
        ("stream".to_owned(), STREAM_BITS),
        ("phase".to_owned(), PHASE_BITS),
        ("block".to_owned(), INDEX_BITS),
        ("round".to_owned(), COUNTER_BITS),
        ("subkey".to_owned(), COUNTER_BITS),
    ];
    v.extend((0..words).map(|w| (format!("state_{w}"), WORD_BITS)));
    v.extend((0..=words).map(|w| (format!("key_{w}"), WORD_BITS)));
    v.extend((0..3).map(|t| (format!("tweak_{t}"), WORD_BITS)));
    v
}

/// Every signal of a trace with `words` state words and `slots` pipeline registers, in the
/// order the VCD declares them.
pub fn signals(words: usize, slots: usize) -> Vec<Signal> {
    let mut v = vec![
        Signal::new(CLK, 1),
        Signal::new(PHASE, PHASE_BITS),
        Signal::new(OUT_VALID, 1),
        Signal::new(OUT_STREAM, STREAM_BITS).qualified_by(OUT_VALID),
        Signal::new(OUT_INDEX, INDEX_BITS).qualified_by(OUT_VALID),
    ];
    v.extend((0..words).map(|w| Signal::new(out_data(w), WORD_BITS).qualified_by(OUT_VALID)));
    v.extend(BUSY.iter().map(|b| Signal::new(*b, BUSY_BITS)));
    for s in 0..slots {
        let valid = slot(s, "valid");
        for (field, width) in slot_fields(words) {
            let sig = Signal::new(slot(s, &field), width);
            v.push(if field == "valid" {
                sig
            } else {
                sig.qualified_by(valid.clone())
            });
        }
    }
    v
}

/// Every signal of the trace `header` describes: those of [`signals`], then `in_ready_<k>`
/// for each of its [`TraceHeader::in_ready`] streams (none where the run models no feed).
pub fn trace_signals(header: &TraceHeader) -> Vec<Signal> {
    let mut v = signals(header.words, header.slots);
    v.extend((0..header.in_ready).map(|k| Signal::new(in_ready(k), 1)));
    v
}

/// The value of every signal of [`trace_signals`] for one cycle, in the same order (so that a
/// reader can zip the two; the `in_ready` bits come last, so [`signals`] zips too).
/// `out_stream`, `out_index` and `out_data_*` are don't-care (written as all ones here) when
/// no output is valid; the VCD writer keeps their previous values instead.
pub fn values(r: &CycleRecord<'_>, out: &mut Vec<u64>) {
    let nw = r.words;
    out.clear();
    out.push(1); // clk, high after the rising edge
    out.push(u64::from(r.phase.code()));
    match &r.out {
        Some(o) => {
            out.push(1);
            out.push(u64::from(o.stream));
            out.push(o.index);
            out.extend_from_slice(&o.data[..nw]);
        }
        None => {
            out.push(0);
            // Keep the last output on the data lines: mark "unchanged" with the caller's prev.
            out.extend(std::iter::repeat_n(u64::MAX, 2 + nw));
        }
    }
    out.push(u64::from(r.busy.mix));
    out.push(u64::from(r.busy.subkey));
    out.push(u64::from(r.busy.key_schedule));
    out.push(u64::from(r.busy.first_subkey));
    for s in r.slots {
        out.push(u64::from(s.valid));
        out.push(u64::from(s.stream));
        out.push(u64::from(s.phase.code()));
        out.push(s.block);
        out.push(u64::from(s.round));
        out.push(u64::from(s.subkey));
        out.extend_from_slice(&s.state[..nw]);
        out.extend_from_slice(&s.key[..=nw]);
        out.extend_from_slice(&s.tweak);
    }
    out.extend(r.in_ready.iter().map(|&b| u64::from(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_verilog_identifiers() {
        let sigs = signals(16, 3);
        let mut names: Vec<&str> = sigs.iter().map(|s| s.name.as_str()).collect();
        assert!(names.iter().all(|n| {
            n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), sigs.len());
        assert_eq!(sigs.len(), 5 + 16 + 4 + 3 * (6 + 16 + 17 + 3));
        assert!(sigs.iter().any(|s| s.name == "slot2_state_15"));
    }
}
