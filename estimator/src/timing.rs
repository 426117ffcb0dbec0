//! Timing: the critical path as the chain of elements between two registers, with
//! per-element delays and a routing term per net.
//!
//! Each pipeline stage of the k-round datapath is walked round by round; the worst stage
//! (and, in a bare UBI core, the round-key path through the MuxSwitch) sets the period.
//! Adders in one chain overlap: the sum bits leave the carry chain low bit first and the
//! next adder ripples right behind, so every adder after the first adds only
//! `chained_adder_fraction` of a full adder. Each element is reached through one net, whose
//! delay depends on the tool flow and grows with the design's size.

use serde::Serialize;
use skeinhw_sched::{RoundDatapath, Schedule, WORD_BITS};

use crate::constants::Constants;
use crate::device::{mux_f_stages, mux_levels};
use crate::style::{CoreStyle, Flow};

/// Elements on one register-to-register path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Chain {
    /// 64-bit adders in series.
    pub adders: u32,
    /// LUT levels (XORs and multiplexers that are not fused).
    pub lut_levels: u32,
    /// MUXF7/MUXF8 stages of wide multiplexers.
    pub muxf: u32,
}

impl Chain {
    /// Nets: one into every element, and one into the register.
    pub const fn nets(&self) -> u32 {
        self.adders + self.lut_levels + 1
    }

    fn add(&mut self, adders: u32, lut_levels: u32) {
        self.adders += adders;
        self.lut_levels += lut_levels;
    }
}

/// Which path sets the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathKind {
    /// Through the state: input select, subkey adders, MIX adders and XORs of one stage.
    State,
    /// From the round counter through the MuxSwitch, a key-schedule and a subkey adder.
    RoundKey,
}

/// The critical path and its delay.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CriticalPath {
    /// Which path it is.
    pub path: PathKind,
    /// Pipeline stage of the k-round datapath it lies in (0-based).
    pub stage: u32,
    /// Its elements.
    pub chain: Chain,
    /// Register, adders, LUTs and MUXFs, ns.
    pub logic_ns: f64,
    /// Nets, ns.
    pub route_ns: f64,
    /// The clock period, ns.
    pub period_ns: f64,
}

/// Delay of one full 64-bit adder: into the chain, 16 CARRY4s, out.
pub fn adder_ns(c: &Constants) -> f64 {
    c.t_carry_io_ns + f64::from(WORD_BITS.div_ceil(4)) * c.t_carry4_ns
}

/// Routing delay per net for `flow` in a design of `pairs` LUT-FF pairs.
pub fn net_ns(c: &Constants, flow: Flow, pairs: u32) -> f64 {
    let base = match flow {
        Flow::Ise9Default => c.net_ise9_ns,
        Flow::Ise13 => c.net_ise13_ns,
    };
    let scale = (f64::from(pairs.max(1)) / c.net_reference_pairs).powf(c.net_size_exponent);
    base * scale
}

/// Delay of `chain` (logic, route).
pub fn delay(chain: &Chain, c: &Constants, net: f64) -> (f64, f64) {
    let adders = if chain.adders == 0 {
        0.0
    } else {
        adder_ns(c) * (1.0 + c.chained_adder_fraction * f64::from(chain.adders - 1))
    };
    let logic = c.t_register_ns
        + adders
        + f64::from(chain.lut_levels) * c.t_lut_ns
        + f64::from(chain.muxf) * c.t_muxf_ns;
    (logic, f64::from(chain.nets()) * net)
}

/// The state path of stage `stage` of a k-round module.
pub fn stage_chain(schedule: &Schedule, style: CoreStyle, stage: u32) -> Chain {
    let k = schedule.rounds_per_cycle();
    let q = k / schedule.functional_stages();
    let mut chain = Chain::default();
    match style {
        CoreStyle::HashCore | CoreStyle::Generated => {
            // The 4:1 input select is a LUT level in front of the first stage.
            if stage == 0 {
                chain.add(0, 1);
            }
            // Subkeys are added in front of rounds 0, g, 2g, ... of a pass (g = gcd(k, 4)):
            // the places k / gcd(k, 4) of Schedule::subkey_injection_points.
            let g = gcd(k, 4);
            for r in stage * q..(stage + 1) * q {
                if r.is_multiple_of(g) {
                    chain.add(1, 0);
                }
                chain.add(1, 1); // MIX adder, XOR
            }
        }
        CoreStyle::UbiCore => {
            let per_round = match schedule.round_datapath() {
                // A register in the middle of the round: the MIX half is the longer one.
                RoundDatapath::SplitRound => (1, 1),
                // One adder does MIX or key addition; XOR and the select follow.
                RoundDatapath::MixKeyOverlap => (1, 2),
                // Fig. 10: MIX adder, XOR, subkey adder, output select.
                _ => (2, 2),
            };
            for _ in 0..q {
                chain.add(per_round.0, per_round.1);
            }
        }
    }
    chain
}

/// The round-key path of a bare UBI core: counter, MuxSwitch ((Nw + 1):1), key-schedule
/// adder, subkey adder, output select.
pub fn round_key_chain(schedule: &Schedule) -> Chain {
    let fan_in = schedule.words() + 1;
    Chain {
        adders: 2,
        lut_levels: mux_levels(fan_in) + 1,
        muxf: mux_f_stages(fan_in),
    }
}

/// The critical path of `schedule` in `style`, `flow`, for a design of `pairs` pairs.
pub fn critical_path(
    schedule: &Schedule,
    style: CoreStyle,
    flow: Flow,
    pairs: u32,
    c: &Constants,
) -> CriticalPath {
    let net = net_ns(c, flow, pairs);
    let mut best: Option<CriticalPath> = None;
    let mut consider = |path, stage, chain: Chain| {
        let (logic_ns, route_ns) = delay(&chain, c, net);
        let period_ns = logic_ns + route_ns;
        if best.is_none_or(|b| period_ns > b.period_ns) {
            best = Some(CriticalPath {
                path,
                stage,
                chain,
                logic_ns,
                route_ns,
                period_ns,
            });
        }
    };
    if style == CoreStyle::Generated {
        let (slot, chain) = crate::generated::critical_chain(schedule);
        consider(PathKind::State, slot, chain);
        return best.expect("a path was considered");
    }
    for stage in 0..schedule.functional_stages() {
        consider(PathKind::State, stage, stage_chain(schedule, style, stage));
    }
    if style == CoreStyle::UbiCore && !schedule.round_pipeline() {
        consider(PathKind::RoundKey, 0, round_key_chain(schedule));
    }
    best.expect("a schedule has at least one stage")
}

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
