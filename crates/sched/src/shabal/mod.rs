//! Shabal schedules: the keyed permutation P computed f iterations per clock (the unfolding of
//! the Shabal paper, section III.B and Table I), and the cycle simulator that runs them.
//!
//! A Shabal core holds one message at a time: the state A (12 words), B, C and the message
//! block M (16 words each) and the block counter W. A message round takes 48/f cycles: the
//! first cycle also injects the message (B += M, A xor W, B <<< 17), the last also does the
//! final additions (per A word one three-operand add, the paper's unrolled form), C -= M and
//! the B/C swap. The last block goes through P three more times (the final rounds).
//!
//! ```
//! use skeinhw_sched::shabal;
//! let s = shabal::preset("shabal-unfold-4")?;
//! assert_eq!((s.unfolding(), s.cycles_per_block()), (4, 12));
//! // Table I: 76 MHz x 512 bits / 12 cycles = 3242 Mbps.
//! assert_eq!((s.throughput_mbps(76.0)).round(), 3243.0);
//! # Ok::<(), skeinhw_sched::ScheduleError>(())
//! ```

pub mod sim;

use std::path::Path;

use serde::{Deserialize, Serialize};
use skeinhw_shabal::constants::{BLOCK_WORDS, FINAL_ROUNDS, ITERATIONS, OUTPUT_BITS};

use crate::error::ScheduleError;
use crate::spec::{parse_json, read_json_file};
use crate::validate::join;

/// Iterations of P per message round (Shabal specification, section 2.3: three loops of 16).
pub const ITERATIONS_PER_BLOCK: u32 = ITERATIONS as u32;

/// Bits of one message block.
pub const BLOCK_BITS: u32 = (BLOCK_WORDS * 32) as u32;

/// Extra passes of P on the last block (the three final rounds, specification section 2.4).
pub const FINAL_PASSES: u32 = FINAL_ROUNDS as u32;

/// The unfolding factors of the paper's Table I. Any divisor of 48 is a valid schedule (the
/// paper names 12, 16 and 24 as possible too); these are the ones it implemented.
pub const PAPER_UNFOLDING_FACTORS: [u32; 6] = [1, 2, 3, 4, 6, 8];

/// The value of the `algorithm` field that marks a Shabal schedule file.
pub const ALGORITHM: &str = "shabal";

/// A Shabal schedule as written: plain data, not yet validated.
///
/// | field | type | default | meaning |
/// |---|---|---|---|
/// | `algorithm` | `"shabal"` | required | tells a Shabal schedule from a Skein one |
/// | `name` | string | required | preset or user name |
/// | `source` | string | `""` | citation |
/// | `output_bits` | 192, 224, 256, 384, 512 | required | digest size (the initial value is built in) |
/// | `unfolding` | divisor of 48 | required | f: iterations of P per clock cycle |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShabalSpec {
    /// Always `"shabal"`.
    pub algorithm: String,
    /// Preset or user name, e.g. `shabal-unfold-4`.
    pub name: String,
    /// Where the design comes from; empty for own designs.
    #[serde(default)]
    pub source: String,
    /// Digest bits: 192, 224, 256, 384 or 512.
    pub output_bits: u32,
    /// f: NLFSR iterations of P computed in one clock cycle.
    pub unfolding: u32,
}

/// The JSON field names of a Shabal schedule, in the order they are written.
pub const FIELD_NAMES: [&str; 5] = ["algorithm", "name", "source", "output_bits", "unfolding"];

impl ShabalSpec {
    /// Validates the spec.
    pub fn build(self) -> Result<ShabalSchedule, ScheduleError> {
        ShabalSchedule::try_from(self)
    }

    /// Sets one field from its command-line text (`--set unfolding=3`).
    pub fn set(&mut self, field: &str, value: &str) -> Result<(), ScheduleError> {
        let number = |field: &'static str| {
            value.parse::<u32>().map_err(|_| {
                ScheduleError::invalid(field, value, "is not a whole number", "0, 1, 2, ...")
            })
        };
        match field {
            "name" => self.name = value.to_owned(),
            "source" => self.source = value.to_owned(),
            "output_bits" => self.output_bits = number("output_bits")?,
            "unfolding" => self.unfolding = number("unfolding")?,
            _ => {
                return Err(ScheduleError::UnknownField {
                    field: field.to_owned(),
                    allowed: join(&FIELD_NAMES[1..]),
                });
            }
        }
        Ok(())
    }

    /// Parses JSON text without validating it; errors name the field.
    pub fn from_json_str(json: &str) -> Result<Self, ScheduleError> {
        parse_json(json)
    }
}

