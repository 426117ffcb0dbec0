#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod any;
mod error;
mod presets;
mod schedule;
pub mod shabal;
pub mod sim;
mod size;
mod spec;
pub mod validate;

pub use any::{Algorithm, AnySchedule, all_preset_names};
pub use error::ScheduleError;
pub use presets::{preset, preset_names, preset_spec, presets};
pub use schedule::{
    AdderCounts, Derived, FIRST_SUBKEY_GENERATOR_ADDERS, KEY_SCHEDULE_ADDERS,
    SHARED_KEY_SCHEDULE_ADDERS, Schedule,
};
pub use size::{
    ALLOWED_SIZES, ROUNDS_256_512, ROUNDS_1024, ROUNDS_PER_SUBKEY, StateSize, WORD_BITS,
    subkey_after_round,
};
pub use spec::{FIELD_NAMES, MAX_SCHEDULE_FILE_BYTES, RoundDatapath, ScheduleSpec};
