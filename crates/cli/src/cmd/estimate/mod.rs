//! `skeinhw estimate`, `skeinhw sweep` and `skeinhw calibrate`: the estimator of
//! `skeinhw-estimator` (Virtex-5, Virtex-6, ECP5, Kintex-7: `--device`) on the command line.
//!
//! Output files and directories go through `skeinhw-outfile`: written whole or not at all,
//! an existing file replaced only with `--force`, a directory only if it holds nothing but
//! skeinhw's files (its manifest).

mod calibration;
mod envelope;
mod mismatch;
mod one_schedule;
mod sweep_cmd;
mod synth;
mod tables;

pub use calibration::{CalibrateArgs, run_calibrate};
pub use one_schedule::{EstimateArgs, run_estimate};
pub use sweep_cmd::{SweepArgs, run_sweep};

use envelope::Envelope;
use synth::synthesize;
use tables::{netlist_table, shabal_table, table};

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use skeinhw_estimator::calibrate;
use skeinhw_estimator::constants::{BUILT_IN, SOURCE_PATH};
use skeinhw_estimator::netlist::summary::{is_datapath_register, is_state_register};
use skeinhw_estimator::netlist::{NetlistPath, yosys};
use skeinhw_estimator::shabal::{self as shabal_model, ShabalEstimate};
use skeinhw_estimator::sweep::{self, SweepConfig};
use skeinhw_estimator::{
    Constants, CoreStyle, DeviceId, Estimate, Flow, Netlist, NetlistEstimate, Options, estimate_on,
    plot,
};
use skeinhw_outfile::{Options as OutOptions, OutDir, OutFile};
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::{AnySchedule, Schedule};

use crate::Status;
use crate::schedule_args::ScheduleArgs;

/// `--device`, for `estimate`, `sweep` and `calibrate` (`#[command(flatten)]`).
#[derive(Args, Clone, Copy, Debug)]
pub struct DeviceArg {
    /// Device: virtex5 (the seed papers'), virtex6, ecp5 or kintex7.
    #[arg(long, value_name = "DEVICE", default_value_t = DeviceId::Virtex5,
          value_parser = parse_device)]
    pub device: DeviceId,
}

fn parse_device(s: &str) -> std::result::Result<DeviceId, String> {
    s.parse()
        .map_err(|e: skeinhw_estimator::EstimatorError| e.to_string())
}

fn load_constants(path: Option<&Path>) -> Result<Constants> {
    Ok(match path {
        Some(path) => Constants::from_file(path)?,
        None => Constants::built_in(),
    })
}

/// The netlist's numbers with the schedule's cycle counts: what the design does at the
/// netlist's clock (or the one given).
#[derive(Serialize)]
struct NetlistReport {
    #[serde(flatten)]
    netlist: NetlistEstimate,
    /// Clock used for the throughput: the netlist's or the one given, MHz.
    clock_mhz: f64,
    cycles_per_block: u32,
    blocks_in_flight: u32,
    latency_ns: f64,
    throughput_mbps: f64,
    mbps_per_pair: f64,
    mbps_per_slice: f64,
    /// Seconds Yosys ran (with --synth; 0 when a kept netlist of the same Verilog was reused).
    #[serde(skip_serializing_if = "Option::is_none")]
    yosys_seconds: Option<f64>,
    /// With --synth: the latest path from the round datapath's registers into the state
    /// registers, paths from the input buffers, stream registers and issue logic left out
    /// (`is_datapath_register`): where the round itself limits the clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    round_path: Option<NetlistPath>,
}

/// The model's estimate, with the netlist's beside it when there is one.
#[derive(Serialize)]
struct EstimateReport<'a> {
    #[serde(flatten)]
    model: &'a Estimate,
    #[serde(skip_serializing_if = "Option::is_none")]
    netlist: Option<NetlistReport>,
}
