//! The design-space sweep: every valid schedule over sizes, unroll factors, pipeline stages
//! and sharing options, estimated, with the Pareto front of throughput against area.
//!
//! Candidates are built as [`ScheduleSpec`]s and validated by `Schedule::try_from`; the
//! ones validation rejects are skipped and counted, so the sweep never needs its own copy
//! of the schedule rules.

use std::fmt::Write as _;

use serde::Serialize;
use skeinhw_sched::{ALLOWED_SIZES, RoundDatapath, Schedule, ScheduleSpec};

use crate::constants::Constants;
use crate::estimate::{Estimate, estimate};
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
}

impl Default for SweepConfig {
    fn default() -> Self {
        SweepConfig {
            sizes: ALLOWED_SIZES.to_vec(),
            styles: CoreStyle::PAPERS.to_vec(),
            flow: Flow::Ise13,
        }
    }
}

/// One estimated schedule of the sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepPoint {
    /// The schedule, as its spec.
    pub spec: ScheduleSpec,
    /// Its estimate.
    pub estimate: Estimate,
    /// On the Pareto front of throughput against slices.
    pub pareto: bool,
}

/// The sweep's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sweep {
    /// Every valid schedule, in enumeration order.
    pub points: Vec<SweepPoint>,
    /// Candidates that validation rejected.
    pub rejected: usize,
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
                let estimate = estimate(&schedule, options, constants, None);
                points.push(SweepPoint {
                    spec: schedule.into_spec(),
                    estimate,
                    pareto: false,
                });
            }
            Err(_) => rejected += 1,
        }
        progress(i + 1, total);
    }
    let front = pareto_front(
        &points
            .iter()
            .map(|p| (f64::from(p.estimate.slices), p.estimate.throughput_mbps))
            .collect::<Vec<_>>(),
    );
    for (p, on) in points.iter_mut().zip(front) {
        p.pareto = on;
    }
    Sweep { points, rejected }
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

/// CSV columns.
pub const CSV_HEADER: &str = "name,size,style,rounds_per_cycle,functional_stages,\
structural_stages,round_pipeline,round_datapath,shared_key_schedule_adder,luts,ffs,\
lut_ff_pairs,slices,period_ns,freq_mhz,cycles_per_block,blocks_in_flight,latency_ns,\
throughput_mbps,mbps_per_slice,pareto";

/// The sweep as CSV, one line per point.
pub fn to_csv(sweep: &Sweep) -> String {
    let mut s = String::with_capacity(sweep.points.len() * 160);
    s.push_str(CSV_HEADER);
    s.push('\n');
    for p in &sweep.points {
        let (sp, e) = (&p.spec, &p.estimate);
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3},{:.2},{},{},{:.1},{:.1},{:.4},{}",
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
}
