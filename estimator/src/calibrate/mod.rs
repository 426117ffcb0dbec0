//! Calibration: the published rows of `data/seed-tables.csv`, the schedule each row is, the
//! deterministic fit of the `[timing]` and `[area]` constants on the `role=fit` rows, and
//! the table of paper value, model value and error for every row.
//!
//! The fit is a coordinate search on the sum of squared log errors (area and period of every
//! fit row; Long's flip-flops and LUT-FF pairs at a quarter weight, since only they pin the
//! control flip-flops and the pairing). It starts from fixed initial values in this file, not
//! from the constants file, so it is reproducible; its results are rounded to 4 significant
//! digits, which is what `--write` stores. Validation rows are never used for fitting.

mod arithmetic;
mod fit;
mod loo;
mod other_teams;
mod report;
mod seed;
mod shabal_unfolding;

pub use arithmetic::*;
pub use fit::*;
pub use loo::*;
pub use other_teams::*;
pub use report::*;
pub use seed::*;
pub use shabal_unfolding::*;

use report::{comparisons, shabal_comparisons};
use seed::num;

use std::fmt::{self, Write as _};

use serde::Serialize;
use skeinhw_sched::shabal::{self as shabal_sched, ShabalSchedule};
use skeinhw_sched::{Schedule, preset, preset_spec};

use crate::constants::Constants;
use crate::error::EstimatorError;
use crate::estimate::{Estimate, model as estimate};
use crate::shabal::{self, ShabalEstimate};
use crate::style::{CoreStyle, Flow, Options};
