//! The options of a diff, shared by both alignments and both algorithms: the lowest module of
//! the crate (it depends on nothing here), so that every comparison can take them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use skeinhw_trace::names;

/// How to read the waveform.
#[derive(Clone, Debug, Default)]
pub struct WaveOptions {
    /// Clock signal name (after prefix stripping).
    pub clock: String,
    /// A prefix removed from every signal name of the file before matching (Verilator adds
    /// `TOP.`).
    pub strip_prefix: Option<String>,
    /// Where the diff says how far it has read the waveform, for a progress meter.
    pub progress: ReadProgress,
}

/// How far the waveform has been read: the file offset after the reader's last read or seek
/// (an FST's blocks are read in file order, a VCD straight through), to be shown against the
/// file's size by another thread. Clones share one count; the default is a count nobody reads.
#[derive(Clone, Debug, Default)]
pub struct ReadProgress(Arc<AtomicU64>);

impl ReadProgress {
    /// A new count, at 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The offset reached, in bytes.
    pub fn position(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn set(&self, offset: u64) {
        self.0.store(offset, Ordering::Relaxed);
    }
}

/// How to line the two up.
#[derive(Clone, Debug)]
pub struct CycleOptions {
    /// The waveform's clock and prefix handling.
    pub wave: WaveOptions,
    /// RTL edges before the golden trace's first cycle (reset).
    pub reset_cycles: u64,
    /// Further RTL edges to skip (may be negative: golden cycles to skip).
    pub offset: i64,
    /// Cycles of context shown before and after the divergence.
    pub context: usize,
    /// Accept RTL edges after the golden trace's last cycle (a test bench that runs on).
    pub allow_trailing: bool,
    /// Accept a map that covers only some words of a register (the verdict names the rest).
    pub partial: bool,
}

impl Default for CycleOptions {
    fn default() -> Self {
        CycleOptions {
            wave: WaveOptions {
                clock: names::CLK.to_string(),
                strip_prefix: None,
                progress: ReadProgress::default(),
            },
            reset_cycles: 0,
            offset: 0,
            context: 3,
            allow_trailing: false,
            partial: false,
        }
    }
}
