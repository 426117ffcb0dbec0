//! One estimate: counting, mapping and timing put together with the schedule's cycle
//! counts into the numbers an architect compares.

use serde::Serialize;
use skeinhw_sched::Schedule;

use crate::constants::Constants;
use crate::count::{self, Adders};
use crate::device::{self, RoleLuts};
use crate::devices::DeviceId;
use crate::interval::Interval;
use crate::style::{CoreStyle, Flow, Options};
use crate::timing::{self, CriticalPath};

// The estimate with its device and interval lives with the devices; re-exported here, where
// callers have always found it.
pub use crate::devices::{estimate, estimate_on};

/// The estimate of one schedule. The JSON fields `luts`, `ffs`, `lut_ff_pairs`, `slices`,
/// `period_ns`, `cycles_per_block`, `blocks_in_flight` and `throughput_mbps` are stable.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Schedule name.
    pub schedule: String,
    /// The device estimated for. Not serialized: the JSON envelope of `estimate` and `sweep`
    /// names the device once (a second `device` key beside it would repeat the key).
    #[serde(skip_serializing)]
    pub device: DeviceId,
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
    /// Sustained throughput at `clock_mhz`, Mbit/s, with `blocks_in_flight` independent
    /// messages (or tree nodes) kept in the datapath.
    pub throughput_mbps: f64,
    /// Latency of a one-block message, ns, at `clock_mhz` (its blocks chain through UBI).
    pub latency_one_message_ns: f64,
    /// Throughput of one long message alone, Mbit/s: block bits x f / cycles per block (UBI
    /// chains its blocks, so one message never fills more than one block slot).
    pub throughput_one_message_mbps: f64,
    /// Leave-one-out interval of area, period and throughput on this device.
    pub interval: Interval,
    /// The interval for another team's implementation of the schedule (its own RTL and
    /// tools): the own rows' and the other teams' ratios together (Virtex-5; `None` where
    /// no other team's row was measured on the device).
    pub interval_other_implementations: Option<Interval>,
    /// Whether the design fits the device's part (`exceeds` empty).
    pub fits_device: bool,
    /// What exceeds the part, one line per resource.
    pub exceeds: Vec<String>,
    /// Throughput per LUT-FF pair, Mbit/s.
    pub mbps_per_pair: f64,
    /// Throughput per slice, Mbit/s.
    pub mbps_per_slice: f64,
    /// The path that sets the period.
    pub critical_path: CriticalPath,
    /// Counted LUTs by role, largest first, then the fitted control LUTs (role `control`).
    pub lut_breakdown: Vec<RoleLuts>,
    /// LUTs the synthesis overhead factor adds (negative below 1): `luts` = the breakdown's
    /// sum + this.
    pub overhead_luts: i64,
}

/// The structural Virtex-5 model of `schedule`, before any interval or device mapping (what
/// the calibration fits); [`crate::estimate`] is this with its interval.
pub fn model(
    schedule: &Schedule,
    options: Options,
    constants: &Constants,
    freq_mhz: Option<f64>,
) -> Estimate {
    let style = options.style_for(schedule);
    let inventory = count::inventory(schedule, style);
    let resources = device::map(&inventory, constants, options.flow);
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
    let one_message =
        f64::from(schedule.block_bits()) * clock / f64::from(schedule.cycles_per_block());
    let latency_ns = f64::from(schedule.block_latency()) * 1000.0 / clock;
    Estimate {
        schedule: schedule.name().to_owned(),
        device: DeviceId::Virtex5,
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
        latency_ns,
        throughput_mbps: throughput,
        latency_one_message_ns: latency_ns,
        throughput_one_message_mbps: one_message,
        interval: Interval::point(
            "luts",
            f64::from(resources.luts),
            path.period_ns,
            throughput,
        ),
        interval_other_implementations: None,
        fits_device: true,
        exceeds: Vec::new(),
        mbps_per_pair: throughput / f64::from(resources.lut_ff_pairs.max(1)),
        mbps_per_slice: throughput / f64::from(resources.slices.max(1)),
        critical_path: path,
        lut_breakdown: resources.breakdown,
        overhead_luts: resources.overhead_luts,
    }
}
