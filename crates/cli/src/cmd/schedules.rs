//! `skeinhw schedules` (the preset table) and `skeinhw schedule show NAME|FILE.json`.

use anyhow::Result;
use clap::{Args, Subcommand};
use serde::Serialize;
use serde_json::{Map, Value, json};
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::{Algorithm, AnySchedule, Schedule};

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

/// A schedule's spec fields and its derived numbers, side by side in one JSON object.
fn fields_and_derived(spec: impl Serialize, derived: impl Serialize) -> Value {
    let mut map: Map<String, Value> = match serde_json::to_value(spec) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    if let Ok(Value::Object(derived)) = serde_json::to_value(derived) {
        map.extend(derived);
    }
    Value::Object(map)
}

/// The JSON of one schedule: its spec fields and its derived numbers, side by side.
pub fn schedule_json(s: &Schedule) -> Value {
    fields_and_derived(s.spec(), s.derived())
}

/// The JSON of one Shabal schedule: its fields and derived numbers.
pub fn shabal_schedule_json(s: &ShabalSchedule) -> Value {
    fields_and_derived(s.spec(), s.derived())
}

/// The size column: Skein's state bits, Shabal's output bits.
fn size_bits(s: &AnySchedule) -> u32 {
    match s {
        AnySchedule::Skein(s) => s.size().bits(),
        AnySchedule::Shabal(s) => s.output_bits(),
    }
}

/// Lists presets of both algorithms.
pub fn run_list(args: SchedulesArgs) -> Result<Status> {
    let all = AnySchedule::presets();
    if args.json {
        let rows: Vec<Value> = all
            .iter()
            .map(|s| {
                let issue_interval = match s {
                    AnySchedule::Skein(s) => s.issue_interval(),
                    AnySchedule::Shabal(s) => s.cycles_per_block(),
                };
                json!({
                    "name": s.name(),
                    "algorithm": s.algorithm(),
                    "source": s.source(),
                    "size": size_bits(s),
                    "cycles_per_block": s.cycles_per_block(),
                    "blocks_in_flight": s.blocks_in_flight(),
                    "issue_interval": issue_interval,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    let width = all.iter().map(|s| s.name().len()).max().unwrap_or(4).max(4);
    println!(
        "{:width$}  {:>9}  {:>6}  {:>16}  {:>16}  source",
        "name", "algorithm", "size", "cycles per block", "blocks in flight"
    );
    for s in &all {
        let algorithm = match s.algorithm() {
            Algorithm::Skein => "skein",
            Algorithm::Shabal => "shabal",
        };
        println!(
            "{:width$}  {:>9}  {:>6}  {:>16}  {:>16}  {}",
            s.name(),
            algorithm,
            size_bits(s),
            s.cycles_per_block(),
            s.blocks_in_flight(),
            s.source()
        );
    }
    Ok(0)
}

/// Shows one Shabal schedule.
fn show_shabal(s: &ShabalSchedule, json: bool) -> Result<Status> {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&shabal_schedule_json(s))?
        );
        return Ok(0);
    }
    let d = s.derived();
    let a = d.adders;
    println!("name                 {}", s.name());
    if !s.source().is_empty() {
        println!("source               {}", s.source());
    }
    println!("algorithm            shabal");
    println!("output bits          {}", s.output_bits());
    println!(
        "unfolding            {} iterations of P per cycle",
        s.unfolding()
    );
    println!("cycles per block     {}", d.cycles_per_block);
    println!("blocks in flight     {}", d.blocks_in_flight);
    println!("final passes         {}", d.final_passes);
    println!(
        "32-bit adders        {} (U {}, V {}, final additions {}, B += M {}, C -= M {})",
        a.total(),
        a.u,
        a.v,
        a.final_additions,
        a.message_add,
        a.message_sub
    );
    println!("state register bits  {}", d.state_register_bits);
    Ok(0)
}

/// Shows one schedule.
pub fn run_show(args: ScheduleArgs) -> Result<Status> {
    let ScheduleAction::Show { schedule, json } = args.action;
    let s = match AnySchedule::from_name_or_file(&schedule)? {
        AnySchedule::Skein(s) => s,
        AnySchedule::Shabal(s) => return show_shabal(&s, json),
    };
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
