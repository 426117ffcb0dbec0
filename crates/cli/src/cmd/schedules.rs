//! `skeinhw schedules` (the preset table) and `skeinhw schedule show NAME|FILE.json`.

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};
use skeinhw_sched::{Schedule, presets};

use crate::Status;

/// Arguments of `schedules`.
#[derive(Args)]
pub struct SchedulesArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `schedule`.
#[derive(Args)]
pub struct ScheduleArgs {
    #[command(subcommand)]
    action: ScheduleAction,
}

#[derive(Subcommand)]
enum ScheduleAction {
    /// Print one schedule: its fields and the numbers derived from them.
    Show {
        /// A preset name (see `skeinhw schedules`) or a schedule JSON file.
        #[arg(value_name = "NAME|FILE.json")]
        schedule: String,
        /// Print JSON: every field, plus `cycles_per_block`, `blocks_in_flight` and the other
        /// derived numbers.
        #[arg(long)]
        json: bool,
    },
}

/// The JSON of one schedule: its spec fields and its derived numbers, side by side.
pub fn schedule_json(s: &Schedule) -> Value {
    let mut map: Map<String, Value> = match serde_json::to_value(s.spec()) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    if let Ok(Value::Object(derived)) = serde_json::to_value(s.derived()) {
        map.extend(derived);
    }
    Value::Object(map)
}

/// Lists presets.
pub fn run_list(args: SchedulesArgs) -> Result<Status> {
    let all = presets();
    if args.json {
        let rows: Vec<Value> = all
            .iter()
            .map(|s| {
                json!({
                    "name": s.name(),
                    "source": s.source(),
                    "size": s.size().bits(),
                    "cycles_per_block": s.cycles_per_block(),
                    "blocks_in_flight": s.blocks_in_flight(),
                    "issue_interval": s.issue_interval(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    let width = all.iter().map(|s| s.name().len()).max().unwrap_or(4).max(4);
    println!(
        "{:width$}  {:>6}  {:>16}  {:>16}  source",
        "name", "size", "cycles per block", "blocks in flight"
    );
    for s in &all {
        println!(
            "{:width$}  {:>6}  {:>16}  {:>16}  {}",
            s.name(),
            s.size().bits(),
            s.cycles_per_block(),
            s.blocks_in_flight(),
            s.source()
        );
    }
    Ok(0)
}

/// Shows one schedule.
pub fn run_show(args: ScheduleArgs) -> Result<Status> {
    let ScheduleAction::Show { schedule, json } = args.action;
    let s = Schedule::from_name_or_file(&schedule)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&schedule_json(&s))?);
        return Ok(0);
    }
    let d = s.derived();
    let a = d.adders;
    println!("name                 {}", s.name());
    if !s.source().is_empty() {
        println!("source               {}", s.source());
    }
    println!(
        "size                 {} ({} words, {} rounds, {} subkeys)",
        s.size(),
        d.words,
        d.rounds,
        d.subkeys
    );
    println!("rounds per cycle     {}", s.rounds_per_cycle());
    println!("functional stages    {}", s.functional_stages());
    println!("structural stages    {}", s.structural_stages());
    println!("round pipeline       {}", s.round_pipeline());
    println!("round datapath       {}", s.round_datapath());
    println!("shared key adder     {}", s.shared_key_schedule_adder());
    println!("first subkey cycle   {}", s.first_subkey_cycle());
    println!("config precomputed   {}", s.config_precomputed());
    println!("cycles per block     {}", d.cycles_per_block);
    println!("blocks in flight     {}", d.blocks_in_flight);
    println!("issue interval       {}", d.issue_interval);
    println!(
        "adders               {} (MIX {}, subkey {}, key schedule {}, first subkey {})",
        a.total(),
        a.mix,
        a.subkey,
        a.key_schedule,
        a.first_subkey
    );
    println!("state registers      {}", d.state_registers);
    Ok(0)
}
