//! One estimate: counting, mapping and timing put together with the schedule's cycle
//! counts into the numbers an architect compares.

use serde::Serialize;
use skeinhw_sched::Schedule;

use crate::constants::Constants;
use crate::count::{self, Adders};
use crate::device::{self, RoleLuts};
use crate::style::{CoreStyle, Flow, Options};
use crate::timing::{self, CriticalPath};

/// The estimate of one schedule. The JSON fields `luts`, `ffs`, `lut_ff_pairs`, `slices`,
/// `period_ns`, `cycles_per_block`, `blocks_in_flight` and `throughput_mbps` are stable.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Schedule name.
    pub schedule: String,
    /// State bits.
    pub size: u32,
    /// Core style estimated.
    pub style: CoreStyle,
    /// Tool flow whose routing delays were used.
    pub flow: Flow,
    /// 64-bit adders by role.
    pub adders: Adders,
    /// Rotation constant sets per MIX (1: wires).
    pub rotation_sets: u32,
    /// Logic LUT6s.
    pub luts: u32,
    /// CARRY4s.
    pub carry4: u32,
    /// Flip-flops.
    pub ffs: u32,
    /// LUT-FF pairs.
    pub lut_ff_pairs: u32,
    /// Slices.
    pub slices: u32,
    /// Estimated clock period, ns.
    pub period_ns: f64,
    /// Estimated clock frequency, MHz.
    pub freq_mhz: f64,
    /// Clock used for the throughput: the estimated one or the one given.
    pub clock_mhz: f64,
    /// Cycles per block of one message (see `Schedule::cycles_per_block`).
    pub cycles_per_block: u32,
    /// Independent blocks in flight.
    pub blocks_in_flight: u32,
    /// Latency of one block, ns, at `clock_mhz`.
    pub latency_ns: f64,
    /// Sustained throughput at `clock_mhz`, Mbit/s.
    pub throughput_mbps: f64,
    /// Throughput per LUT-FF pair, Mbit/s.
    pub mbps_per_pair: f64,
    /// Throughput per slice, Mbit/s.
    pub mbps_per_slice: f64,
    /// The path that sets the period.
    pub critical_path: CriticalPath,
    /// Counted LUTs by role, largest first.
    pub lut_breakdown: Vec<RoleLuts>,
}

/// Estimates `schedule` with `options` and `constants`; `freq_mhz` replaces the estimated
/// clock in the throughput and latency (the period and frequency stay the estimates).
pub fn estimate(
    schedule: &Schedule,
    options: Options,
    constants: &Constants,
    freq_mhz: Option<f64>,
) -> Estimate {
    let style = options.style_for(schedule);
    let inventory = count::inventory(schedule, style);
    let resources = device::map(&inventory, constants);
    let path = timing::critical_path(
        schedule,
        style,
        options.flow,
        resources.lut_ff_pairs,
        constants,
    );
    let freq = 1000.0 / path.period_ns;
    let clock = freq_mhz.unwrap_or(freq);
    let throughput = schedule.throughput_mbps(clock);
    Estimate {
        schedule: schedule.name().to_owned(),
        size: schedule.block_bits(),
        style,
        flow: options.flow,
        adders: inventory.adders,
        rotation_sets: inventory.rotation_sets,
        luts: resources.luts,
        carry4: resources.carry4,
        ffs: resources.ffs,
        lut_ff_pairs: resources.lut_ff_pairs,
        slices: resources.slices,
        period_ns: path.period_ns,
        freq_mhz: freq,
        clock_mhz: clock,
        cycles_per_block: schedule.cycles_per_block(),
        blocks_in_flight: schedule.blocks_in_flight(),
        latency_ns: f64::from(schedule.block_latency()) * 1000.0 / clock,
        throughput_mbps: throughput,
        mbps_per_pair: throughput / f64::from(resources.lut_ff_pairs.max(1)),
        mbps_per_slice: throughput / f64::from(resources.slices.max(1)),
        critical_path: path,
        lut_breakdown: resources.breakdown,
    }
}
