//! The two ways the seed papers build the logic around the round datapath, and the two tool
//! flows their numbers come from.
//!
//! A [`skeinhw_sched::Schedule`] fixes the rounds, stages and adders; it does not say where the
//! key, tweak and message live or how round keys are chosen, and the two papers differ exactly
//! there (and in their place-and-route runs). These choices are estimator options, picked per
//! schedule by default and overridable.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use skeinhw_sched::Schedule;

use crate::error::EstimatorError;

/// How the core around the Threefish datapath is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoreStyle {
    /// Long 2009 (Figs. 7, 10, 11): a bare UBI core. Key, tweak and message are held at the
    /// ports by the environment (his flip-flop counts are the state register plus control),
    /// round keys are picked from the Nw + 1 key words by a "MuxSwitch", and an unrolled
    /// datapath is k copies of the Fig. 10 round circuit, each with its own subkey adders and
    /// output select (Long 3.2.2, Table 3).
    UbiCore,
    /// Athanasiou et al. 2013 (Figs. 1-5): a complete Hash/MAC core. A padding buffer, a 4:1
    /// input select (Config, zero, message, feedback), a key generator whose rotating shift
    /// registers deliver the subkey words without a round-key multiplexer (one key/tweak pair
    /// per message in flight), and the input-block registers of the feed-forward.
    HashCore,
    /// The RTL `skeinhw-rtl` generates from the schedule (`crates/rtl/src/design/`): the
    /// trace's registers in every pipeline slot, an input register and controller context per
    /// stream, a control ROM per slot and a `case` over the subkeys in every key injection.
    /// The style to compare with a Yosys netlist of the generated Verilog (see `generated`).
    Generated,
}

impl CoreStyle {
    /// Every style.
    pub const ALL: [CoreStyle; 3] = [
        CoreStyle::UbiCore,
        CoreStyle::HashCore,
        CoreStyle::Generated,
    ];

    /// The styles of the papers' designs (what the calibration and the sweeps' paper points
    /// use).
    pub const PAPERS: [CoreStyle; 2] = [CoreStyle::UbiCore, CoreStyle::HashCore];

    /// The default for a schedule: a core that runs the Config UBI itself is a complete hash
    /// core (Athanasiou), one that takes it precomputed is a bare UBI core (Long 4.2).
    pub fn for_schedule(schedule: &Schedule) -> CoreStyle {
        if schedule.config_precomputed() {
            CoreStyle::UbiCore
        } else {
            CoreStyle::HashCore
        }
    }

    /// The command-line and JSON spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            CoreStyle::UbiCore => "ubi_core",
            CoreStyle::HashCore => "hash_core",
            CoreStyle::Generated => "generated",
        }
    }
}

/// The synthesis and place-and-route flow whose routing delays the estimate assumes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flow {
    /// Xilinx ISE 9.1 with its default options (Long 4.1): no timing-driven effort, about a
    /// nanosecond per net on the critical path.
    Ise9Default,
    /// Xilinx ISE 13.1 (Athanasiou 4): the flow of the newer, faster results; the default for
    /// estimates of new schedules.
    #[default]
    Ise13,
}

impl Flow {
    /// Every flow.
    pub const ALL: [Flow; 2] = [Flow::Ise9Default, Flow::Ise13];

    /// The command-line and JSON spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Flow::Ise9Default => "ise9_default",
            Flow::Ise13 => "ise13",
        }
    }
}

macro_rules! named {
    ($ty:ty, $what:literal) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = EstimatorError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$ty>::ALL
                    .into_iter()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| EstimatorError::UnknownName {
                        what: $what,
                        name: s.to_owned(),
                        allowed: <$ty>::ALL.map(<$ty>::as_str).join(", "),
                    })
            }
        }
    };
}

named!(CoreStyle, "style");
named!(Flow, "flow");

/// Estimator options that are not part of the schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Options {
    /// The core style; `None` picks [`CoreStyle::for_schedule`].
    pub style: Option<CoreStyle>,
    /// The tool flow whose routing delays apply.
    pub flow: Flow,
}

impl Options {
    /// The style for `schedule`: the explicit one, or the schedule's default.
    pub fn style_for(&self, schedule: &Schedule) -> CoreStyle {
        self.style
            .unwrap_or_else(|| CoreStyle::for_schedule(schedule))
    }
}
