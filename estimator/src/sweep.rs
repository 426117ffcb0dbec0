//! The design-space sweep: every valid schedule over sizes, unroll factors, pipeline stages
//! and sharing options, estimated, with one Pareto front of throughput against area per state
//! size (a Skein-1024 design does not compete with a Skein-256 one), and the designs larger
//! than the device flagged.
//!
//! Candidates are built as [`ScheduleSpec`]s and validated by `Schedule::try_from`; the
//! ones validation rejects are skipped and counted, so the sweep never needs its own copy
//! of the schedule rules.

use std::fmt::Write as _;

use serde::Serialize;
use skeinhw_sched::{ALLOWED_SIZES, RoundDatapath, Schedule, ScheduleSpec};

use crate::constants::Constants;
use crate::devices::{DeviceId, estimate_on};
use crate::estimate::Estimate;
use crate::style::{CoreStyle, Flow, Options};

/// What to sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepConfig {
    /// State sizes.
    pub sizes: Vec<u32>,
    /// Core styles.
    pub styles: Vec<CoreStyle>,
    /// Tool flow.
    pub flow: Flow,
    /// The device the points are estimated on (`--device`).
    pub device: DeviceId,
    /// The device's size: designs with more slices are flagged (`None`: no check).
    pub capacity: Option<DeviceCapacity>,
}

impl Default for SweepConfig {
    fn default() -> Self {
        SweepConfig {
            sizes: ALLOWED_SIZES.to_vec(),
            styles: CoreStyle::PAPERS.to_vec(),
            flow: Flow::Ise13,
            device: DeviceId::Virtex5,
            capacity: Some(DeviceCapacity::of(DeviceId::Virtex5)),
        }
    }
}

/// The largest part of the device family and its slices: a design with more does not fit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeviceCapacity {
    /// The device family ("Xilinx Virtex-5").
    pub family: String,
    /// The part, as its vendor names it.
    pub part: String,
    /// Its slices.
    pub slices: u32,
}

impl DeviceCapacity {
    /// The part `device`'s size is checked against (its [`crate::DeviceInfo`]) and its slices.
    pub fn of(device: DeviceId) -> Self {
        let info = device.info();
        DeviceCapacity {
            family: info.family.to_owned(),
            part: info.part.to_owned(),
            slices: info.capacity.slices,
        }
    }

    /// Whether a design of `slices` is larger than the part.
    pub fn exceeded_by(&self, slices: u32) -> bool {
        slices > self.slices
    }
}

/// One estimated schedule of the sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepPoint {
    /// The schedule, as its spec.
    pub spec: ScheduleSpec,
    /// Its estimate.
    pub estimate: Estimate,
    /// On the Pareto front of throughput against slices among the points of its state size.
    pub pareto: bool,
    /// More slices than the device ([`SweepConfig::capacity`]) has.
    pub exceeds_device: bool,
}

/// The sweep's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sweep {
    /// Every valid schedule, in enumeration order.
    pub points: Vec<SweepPoint>,
    /// Candidates that validation rejected.
    pub rejected: usize,
    /// The device size the points were checked against.
    pub device_capacity: Option<DeviceCapacity>,
}

fn divisors(n: u32) -> impl Iterator<Item = u32> {
    (1..=n).filter(move |d| n.is_multiple_of(*d))
}

/// The most candidates one sweep enumerates. Every size and every style once is a few
/// thousand; the candidates are held in memory, so a configuration beyond this (sizes or styles
/// repeated many times) is refused up front by its callers ([`candidate_count`]).
pub const MAX_CANDIDATES: u64 = 100_000;

/// How many candidates [`candidates`] would enumerate for `config`, computed without
/// enumerating them (saturating).
pub fn candidate_count(config: &SweepConfig) -> u64 {
    let per_style = |size: u32| -> u64 {
        let rounds = if size == 1024 { 80 } else { 72 };
        divisors(rounds)
            .map(|k| divisors(k).count() as u64 * divisors(rounds / k).count() as u64)
            .sum::<u64>()
            * 2
            * RoundDatapath::ALL.len() as u64
            * 2
    };
    config
        .sizes
        .iter()
        .map(|&size| per_style(size).saturating_mul(config.styles.len() as u64))
        .fold(0u64, u64::saturating_add)
}

