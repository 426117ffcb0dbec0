//! A schedule of either algorithm: what the command line's `--schedule NAME|FILE.json` names.
//! Skein schedules are [`Schedule`]s, Shabal ones [`ShabalSchedule`]s; a file says which by its
//! `algorithm` field (`"shabal"`; absent or `"skein"` means Skein).

use std::path::Path;

use serde::Serialize;

use crate::error::ScheduleError;
use crate::schedule::Schedule;
use crate::shabal::{self, ShabalSchedule};

/// The algorithms a schedule can be for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// Skein-256/512/1024 (Threefish and UBI).
    Skein,
    /// Shabal-192..512 (the NLFSR permutation P).
    Shabal,
}

/// A validated schedule of either algorithm.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum AnySchedule {
    /// A Skein (Threefish/UBI) schedule.
    Skein(Schedule),
    /// A Shabal schedule.
    Shabal(ShabalSchedule),
}

impl From<Schedule> for AnySchedule {
    fn from(s: Schedule) -> Self {
        AnySchedule::Skein(s)
    }
}

impl From<ShabalSchedule> for AnySchedule {
    fn from(s: ShabalSchedule) -> Self {
        AnySchedule::Shabal(s)
    }
}

/// Every preset name of both algorithms, Skein's first.
pub fn all_preset_names() -> Vec<String> {
    crate::preset_names()
        .map(str::to_owned)
        .chain(shabal::preset_names())
        .collect()
}

impl AnySchedule {
    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        match self {
            AnySchedule::Skein(_) => Algorithm::Skein,
            AnySchedule::Shabal(_) => Algorithm::Shabal,
        }
    }

    /// The name.
    pub fn name(&self) -> &str {
        match self {
            AnySchedule::Skein(s) => s.name(),
            AnySchedule::Shabal(s) => s.name(),
        }
    }

    /// The citation.
    pub fn source(&self) -> &str {
        match self {
            AnySchedule::Skein(s) => s.source(),
            AnySchedule::Shabal(s) => s.source(),
        }
    }

    /// Cycles per block.
    pub fn cycles_per_block(&self) -> u32 {
        match self {
            AnySchedule::Skein(s) => s.cycles_per_block(),
            AnySchedule::Shabal(s) => s.cycles_per_block(),
        }
    }

    /// Blocks in flight.
    pub fn blocks_in_flight(&self) -> u32 {
        match self {
            AnySchedule::Skein(s) => s.blocks_in_flight(),
            AnySchedule::Shabal(s) => s.blocks_in_flight(),
        }
    }

    /// Bits per block.
    pub fn block_bits(&self) -> u32 {
        match self {
            AnySchedule::Skein(s) => s.block_bits(),
            AnySchedule::Shabal(s) => s.block_bits(),
        }
    }

    /// The preset of either algorithm with this name.
    pub fn preset(name: &str) -> Result<AnySchedule, ScheduleError> {
        if crate::preset_names().any(|n| n == name) {
            return crate::preset(name).map(AnySchedule::Skein);
        }
        shabal::preset(name).map(AnySchedule::Shabal)
    }

    /// Every preset of both algorithms.
    pub fn presets() -> Vec<AnySchedule> {
        crate::presets()
            .into_iter()
            .map(AnySchedule::Skein)
            .chain(shabal::presets().into_iter().map(AnySchedule::Shabal))
            .collect()
    }

    /// Parses and validates JSON text of either algorithm (by its `algorithm` field).
    pub fn from_json_str(json: &str) -> Result<AnySchedule, ScheduleError> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| ScheduleError::Json {
                message: e.to_string(),
            })?;
        match value.get("algorithm").map(|a| a.as_str()) {
            None => Schedule::from_json_str(json).map(AnySchedule::Skein),
            Some(Some(shabal::ALGORITHM)) => {
                ShabalSchedule::from_json_str(json).map(AnySchedule::Shabal)
            }
            Some(Some("skein")) => {
                let mut value = value;
                if let Some(object) = value.as_object_mut() {
                    object.remove("algorithm");
                }
                Schedule::from_json_str(&value.to_string()).map(AnySchedule::Skein)
            }
            Some(other) => Err(ScheduleError::invalid(
                "algorithm",
                other.map_or_else(|| value["algorithm"].to_string(), str::to_owned),
                "is not an algorithm",
                "skein, shabal",
            )),
        }
    }

    /// Reads a schedule file of either algorithm; every error names the file.
    pub fn from_json_file(path: impl AsRef<Path>) -> Result<AnySchedule, ScheduleError> {
        crate::spec::read_json_file(path.as_ref(), AnySchedule::from_json_str)
    }

    /// The command line's `NAME|FILE.json`: a preset of either algorithm if one matches,
    /// otherwise a file when the argument ends in `.json` or names an existing file.
    pub fn from_name_or_file(arg: &str) -> Result<AnySchedule, ScheduleError> {
        if all_preset_names().iter().any(|n| n == arg) {
            return AnySchedule::preset(arg);
        }
        let path = Path::new(arg);
        if arg.ends_with(".json") || path.is_file() {
            return AnySchedule::from_json_file(path);
        }
        AnySchedule::preset(arg)
    }

    /// Pretty JSON.
    pub fn to_json_pretty(&self) -> String {
        match self {
            AnySchedule::Skein(s) => s.to_json_pretty(),
            AnySchedule::Shabal(s) => s.to_json_pretty(),
        }
    }
}
