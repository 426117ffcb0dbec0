//! The schedule options shared by `trace`, `estimate`, `rtl`, `sim` and `diff`: a preset name
//! or a schedule JSON file, and field overrides. The preset is a starting point; the overrides
//! are applied to its spec and the result is validated once (the schedule crate's rules).

use anyhow::{Result, bail};
use clap::Args;
use skeinhw_sched::shabal::ShabalSpec;
use skeinhw_sched::{AnySchedule, Schedule, ScheduleSpec};

/// A schedule and its overrides on the command line.
#[derive(Args, Clone, Debug, Default)]
pub struct ScheduleArgs {
    /// The schedule: a preset name (see `skeinhw schedules`) or a schedule JSON file.
    #[arg(long, value_name = "NAME|FILE.json")]
    pub schedule: String,
    /// Override rounds_per_cycle (k, the unroll factor).
    #[arg(long, value_name = "K")]
    pub rounds_per_cycle: Option<u32>,
    /// Override functional_stages (p).
    #[arg(long, value_name = "P")]
    pub functional_stages: Option<u32>,
    /// Override structural_stages (s).
    #[arg(long, value_name = "S")]
    pub structural_stages: Option<u32>,
    /// Override round_pipeline (Long Fig. 9: a register between rounds).
    #[arg(long, value_name = "BOOL")]
    pub round_pipeline: Option<bool>,
    /// Override round_datapath (baseline, half_subkey_adders, half_mix_adders, split_round,
    /// mix_key_overlap).
    #[arg(long, value_name = "NAME")]
    pub round_datapath: Option<String>,
    /// Override shared_key_schedule_adder (Long 3.4.1).
    #[arg(long, value_name = "BOOL")]
    pub shared_key_schedule_adder: Option<bool>,
    /// Override first_subkey_cycle (Athanasiou's extra cycle to form subkey 0).
    #[arg(long, value_name = "BOOL")]
    pub first_subkey_cycle: Option<bool>,
    /// Override config_precomputed.
    #[arg(long, value_name = "BOOL")]
    pub config_precomputed: Option<bool>,
    /// Override any schedule field, e.g. `--set first_subkey_cycle=false` (repeatable).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
}

impl ScheduleArgs {
    /// The overrides as (field, value) pairs, in a fixed order.
    fn overrides(&self, size: Option<usize>) -> Result<Vec<(String, String)>> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut add = |field: &str, value: Option<String>| {
            if let Some(v) = value {
                out.push((field.to_owned(), v));
            }
        };
        add("size", size.map(|v| v.to_string()));
        add(
            "rounds_per_cycle",
            self.rounds_per_cycle.map(|v| v.to_string()),
        );
        add(
            "functional_stages",
            self.functional_stages.map(|v| v.to_string()),
        );
        add(
            "structural_stages",
            self.structural_stages.map(|v| v.to_string()),
        );
        add("round_pipeline", self.round_pipeline.map(|v| v.to_string()));
        add("round_datapath", self.round_datapath.clone());
        add(
            "shared_key_schedule_adder",
            self.shared_key_schedule_adder.map(|v| v.to_string()),
        );
        add(
            "first_subkey_cycle",
            self.first_subkey_cycle.map(|v| v.to_string()),
        );
        add(
            "config_precomputed",
            self.config_precomputed.map(|v| v.to_string()),
        );
        for s in &self.set {
            let Some((field, value)) = s.split_once('=') else {
                bail!("--set {s}: expected FIELD=VALUE, e.g. --set first_subkey_cycle=false");
            };
            out.push((field.trim().to_owned(), value.trim().to_owned()));
        }
        Ok(out)
    }

    /// The Skein schedule with the overrides (and `size`, from `--size`) applied, validated
    /// once. An overridden preset is renamed `<preset>+field=value,...` unless `--set name=`
    /// is given. A Shabal schedule is refused with a one-line error.
    pub fn build(&self, size: Option<usize>) -> Result<Schedule> {
        match self.build_any(size)? {
            AnySchedule::Skein(s) => Ok(s),
            AnySchedule::Shabal(s) => bail!(
                "{} is a Shabal schedule; this command takes Skein schedules only",
                s.name()
            ),
        }
    }

    /// The schedule of either algorithm with the overrides applied. For Shabal, `--size` sets
    /// `output_bits` and `--rounds-per-cycle` sets `unfolding` (iterations of P per cycle);
    /// the other Skein fields are refused.
    pub fn build_any(&self, size: Option<usize>) -> Result<AnySchedule> {
        let base = AnySchedule::from_name_or_file(&self.schedule)?;
        let overrides = self.overrides(size)?;
        if overrides.is_empty() {
            return Ok(base);
        }
        Ok(match base {
            AnySchedule::Skein(base) => {
                let mut spec: ScheduleSpec = base.into_spec();
                for (field, value) in &overrides {
                    spec.set(field, value)?;
                }
                spec.name = renamed(&spec.name, &overrides);
                AnySchedule::Skein(spec.build()?)
            }
            AnySchedule::Shabal(base) => {
                let mut spec: ShabalSpec = base.into_spec();
                for (field, value) in &overrides {
                    let field = match field.as_str() {
                        "size" => "output_bits",
                        "rounds_per_cycle" => "unfolding",
                        other => other,
                    };
                    spec.set(field, value)?;
                }
                spec.name = renamed(&spec.name, &overrides);
                AnySchedule::Shabal(spec.build()?)
            }
        })
    }
}

/// `<original>+field=value,...`, or the name the overrides set.
fn renamed(current: &str, overrides: &[(String, String)]) -> String {
    if overrides.iter().any(|(f, _)| f == "name") {
        return current.to_owned();
    }
    let changed: Vec<String> = overrides
        .iter()
        .filter(|(f, _)| f != "source")
        .map(|(f, v)| format!("{f}={v}"))
        .collect();
    format!("{current}+{}", changed.join(","))
}