/// Every candidate spec (valid or not) of `config`, in a fixed order.
pub fn candidates(config: &SweepConfig) -> Vec<ScheduleSpec> {
    styled_candidates(config)
        .into_iter()
        .map(|(_, spec)| spec)
        .collect()
}

/// Every candidate spec of `config` with the style it is estimated in.
fn styled_candidates(config: &SweepConfig) -> Vec<(CoreStyle, ScheduleSpec)> {
    let mut out = Vec::new();
    for &size in &config.sizes {
        let rounds = if size == 1024 { 80 } else { 72 };
        for &style in &config.styles {
            for k in divisors(rounds) {
                for p in divisors(k) {
                    for s in divisors(rounds / k) {
                        for round_pipeline in [false, true] {
                            for datapath in RoundDatapath::ALL {
                                for shared in [false, true] {
                                    out.push((
                                        style,
                                        spec(
                                            size,
                                            style,
                                            (k, p, s),
                                            round_pipeline,
                                            datapath,
                                            shared,
                                        ),
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn spec(
    size: u32,
    style: CoreStyle,
    (k, p, s): (u32, u32, u32),
    round_pipeline: bool,
    datapath: RoundDatapath,
    shared: bool,
) -> ScheduleSpec {
    // The generated RTL takes either convention; it is swept with the hash core's.
    let hash = style != CoreStyle::UbiCore;
    let prefix = match style {
        CoreStyle::UbiCore => "ubi",
        CoreStyle::HashCore => "hash",
        CoreStyle::Generated => "gen",
    };
    let mut name = format!("{prefix}-{size}-k{k}-p{p}-s{s}");
    if round_pipeline {
        name.push_str("-pipe");
    }
    if datapath != RoundDatapath::Baseline {
        let _ = write!(name, "-{}", datapath.as_str().replace('_', "-"));
    }
    if shared {
        name.push_str("-ks1");
    }
    ScheduleSpec {
        name,
        source: String::new(),
        size,
        rounds_per_cycle: k,
        functional_stages: p,
        structural_stages: s,
        round_pipeline,
        round_datapath: datapath,
        shared_key_schedule_adder: shared,
        // The two papers' conventions, which the styles model.
        first_subkey_cycle: hash && s == 1 && !round_pipeline,
        config_precomputed: !hash,
    }
}

/// Runs the sweep; `progress(done, total)` is called after every candidate.
pub fn sweep(
    config: &SweepConfig,
    constants: &Constants,
    progress: &mut dyn FnMut(usize, usize),
) -> Sweep {
    let candidates = styled_candidates(config);
    let total = candidates.len();
    let mut points = Vec::new();
    let mut rejected = 0;
    for (i, (style, spec)) in candidates.into_iter().enumerate() {
        match Schedule::try_from(spec) {
            Ok(schedule) => {
                let options = Options {
                    style: Some(style),
                    flow: config.flow,
                };
                let estimate = estimate_on(config.device, &schedule, options, constants, None);
                let exceeds_device = config
                    .capacity
                    .as_ref()
                    .is_some_and(|c| c.exceeded_by(estimate.slices));
                points.push(SweepPoint {
                    spec: schedule.into_spec(),
                    estimate,
                    pareto: false,
                    exceeds_device,
                });
            }
            Err(_) => rejected += 1,
        }
        progress(i + 1, total);
    }
    mark_fronts(&mut points);
    Sweep {
        points,
        rejected,
        device_capacity: config.capacity.clone(),
    }
}

/// Marks each state size's Pareto front.
fn mark_fronts(points: &mut [SweepPoint]) {
    let mut sizes: Vec<u32> = points.iter().map(|p| p.spec.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for size in sizes {
        let of_size: Vec<usize> = (0..points.len())
            .filter(|&i| points[i].spec.size == size)
            .collect();
        let xy: Vec<(f64, f64)> = of_size
            .iter()
            .map(|&i| {
                let e = &points[i].estimate;
                (f64::from(e.slices), e.throughput_mbps)
            })
            .collect();
        for (i, on) in of_size.into_iter().zip(pareto_front(&xy)) {
            points[i].pareto = on;
        }
    }
}

/// Which of `(area, throughput)` points are on the Pareto front: no other point has at most
/// the area and at least the throughput, with one of the two strictly better. Equal points
/// are all on the front when one is.
pub fn pareto_front(points: &[(f64, f64)]) -> Vec<bool> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        points[a]
            .0
            .total_cmp(&points[b].0)
            .then(points[b].1.total_cmp(&points[a].1))
    });
    let mut on = vec![false; points.len()];
    let mut best: Option<(f64, f64)> = None;
    for i in order {
        let (area, tp) = points[i];
        let keep = match best {
            None => true,
            Some((best_area, best_tp)) => tp > best_tp || (tp == best_tp && area == best_area),
        };
        if keep {
            on[i] = true;
            if best.is_none_or(|(_, b)| tp > b) {
                best = Some((area, tp));
            }
        }
    }
    on
}

/// CSV columns (`pareto` stays the last).
pub const CSV_HEADER: &str = "name,size,style,rounds_per_cycle,functional_stages,\
structural_stages,round_pipeline,round_datapath,shared_key_schedule_adder,luts,ffs,\
lut_ff_pairs,slices,period_ns,freq_mhz,cycles_per_block,blocks_in_flight,latency_ns,\
throughput_mbps,mbps_per_slice,exceeds_device,pareto";

/// The sweep as CSV, one line per point.
pub fn to_csv(sweep: &Sweep) -> String {
    let mut s = String::with_capacity(sweep.points.len() * 160);
    s.push_str(CSV_HEADER);
    s.push('\n');
    for p in &sweep.points {
        let (sp, e) = (&p.spec, &p.estimate);
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3},{:.2},{},{},{:.1},{:.1},{:.4},{},{}",
            sp.name,
            sp.size,
            e.style,
            sp.rounds_per_cycle,
            sp.functional_stages,
            sp.structural_stages,
            sp.round_pipeline,
            sp.round_datapath,
            sp.shared_key_schedule_adder,
            e.luts,
            e.ffs,
            e.lut_ff_pairs,
            e.slices,
            e.period_ns,
            e.freq_mhz,
            e.cycles_per_block,
            e.blocks_in_flight,
            e.latency_ns,
            e.throughput_mbps,
            e.mbps_per_slice,
            p.exceeds_device,
            p.pareto
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidate_count_is_the_enumerated_count() {
        for sizes in [vec![256], vec![1024], vec![256, 512, 1024]] {
            let config = SweepConfig {
                sizes,
                ..SweepConfig::default()
            };
            assert_eq!(candidate_count(&config), candidates(&config).len() as u64);
        }
        assert!(candidate_count(&SweepConfig::default()) <= MAX_CANDIDATES);
    }

    #[test]
    fn one_front_per_size_and_the_device_size_flagged() {
        let config = SweepConfig {
            sizes: vec![256, 1024],
            ..SweepConfig::default()
        };
        let s = sweep(&config, &Constants::built_in(), &mut |_, _| {});
        for size in [256, 1024] {
            // The smallest design of each size is on its own front.
            let smallest = s
                .points
                .iter()
                .filter(|p| p.spec.size == size)
                .min_by_key(|p| (p.estimate.slices, std::cmp::Reverse(p.pareto)))
                .unwrap();
            assert!(smallest.pareto, "{size}: {}", smallest.spec.name);
        }
        let limit = DeviceCapacity::of(DeviceId::Virtex5).slices;
        assert!(s.points.iter().any(|p| p.exceeds_device));
        for p in &s.points {
            assert_eq!(
                p.exceeds_device,
                p.estimate.slices > limit,
                "{}",
                p.spec.name
            );
        }
        let unchecked = sweep(
            &SweepConfig {
                capacity: None,
                ..config
            },
            &Constants::built_in(),
            &mut |_, _| {},
        );
        assert!(unchecked.points.iter().all(|p| !p.exceeds_device));
    }
}
