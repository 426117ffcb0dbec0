//! `skeinhw`: the command line of the Skein hardware golden reference.
//!
//! Each subcommand lives in its own module under `cmd/`; this file only parses and dispatches.
//! Errors come back as `anyhow::Error` and are printed on one line with exit status 2 (usage,
//! parse and input errors) unless a subcommand chooses another status (1 for a failed check or
//! a divergence).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod message;
mod progress;
mod schedule_args;
#[cfg(unix)]
mod sigbus;

/// Skein/Threefish hardware golden reference: hash, trace, diff, generate RTL, estimate.
#[derive(Parser)]
#[command(name = "skeinhw", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The whole product on a built-in example: hash, trace, diff, Verilog, estimate.
    Tour(cmd::tour::TourArgs),
    /// Hash files or a hex message with Skein (like b2sum / sha256sum).
    Hash(cmd::hash::HashArgs),
    /// List the schedule presets (name, source, cycles per block, blocks in flight).
    Schedules(cmd::schedules::SchedulesArgs),
    /// Show one schedule: `schedule show NAME|FILE.json`.
    Schedule(cmd::schedules::ScheduleArgs),
    /// Run the cycle-accurate golden simulator and write a per-cycle trace.
    Trace(cmd::trace::TraceArgs),
    /// Diff a golden trace against an RTL simulation's VCD/FST, cycle by cycle or by event.
    Diff(cmd::diff::DiffArgs),
    /// Find the signal map of an RTL waveform by searching it for the golden words (Skein or
    /// Shabal).
    Map(cmd::map::MapArgs),
    /// Write the generated Verilog of a schedule: design, test bench and signal map.
    Rtl(cmd::rtl::RtlArgs),
    /// Simulate the generated Verilog (Icarus or Verilator) and diff it against the golden trace.
    Sim(cmd::rtl::SimArgs),
    /// Estimate Virtex-5 area and speed of a schedule.
    Estimate(cmd::estimate::EstimateArgs),
    /// Sweep schedules through the estimator: CSV, JSON and an SVG Pareto plot.
    Sweep(cmd::estimate::SweepArgs),
    /// Fit the estimator's constants on the papers' tables and print the errors.
    Calibrate(cmd::estimate::CalibrateArgs),
    /// Design-space exploration with real synthesis on Ray (Python: `skeinhw[explore]`).
    Explore(cmd::explore::ExploreArgs),
    /// Print the shell completion script: bash, zsh, fish, elvish or powershell.
    Completions(cmd::completions::CompletionsArgs),
    /// Write man pages for skeinhw and every subcommand into a directory.
    Man(cmd::man::ManArgs),
}

/// Exit status of a command that ran to its end.
pub type Status = u8;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = match cli.command {
        Command::Tour(args) => cmd::tour::run(args),
        Command::Hash(args) => cmd::hash::run(args),
        Command::Schedules(args) => cmd::schedules::run_list(args),
        Command::Schedule(args) => cmd::schedules::run_show(args),
        Command::Trace(args) => cmd::trace::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::Map(args) => cmd::map::run(args),
        Command::Rtl(args) => cmd::rtl::run_rtl(args),
        Command::Sim(args) => cmd::rtl::run_sim(args),
        Command::Estimate(args) => cmd::estimate::run_estimate(args),
        Command::Sweep(args) => cmd::estimate::run_sweep(args),
        Command::Calibrate(args) => cmd::estimate::run_calibrate(args),
        Command::Explore(args) => cmd::explore::run(args),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Man(args) => cmd::man::run(args),
    };
    match result {
        Ok(status) => ExitCode::from(status),
        // A closed pipe (`skeinhw ... | head`) is how the reader says it has seen enough.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skeinhw: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// Help and version go to standard output as clap prints them; a usage error becomes one line
/// on standard error and exit status 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("usage error");
            // clap's "did you mean" suggestion stays, on the same line.
            let tip = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("tip: "))
                .map(|t| format!(" ({t})"))
                .unwrap_or_default();
            eprintln!("skeinhw: {}{tip}", first.trim_start_matches("error: "));
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let io = c.downcast_ref::<std::io::Error>().map(std::io::Error::kind);
        // serde_json wraps the writer's error in its own type.
        let json = c
            .downcast_ref::<serde_json::Error>()
            .and_then(serde_json::Error::io_error_kind);
        io.or(json) == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// An error and its causes on one line.
fn one_line(e: &anyhow::Error) -> String {
    let mut s = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !s.contains(&c) {
            s.push_str(": ");
            s.push_str(&c);
        }
    }
    s.replace('\n', " ")
}
