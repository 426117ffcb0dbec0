//! Shabal cores: the Verilog of a [`ShabalSchedule`] (P unfolded f iterations per cycle), its
//! test bench, the input file for it and the reading of its digests. The files, the runners
//! ([`crate::build`], [`crate::run`]), the clock and the VCD conventions are those of the Skein
//! designs; the registers carry the names of `skeinhw_trace::shabal::signals`.
//!
//! ```
//! use skeinhw_sched::shabal;
//! let design = skeinhw_rtl::shabal::generate(&shabal::preset("shabal-unfold-4")?);
//! assert!(design.verilog.contains("module skeinhw ("));
//! # Ok::<(), skeinhw_sched::ScheduleError>(())
//! ```

pub(crate) mod compare;
mod design;
mod testbench;

use std::path::Path;

use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_shabal::constants::BLOCK_BYTES;

pub use compare::{compare_vcd, reset_expected, with_idle_cycles};

use crate::stimulus::{InBlock, block_line};
use crate::{
    CORE_FILE, CoreInfo, DESIGN_FILE, MAP_FILE, Message, RtlError, RunOutput, SCHEDULE_FILE,
    TESTBENCH_FILE,
};

/// A generated Shabal core: the Verilog of the design and its test bench, and the signal map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShabalDesign {
    /// The schedule it implements.
    pub schedule: ShabalSchedule,
    /// `skeinhw.v`.
    pub verilog: String,
    /// `skeinhw_tb.v`.
    pub testbench: String,
    /// `signal_map.json`.
    pub signal_map: String,
}

/// Generates the core of `schedule` (every valid Shabal schedule can be generated).
pub fn generate(schedule: &ShabalSchedule) -> ShabalDesign {
    let plan = design::ShabalPlan::new(schedule);
    ShabalDesign {
        schedule: schedule.clone(),
        verilog: design::design(&plan),
        testbench: testbench::testbench(&plan),
        signal_map: signal_map(schedule.output_words()),
    }
}

/// The signal map of a core with `out_words` digest words: every trace field but the clock ->
/// the RTL register of the same name, in the scope [`crate::SCOPE`].
pub fn signal_map(out_words: usize) -> String {
    crate::map_json(&skeinhw_trace::shabal::signals(out_words))
}

impl ShabalDesign {
    /// The files of the design: (name, text).
    pub fn files(&self) -> [(&'static str, String); 5] {
        [
            (DESIGN_FILE, self.verilog.clone()),
            (TESTBENCH_FILE, self.testbench.clone()),
            (MAP_FILE, self.signal_map.clone()),
            (SCHEDULE_FILE, self.schedule.to_json_pretty()),
            (CORE_FILE, self.core().to_json_pretty()),
        ]
    }

    /// `core.json`: a Shabal core is always full, of its schedule's output length, no tree.
    pub fn core(&self) -> CoreInfo {
        CoreInfo::new(false, self.schedule.output_bits().into(), None)
    }

    /// Writes the files into `dir`, which must exist.
    pub fn write_into(&self, dir: &Path) -> Result<(), RtlError> {
        crate::write_files(dir, &self.files())
    }
}

/// The test bench input for `messages`, one after the other (stream i is message i): each
/// message's padded blocks (`skeinhw_shabal::padded_blocks`). Shabal has no key: a message
/// with one is refused.
pub fn stimulus(messages: &[Message<'_>]) -> Result<String, RtlError> {
    if messages.is_empty() {
        return Err(RtlError::Input(
            "no input: give at least one message".into(),
        ));
    }
    let mut blocks = Vec::new();
    for (s, m) in messages.iter().enumerate() {
        if !m.key.is_empty() {
            return Err(RtlError::Input(format!(
                "message {s}: Shabal has no key (MAC); give plain messages"
            )));
        }
        let padded = skeinhw_shabal::padded_blocks(m.data, m.bits)
            .map_err(|e| RtlError::Input(format!("message {s}: {e}")))?;
        let count = padded.len();
        for (i, b) in padded.into_iter().enumerate() {
            blocks.push((
                s,
                InBlock {
                    key: false,
                    first: i == 0,
                    last: i + 1 == count,
                    bitpad: false,
                    bytes: BLOCK_BYTES,
                    data: b.to_vec(),
                },
            ));
        }
    }
    let mut out = format!("{} {}\n", messages.len(), blocks.len());
    for (s, b) in &blocks {
        block_line(&mut out, *s, b);
    }
    Ok(out)
}

/// The digest of `stream` as bytes: the printed 32-bit words, each little-endian.
pub fn digest_bytes(run: &RunOutput, stream: u32) -> Option<Vec<u8>> {
    run.digests
        .iter()
        .find(|(s, _, _)| *s == stream)
        .map(|(_, _, w)| w.iter().flat_map(|&x| (x as u32).to_le_bytes()).collect())
}

/// Every Shabal preset (Table I: Shabal-512, f = 1, 2, 3, 4, 6, 8), then each in the other
/// output sizes, named `<preset>-<bits>`.
pub fn all_designs() -> Vec<ShabalSchedule> {
    let mut out = Vec::new();
    for schedule in skeinhw_sched::shabal::presets() {
        let own = schedule.output_bits();
        let spec = schedule.spec().clone();
        out.push(schedule);
        for bits in skeinhw_shabal::constants::OUTPUT_BITS {
            let bits = bits as u32;
            if bits == own {
                continue;
            }
            let mut s = spec.clone();
            s.output_bits = bits;
            s.name = format!("{}-{bits}", spec.name);
            out.push(s.build().expect("every output size is valid"));
        }
    }
    out
}
