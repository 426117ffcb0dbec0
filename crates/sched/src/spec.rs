//! The unvalidated, editable form of a schedule: what JSON files and presets hold, and what the
//! command line overrides before [`crate::Schedule::try_from`] validates it once.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::ScheduleError;
use crate::schedule::Schedule;
use crate::validate::join;

/// How one round of the one-round iterative datapath is built (Long 2009, section 3.4).
///
/// The options are mutually exclusive variants of the same round circuit, hence one enum. In
/// JSON they are snake_case strings: `"baseline"`, `"half_subkey_adders"`, ...
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundDatapath {
    /// Long Fig. 10: Nw/2 MIX adders and Nw subkey adders, one round per cycle.
    #[default]
    Baseline,
    /// Long 3.4.2, Fig. 13: Nw/2 subkey (output) adders; each of the Nr/4 rounds that ends
    /// with a key addition takes two cycles (Skein-256: 72 + 18 = 90 cycles).
    HalfSubkeyAdders,
    /// Long 3.4.3, Fig. 14(a): Nw/4 MIX (input) adders, two cycles for every round
    /// (2 Nr = 144 cycles for Skein-256).
    HalfMixAdders,
    /// Long 3.4.3, Fig. 14(b): a register in the middle of the round; half the logic depth,
    /// two cycles for every round (144 for Skein-256).
    SplitRound,
    /// Long 3.4.4, Fig. 15: MIX and key addition share Nw adders; the Nr - Nr/4 rounds without
    /// a key take one cycle, the Nr/4 with one take two (54 + 18 x 2 = 90 for Skein-256; the
    /// paper prints "64 + 18 x 2", an arithmetic slip: its 37% saving is 90 x T/2 vs 72 x T).
    MixKeyOverlap,
}

impl RoundDatapath {
    /// Every variant, in the order of Long section 3.4.
    pub const ALL: [RoundDatapath; 5] = [
        RoundDatapath::Baseline,
        RoundDatapath::HalfSubkeyAdders,
        RoundDatapath::HalfMixAdders,
        RoundDatapath::SplitRound,
        RoundDatapath::MixKeyOverlap,
    ];

    /// The JSON spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            RoundDatapath::Baseline => "baseline",
            RoundDatapath::HalfSubkeyAdders => "half_subkey_adders",
            RoundDatapath::HalfMixAdders => "half_mix_adders",
            RoundDatapath::SplitRound => "split_round",
            RoundDatapath::MixKeyOverlap => "mix_key_overlap",
        }
    }
}

impl fmt::Display for RoundDatapath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RoundDatapath {
    type Err = ScheduleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RoundDatapath::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| {
                ScheduleError::invalid(
                    "round_datapath",
                    s,
                    "is not a round datapath of Long section 3.4",
                    join(RoundDatapath::ALL.map(RoundDatapath::as_str)),
                )
            })
    }
}

/// A schedule as written: plain data, every field public, not yet validated.
///
/// JSON fields (all always written; on reading, the ones marked *default* may be left out and
/// then mean "this feature is absent", which is what a plain iterative or unrolled datapath
/// has):
///
/// | field | type | default | meaning |
/// |---|---|---|---|
/// | `name` | string | required | preset or user name |
/// | `source` | string | `""` | citation, e.g. `"Long 2009, Fig. 7"`; empty for own designs |
/// | `size` | 256, 512, 1024 | required | state bits |
/// | `rounds_per_cycle` | integer | required | k: round circuits between the input mux and the feedback (the unroll factor) |
/// | `functional_stages` | integer | 1 | p: registers inside the k-round datapath (Athanasiou 8r_pFp) |
/// | `structural_stages` | integer | 1 | s: chained copies of the k-round module (Athanasiou 3Sp) |
/// | `round_pipeline` | bool | false | Long Fig. 9: a register after every round (then p = k) |
/// | `round_datapath` | string | `"baseline"` | one of [`RoundDatapath`] (Long 3.4.2-3.4.4) |
/// | `shared_key_schedule_adder` | bool | false | Long 3.4.1: one key-schedule adder instead of three |
/// | `first_subkey_cycle` | bool | required | Athanasiou's extra cycle that forms subkey 0 (Long has none) |
/// | `config_precomputed` | bool | required | skip the Config UBI (Long does, Athanasiou does not) |
///
/// `first_subkey_cycle` and `config_precomputed` have no default because the two papers
/// disagree on them: a file must say which it means.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleSpec {
    /// Preset or user name, e.g. `ath-8r-2fp`.
    pub name: String,
    /// Where the design comes from, e.g. `"Long 2009, Fig. 7"`; empty for own designs.
    #[serde(default)]
    pub source: String,
    /// State bits: 256, 512 or 1024 (checked at validation, so the error names the field).
    pub size: u32,
    /// k: round circuits in one datapath, i.e. rounds per pass through it (the unroll factor;
    /// Long's k, Athanasiou's m). With p functional stages a pass takes p cycles.
    pub rounds_per_cycle: u32,
    /// p: pipeline registers inside the k-round datapath; p independent messages in flight.
    #[serde(default = "one")]
    pub functional_stages: u32,
    /// s: chained copies of the k-round module, each doing Nr/(k s) passes on its own block.
    #[serde(default = "one")]
    pub structural_stages: u32,
    /// Long Fig. 9: a register after every round of the datapath, meant to be filled with the
    /// independent nodes of tree hashing (and independent messages).
    #[serde(default)]
    pub round_pipeline: bool,
    /// How one round is built (Long 3.4.2-3.4.4).
    #[serde(default)]
    pub round_datapath: RoundDatapath,
    /// Long 3.4.1: one key-schedule adder iterated over the 4-round budget instead of three.
    #[serde(default)]
    pub shared_key_schedule_adder: bool,
    /// Athanasiou 3.1.1: one cycle (one pass slot) to form subkey 0 before the rounds start.
    pub first_subkey_cycle: bool,
    /// The Config UBI's output is a constant of the design and is not computed.
    pub config_precomputed: bool,
}

