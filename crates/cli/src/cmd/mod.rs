//! One module per subcommand.

pub mod diff;
pub mod estimate;
pub mod hash;
pub mod schedules;
pub mod trace;