/// A validated Shabal schedule. Serialized as its spec.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ShabalSpec", into = "ShabalSpec")]
pub struct ShabalSchedule {
    spec: ShabalSpec,
}

impl TryFrom<ShabalSpec> for ShabalSchedule {
    type Error = ScheduleError;

    fn try_from(spec: ShabalSpec) -> Result<Self, Self::Error> {
        if spec.algorithm != ALGORITHM {
            return Err(ScheduleError::invalid(
                "algorithm",
                &spec.algorithm,
                "is not the algorithm of a Shabal schedule",
                ALGORITHM,
            ));
        }
        if !OUTPUT_BITS.contains(&u64::from(spec.output_bits)) {
            return Err(ScheduleError::invalid(
                "output_bits",
                spec.output_bits,
                "is not a Shabal output size",
                join(OUTPUT_BITS),
            ));
        }
        if spec.unfolding == 0 || !ITERATIONS_PER_BLOCK.is_multiple_of(spec.unfolding) {
            return Err(ScheduleError::invalid(
                "unfolding",
                spec.unfolding,
                "does not divide the 48 iterations of P (Shabal paper, III.B)",
                join(divisors_of_48()),
            ));
        }
        Ok(ShabalSchedule { spec })
    }
}

impl From<ShabalSchedule> for ShabalSpec {
    fn from(s: ShabalSchedule) -> ShabalSpec {
        s.spec
    }
}

fn divisors_of_48() -> impl Iterator<Item = u32> {
    (1..=ITERATIONS_PER_BLOCK).filter(|f| ITERATIONS_PER_BLOCK.is_multiple_of(*f))
}

/// The numbers derived from a Shabal schedule, for `--json` output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShabalDerived {
    /// Iterations of P per block (48).
    pub iterations: u32,
    /// See [`ShabalSchedule::cycles_per_block`].
    pub cycles_per_block: u32,
    /// See [`ShabalSchedule::blocks_in_flight`].
    pub blocks_in_flight: u32,
    /// Passes of P after the last block (3).
    pub final_passes: u32,
    /// 32-bit adders of the datapath: see [`ShabalSchedule::adders`].
    pub adders: ShabalAdders,
    /// State register bits (A, B, C, M and W).
    pub state_register_bits: u32,
}

/// The 32-bit additions of a Shabal datapath by role, counted per clock cycle's logic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct ShabalAdders {
    /// U(x) = 3x = (x << 1) + x, one per unfolded iteration.
    pub u: u32,
    /// V(x) = 5x = (x << 2) + x, one per unfolded iteration.
    pub v: u32,
    /// The final additions: 12 three-operand adds (A\[i\] + C + C + C), two adders each.
    pub final_additions: u32,
    /// B += M, 16 adders.
    pub message_add: u32,
    /// C -= M, 16 subtractors.
    pub message_sub: u32,
}

impl ShabalAdders {
    /// All adders.
    pub const fn total(&self) -> u32 {
        self.u + self.v + self.final_additions + self.message_add + self.message_sub
    }
}

impl ShabalSchedule {
    /// Validates `spec`.
    pub fn new(spec: ShabalSpec) -> Result<Self, ScheduleError> {
        ShabalSchedule::try_from(spec)
    }

    /// Parses and validates JSON text.
    pub fn from_json_str(json: &str) -> Result<Self, ScheduleError> {
        ShabalSpec::from_json_str(json)?.build()
    }

    /// The spec it was built from.
    pub fn spec(&self) -> &ShabalSpec {
        &self.spec
    }

    /// The spec, to edit and validate again.
    pub fn into_spec(self) -> ShabalSpec {
        self.spec
    }

