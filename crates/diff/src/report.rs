//! What a diff found, for people (text) and scripts (JSON).

use std::fmt;

use serde::Serialize;

/// The outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every compared cycle agrees.
    Identical,
    /// A field differs (or is X/Z) on some cycle.
    Divergent,
    /// The RTL run has fewer (or, unless allowed, more) cycles than the golden trace.
    LengthMismatch,
}

/// One field that differs on the divergent cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldDiff {
    /// Trace field (signal) name.
    pub field: String,
    /// The golden value, hex.
    pub golden: String,
    /// The RTL value, hex, or the X/Z it holds.
    pub rtl: String,
    /// The RTL value is X or Z (never equal to a known value).
    pub unknown: bool,
}

/// Where the divergent cycle is, in the spec's words: what each busy pipeline register holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlotWhere {
    /// Pipeline register.
    pub slot: usize,
    /// Stream (message index).
    pub stream: u32,
    /// Controller phase of the block (a constant name: no allocation per golden cycle).
    pub phase: &'static str,
    /// Block index among the stream's UBI blocks.
    pub block: u64,
    /// Rounds done.
    pub round: u32,
    /// Next subkey to inject.
    pub subkey: u32,
}

/// One cycle around the divergence, for the divergent fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContextRow {
    /// Golden cycle.
    pub cycle: u64,
    /// (field, golden, rtl) for each divergent field.
    pub values: Vec<(String, String, String)>,
}

/// The first divergent cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// Golden cycle number.
    pub cycle: u64,
    /// Index of the RTL rising edge compared with it (from 0).
    pub rtl_edge: u64,
    /// Simulation time of that edge.
    pub time: u64,
    /// Controller phase in the golden trace.
    pub phase: String,
    /// What the busy pipeline registers hold.
    pub location: Vec<SlotWhere>,
    /// Every field that differs.
    pub fields: Vec<FieldDiff>,
    /// A few cycles before and after.
    pub context: Vec<ContextRow>,
    /// Found by event alignment: `cycle` is the RTL edge, there is no golden cycle to name.
    #[serde(skip)]
    pub event: bool,
}

/// The result of a diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiffReport {
    /// The outcome.
    pub verdict: Verdict,
    /// Cycles compared.
    pub compared_cycles: u64,
    /// Golden trace cycles read.
    pub golden_cycles: u64,
    /// RTL rising edges read (including skipped reset cycles).
    pub rtl_edges: u64,
    /// Fields compared per cycle.
    pub fields: usize,
    /// The first divergence, if any.
    pub first_divergence: Option<Divergence>,
    /// Event alignment: events expected of the design (the kinds it registers, in every block
    /// it computes).
    pub events_expected: u64,
    /// Event alignment: of those, events seen.
    pub events_matched: u64,
    /// Event alignment: per block (runs merged), which kinds were seen.
    pub blocks: Vec<String>,
    /// Fields a `--partial` map leaves out (never compared).
    pub left_out: Vec<String>,
    /// The one-line verdict.
    pub summary: String,
}

impl DiffReport {
    /// Exit status: 0 identical, 1 otherwise.
    pub fn exit_status(&self) -> u8 {
        u8::from(self.verdict != Verdict::Identical)
    }
}

impl fmt::Display for DiffReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.blocks {
            writeln!(f, "{line}")?;
        }
        if let Some(d) = &self.first_divergence {
            if d.event {
                writeln!(
                    f,
                    "first divergence at RTL edge {} (time {}): {}",
                    d.rtl_edge, d.time, d.phase
                )?;
            } else {
                writeln!(
                    f,
                    "first divergence at golden cycle {} (RTL edge {}, time {}), phase {}",
                    d.cycle, d.rtl_edge, d.time, d.phase
                )?;
            }
            for s in &d.location {
                writeln!(
                    f,
                    "  slot {}: stream {}, {} block {}, round {}, next subkey {}",
                    s.slot, s.stream, s.phase, s.block, s.round, s.subkey
                )?;
            }
            let width = d.fields.iter().map(|x| x.field.len()).max().unwrap_or(5);
            for x in &d.fields {
                let note = if x.unknown {
                    "  (X/Z: not a known value)"
                } else if x.golden != x.rtl {
                    "  <-- differs"
                } else {
                    ""
                };
                writeln!(
                    f,
                    "  {:width$}  golden {}  rtl {}{note}",
                    x.field, x.golden, x.rtl
                )?;
            }
            if !d.context.is_empty() {
                writeln!(f, "context:")?;
                for row in &d.context {
                    let mark = if row.cycle == d.cycle { ">" } else { " " };
                    for (field, g, r) in &row.values {
                        let same = if g == r { "" } else { "  <-- differs" };
                        writeln!(
                            f,
                            "{mark} cycle {:>8}  {:width$}  golden {g}  rtl {r}{same}",
                            row.cycle, field
                        )?;
                    }
                }
            }
        }
        write!(f, "{}", self.summary)
    }
}