fn one() -> u32 {
    1
}

/// The JSON field names of a schedule, in the order they are written.
pub const FIELD_NAMES: [&str; 11] = [
    "name",
    "source",
    "size",
    "rounds_per_cycle",
    "functional_stages",
    "structural_stages",
    "round_pipeline",
    "round_datapath",
    "shared_key_schedule_adder",
    "first_subkey_cycle",
    "config_precomputed",
];

impl ScheduleSpec {
    /// Validates the spec: the same as `Schedule::try_from(self)`.
    pub fn build(self) -> Result<Schedule, ScheduleError> {
        Schedule::try_from(self)
    }

    /// Sets one field from its command-line text, e.g. `set("size", "1024")`: the override
    /// path of presets (`--set size=1024`). Only the text is parsed here; whether the result
    /// is a possible schedule is decided by [`ScheduleSpec::build`].
    ///
    /// The `name` is left as it is: a caller that overrides a preset should rename it so that
    /// traces and reports do not show the preset's name for a different design.
    pub fn set(&mut self, field: &str, value: &str) -> Result<(), ScheduleError> {
        match field {
            "name" => self.name = value.to_owned(),
            "source" => self.source = value.to_owned(),
            "size" => self.size = parse_number("size", value)?,
            "rounds_per_cycle" => self.rounds_per_cycle = parse_number("rounds_per_cycle", value)?,
            "functional_stages" => {
                self.functional_stages = parse_number("functional_stages", value)?
            }
            "structural_stages" => {
                self.structural_stages = parse_number("structural_stages", value)?
            }
            "round_pipeline" => self.round_pipeline = parse_bool("round_pipeline", value)?,
            "round_datapath" => self.round_datapath = value.parse()?,
            "shared_key_schedule_adder" => {
                self.shared_key_schedule_adder = parse_bool("shared_key_schedule_adder", value)?
            }
            "first_subkey_cycle" => {
                self.first_subkey_cycle = parse_bool("first_subkey_cycle", value)?
            }
            "config_precomputed" => {
                self.config_precomputed = parse_bool("config_precomputed", value)?
            }
            _ => {
                return Err(ScheduleError::UnknownField {
                    field: field.to_owned(),
                    allowed: join(FIELD_NAMES),
                });
            }
        }
        Ok(())
    }

    /// Parses JSON text into a spec without validating it. Missing, unknown and mistyped
    /// fields are named in the error (`size: invalid type: string "512", expected u32`).
    pub fn from_json_str(json: &str) -> Result<Self, ScheduleError> {
        parse_json(json)
    }
}

/// Parses JSON text into a spec of either algorithm; missing, unknown and mistyped fields are
/// named in the error, and nothing may follow the object.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, ScheduleError> {
    let mut de = serde_json::Deserializer::from_str(json);
    let spec: T = serde_path_to_error::deserialize(&mut de).map_err(|e| ScheduleError::Json {
        message: json_message(&e),
    })?;
    de.end().map_err(|e| ScheduleError::Json {
        message: e.to_string(),
    })?;
    Ok(spec)
}

/// The largest schedule file read, in bytes. A schedule is a dozen fields (well under 4 KiB);
/// the limit keeps a damaged or hostile file (a 1 GiB one-line JSON) from being read and
/// parsed whole (issue 16).
pub const MAX_SCHEDULE_FILE_BYTES: u64 = 1 << 20;

/// Reads a schedule file and parses its text with `parse`; every error names the file.
pub(crate) fn read_json_file<T>(
    path: &std::path::Path,
    parse: impl FnOnce(&str) -> Result<T, ScheduleError>,
) -> Result<T, ScheduleError> {
    use std::io::Read;
    let io = |source| ScheduleError::Io {
        path: path.to_owned(),
        source,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(io)?
        .take(MAX_SCHEDULE_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_SCHEDULE_FILE_BYTES {
        return Err(io(std::io::Error::other(format!(
            "larger than {MAX_SCHEDULE_FILE_BYTES} bytes: not a schedule"
        ))));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        ))
    })?;
    parse(&text).map_err(|source| ScheduleError::File {
        path: path.to_owned(),
        source: Box::new(source),
    })
}

/// serde's message with the field path in front, unless serde's message already names the
/// field (a missing or unknown field) or there is no path (a syntax error at the top).
fn json_message(err: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = err.path().to_string();
    let inner = err.inner().to_string();
    if matches!(path.as_str(), "" | "." | "?") || inner.contains(&format!("`{path}`")) {
        inner
    } else {
        format!("{path}: {inner}")
    }
}

fn parse_number(field: &'static str, value: &str) -> Result<u32, ScheduleError> {
    value
        .parse()
        .map_err(|_| ScheduleError::invalid(field, value, "is not a whole number", "0, 1, 2, ..."))
}

fn parse_bool(field: &'static str, value: &str) -> Result<bool, ScheduleError> {
    value
        .parse()
        .map_err(|_| ScheduleError::invalid(field, value, "is not a boolean", "true, false"))
}