    /// Pretty JSON, as `schedule show --json` prints it.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a schedule serializes")
    }

    /// Preset or user name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Citation.
    pub fn source(&self) -> &str {
        &self.spec.source
    }

    /// Digest bits.
    pub fn output_bits(&self) -> u32 {
        self.spec.output_bits
    }

    /// 32-bit words of the digest (the last ones of C).
    pub fn output_words(&self) -> usize {
        (self.spec.output_bits / 32) as usize
    }

    /// f: iterations of P per clock cycle.
    pub fn unfolding(&self) -> u32 {
        self.spec.unfolding
    }

    /// Bits of a message block (512 for every output size).
    pub fn block_bits(&self) -> u32 {
        BLOCK_BITS
    }

    /// Cycles per block: 48/f (Table I: 48, 24, 16, 12, 8, 6). Message injection and the
    /// final additions happen in the first and last of them, not in cycles of their own.
    pub fn cycles_per_block(&self) -> u32 {
        ITERATIONS_PER_BLOCK / self.spec.unfolding
    }

    /// Blocks in the datapath at once: one (P is a chain through A and B).
    pub fn blocks_in_flight(&self) -> u32 {
        1
    }

    /// Cycles for a message of `blocks` padded blocks: one pass each plus the three final
    /// passes on the last block.
    pub fn cycles_per_message(&self, blocks: u64) -> u64 {
        (blocks + u64::from(FINAL_PASSES)) * u64::from(self.cycles_per_block())
    }

    /// Throughput at `freq_mhz` in Mbit/s, for long messages (the paper's TP):
    /// 512 x f_clk / (48/f).
    pub fn throughput_mbps(&self, freq_mhz: f64) -> f64 {
        f64::from(BLOCK_BITS) * f64::from(self.blocks_in_flight()) * freq_mhz
            / f64::from(self.cycles_per_block())
    }

    /// The adders of the datapath: U and V per unfolded iteration, the final and message
    /// additions once.
    pub fn adders(&self) -> ShabalAdders {
        let f = self.spec.unfolding;
        ShabalAdders {
            u: f,
            v: f,
            final_additions: 2 * skeinhw_shabal::constants::A_WORDS as u32,
            message_add: BLOCK_WORDS as u32,
            message_sub: BLOCK_WORDS as u32,
        }
    }

    /// Everything derived, for reports.
    pub fn derived(&self) -> ShabalDerived {
        ShabalDerived {
            iterations: ITERATIONS_PER_BLOCK,
            cycles_per_block: self.cycles_per_block(),
            blocks_in_flight: self.blocks_in_flight(),
            final_passes: FINAL_PASSES,
            adders: self.adders(),
            state_register_bits: (skeinhw_shabal::constants::A_WORDS as u32
                + 3 * BLOCK_WORDS as u32)
                * 32
                + 64,
        }
    }
}

/// The designs of the Shabal paper's Table I: Shabal-512 with f = 1, 2, 3, 4, 6, 8.
fn preset_spec_of(f: u32) -> ShabalSpec {
    ShabalSpec {
        algorithm: ALGORITHM.to_owned(),
        name: format!("shabal-unfold-{f}"),
        source: format!("Shabal unfolding paper, Table I (unfolding factor {f})"),
        output_bits: 512,
        unfolding: f,
    }
}

/// The Shabal preset names.
pub fn preset_names() -> impl Iterator<Item = String> {
    PAPER_UNFOLDING_FACTORS
        .into_iter()
        .map(|f| preset_spec_of(f).name)
}

/// The editable spec of a Shabal preset.
pub fn preset_spec(name: &str) -> Result<ShabalSpec, ScheduleError> {
    PAPER_UNFOLDING_FACTORS
        .into_iter()
        .map(preset_spec_of)
        .find(|s| s.name == name)
        .ok_or_else(|| ScheduleError::UnknownPreset {
            name: name.to_owned(),
            known: crate::any::all_preset_names().join(", "),
        })
}

/// A Shabal preset, validated.
pub fn preset(name: &str) -> Result<ShabalSchedule, ScheduleError> {
    preset_spec(name)?.build()
}

/// Every Shabal preset, in the order of Table I.
pub fn presets() -> Vec<ShabalSchedule> {
    PAPER_UNFOLDING_FACTORS
        .into_iter()
        .map(|f| {
            preset_spec_of(f)
                .build()
                .expect("Table I designs are valid")
        })
        .collect()
}

/// Reads a Shabal schedule file.
pub fn from_json_file(path: &Path) -> Result<ShabalSchedule, ScheduleError> {
    read_json_file(path, ShabalSchedule::from_json_str)
}
