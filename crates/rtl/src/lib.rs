#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod compare;
mod core_file;
mod design;
mod emit;
mod error;
mod run;
pub mod shabal;
mod stimulus;
mod testbench;

use std::path::Path;

use skeinhw_sched::{AnySchedule, Schedule};
use skeinhw_trace::names::{self, Signal};

pub use compare::{
    ResetDiff, compare_reset, compare_vcd, compare_vcd_except, reset_expected, with_idle_cycles,
};
pub use core_file::{CORE_FILE, CoreInfo};
pub use design::{Features, MAX_CORE_OUT_BITS};
pub use error::RtlError;
pub use run::{
    Built, RunLimits, RunOutput, Simulator, build, build_cached, lint, run, run_limited,
};
pub use stimulus::{
    Message, block_count, stimulus, stimulus_back_to_back, stimulus_jobs, stream_of,
};

/// File name of the design (module `skeinhw`; Verilator wants the file named after it).
pub const DESIGN_FILE: &str = "skeinhw.v";
/// File name of the test bench (module `skeinhw_tb`).
pub const TESTBENCH_FILE: &str = "skeinhw_tb.v";
/// File name of the signal map (trace field -> RTL signal).
pub const MAP_FILE: &str = "signal_map.json";
/// File name of the schedule the design was generated from.
pub const SCHEDULE_FILE: &str = "schedule.json";
/// The design's instance path in the test bench: the VCD scope of its registers.
pub const SCOPE: &str = "skeinhw_tb.dut";
/// Verilator's VCD puts everything under this scope; strip it to get [`SCOPE`] paths.
pub const VERILATOR_PREFIX: &str = "TOP.";
/// Rising clock edges of the test bench before golden cycle 1 (two with reset, one that loads
/// the first block). They happen before time 10 and before the VCD starts, so a comparison
/// needs neither an offset nor reset cycles: the VCD's first rising edge is cycle 1 at 10 ns.
pub const PREFIX_EDGES: u32 = 3;
/// Reset cycles to skip in the test bench's VCD: none (see [`PREFIX_EDGES`]).
pub const RESET_CYCLES: u64 = 0;

/// A generated design: the Verilog of the design and its test bench, and the signal map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Design {
    /// The schedule it implements.
    pub schedule: Schedule,
    /// `skeinhw.v`.
    pub verilog: String,
    /// `skeinhw_tb.v`.
    pub testbench: String,
    /// `signal_map.json`.
    pub signal_map: String,
    /// Streams (independent messages) the design holds at once: its blocks in flight.
    pub streams: u32,
    /// `core.json`: lean or full, the output length and the tree it was built for.
    pub core: CoreInfo,
}

/// Generates the design of `schedule`. Schedules with features the generator does not build
/// are rejected with [`RtlError::Unsupported`], never generated wrong.
pub fn generate(schedule: &Schedule) -> Result<Design, RtlError> {
    generate_with(schedule, Options::default())
}

/// How to generate a design.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// A lean core: no register or counter that only the trace reads (the controller `phase`,
    /// the `busy_*` counters, each slot's `block`, `round` and `subkey`). The other trace
    /// registers keep their names, so the diff still compares them; its signal map omits the
    /// fields of [`lean_omitted`].
    pub lean: bool,
}

/// The top-level trace fields a lean core does not have (only the trace reads them).
pub const LEAN_OMITTED: [&str; 5] = [
    names::PHASE,
    names::BUSY[0],
    names::BUSY[1],
    names::BUSY[2],
    names::BUSY[3],
];

/// The per-slot trace fields (`slot<i>_<field>`) a lean core does not have.
pub const LEAN_SLOT_OMITTED: [&str; 3] = ["block", "round", "subkey"];

/// Every trace field a lean core with `slots` pipeline registers does not have, in trace order:
/// what a diff of it cannot compare.
pub fn lean_omitted(slots: usize) -> Vec<String> {
    let mut out: Vec<String> = LEAN_OMITTED.iter().map(|s| s.to_string()).collect();
    for j in 0..slots {
        out.extend(LEAN_SLOT_OMITTED.iter().map(|f| names::slot(j, f)));
    }
    out
}

/// Generates the design of `schedule` (plain Skein) with `options` (see [`generate`]).
pub fn generate_with(schedule: &Schedule, options: Options) -> Result<Design, RtlError> {
    generate_core(schedule, Features::plain(schedule), options)
}

/// Generates the design of `schedule` built for `features` (output length, tree): the Config
/// string it carries and the Output blocks it runs ([`Features`]).
pub fn generate_for(schedule: &Schedule, features: Features) -> Result<Design, RtlError> {
    generate_core(schedule, features, Options::default())
}

/// Generates the design of `schedule` built for `features`, with `options`.
pub fn generate_core(
    schedule: &Schedule,
    features: Features,
    options: Options,
) -> Result<Design, RtlError> {
    let plan = design::Plan::new(schedule, features)?.lean(options.lean);
    let (words, slots) = (plan.words as usize, plan.slots as usize);
    Ok(Design {
        schedule: schedule.clone(),
        verilog: design::design(&plan),
        testbench: testbench::testbench(&plan),
        signal_map: if options.lean {
            signal_map_lean(words, slots)
        } else {
            signal_map(words, slots)
        },
        streams: plan.streams,
        core: CoreInfo::new(options.lean, features.out_bits, features.tree),
    })
}

/// The signal map of a lean core: that of [`signal_map`] without the fields of
/// [`lean_omitted`].
pub fn signal_map_lean(words: usize, slots: usize) -> String {
    let omitted = lean_omitted(slots);
    let signals: Vec<Signal> = design_signals(words, slots)
        .into_iter()
        .filter(|s| !omitted.contains(&s.name))
        .collect();
    map_json(&signals)
}

/// The signal map: every trace field but the clock -> the RTL register and its bit slice, in
/// the scope [`SCOPE`] (JSON, keys sorted, ending in a newline); `in_ready_<k>` is bit k of the
/// `in_ready` port (the design has one stream per pipeline register).
pub fn signal_map(words: usize, slots: usize) -> String {
    map_json(&design_signals(words, slots))
}

/// The trace fields of a generated Skein design with `slots` pipeline registers: those of
/// [`names::signals`] and `in_ready_<k>` for each of its streams (one per slot).
pub(crate) fn design_signals(words: usize, slots: usize) -> Vec<Signal> {
    let mut v = names::signals(words, slots);
    v.extend((0..slots).map(|k| Signal::new(names::in_ready(k), 1)));
    v
}

/// The RTL signal of trace field `name` in a generated design, with its bit slice: the
/// register of the same name, or for `in_ready_<k>` bit k of the `in_ready` port.
pub(crate) fn rtl_signal(name: &str, width: u32) -> String {
    if let Some(k) = name
        .strip_prefix("in_ready_")
        .filter(|k| k.parse::<usize>().is_ok())
    {
        format!("in_ready[{k}]")
    } else if width == 1 {
        name.to_owned()
    } else {
        format!("{name}[{}:0]", width - 1)
    }
}

/// The signal map of a design whose registers carry the names of `signals`.
pub(crate) fn map_json(signals: &[Signal]) -> String {
    let mut fields = serde_json::Map::new();
    for s in signals {
        if s.name == names::CLK {
            continue;
        }
        let rtl = rtl_signal(&s.name, s.width);
        fields.insert(s.name.clone(), serde_json::Value::String(rtl));
    }
    let map = serde_json::json!({
        "clock": names::CLK,
        "scope": SCOPE,
        "strip_prefix_verilator": VERILATOR_PREFIX,
        "reset_cycles": RESET_CYCLES,
        "fields": fields,
    });
    let mut s = serde_json::to_string_pretty(&map).expect("strings only");
    s.push('\n');
    s
}

/// Writes `(name, text)` files into `dir`, which must exist, each one whole (through
/// `skeinhw-outfile`): a file of the same name is replaced, a symlink written through. The
/// caller decided that `dir` is its own; `skeinhw rtl` goes through [`write_dir`].
pub(crate) fn write_files(dir: &Path, files: &[(&'static str, String)]) -> Result<(), RtlError> {
    for (name, text) in files {
        skeinhw_outfile::write_file(
            dir.join(name),
            text.as_bytes(),
            skeinhw_outfile::Options::new().force(true),
        )?;
    }
    Ok(())
}

/// Writes `(name, text)` files into the output directory `dir` under skeinhw's rules
/// ([`skeinhw_outfile::OutDir`]): created if missing; otherwise, with `force`, it may hold
/// only the files skeinhw listed in its manifest (`.skeinhw-manifest`), which are replaced;
/// anything else there is refused and left untouched. All files are written before the first
/// is renamed into place.
pub fn write_dir(dir: &Path, files: &[(&str, String)], force: bool) -> Result<(), RtlError> {
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    skeinhw_outfile::OutDir::open(dir, force)?.write_files(&refs)?;
    Ok(())
}

impl Design {
    /// The files of the design: (name, text).
    pub fn files(&self) -> [(&'static str, String); 5] {
        [
            (DESIGN_FILE, self.verilog.clone()),
            (TESTBENCH_FILE, self.testbench.clone()),
            (MAP_FILE, self.signal_map.clone()),
            (SCHEDULE_FILE, self.schedule.to_json_pretty()),
            (CORE_FILE, self.core.to_json_pretty()),
        ]
    }

    /// Writes the files into `dir`, which must exist.
    pub fn write_into(&self, dir: &Path) -> Result<(), RtlError> {
        write_files(dir, &self.files())
    }
}

/// The design of a Skein or a Shabal schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyDesign {
    /// A Skein design.
    Skein(Design),
    /// A Shabal core.
    Shabal(shabal::ShabalDesign),
}

/// Generates the design of a Skein or a Shabal schedule.
pub fn generate_any(schedule: &AnySchedule) -> Result<AnyDesign, RtlError> {
    Ok(match schedule {
        AnySchedule::Skein(s) => AnyDesign::Skein(generate(s)?),
        AnySchedule::Shabal(s) => AnyDesign::Shabal(shabal::generate(s)),
    })
}

impl AnyDesign {
    /// The name of the schedule it implements.
    pub fn name(&self) -> &str {
        match self {
            AnyDesign::Skein(d) => d.schedule.name(),
            AnyDesign::Shabal(d) => d.schedule.name(),
        }
    }

    /// The files of the design: (name, text).
    pub fn files(&self) -> [(&'static str, String); 5] {
        match self {
            AnyDesign::Skein(d) => d.files(),
            AnyDesign::Shabal(d) => d.files(),
        }
    }

    /// Writes the files into `dir`, which must exist.
    pub fn write_into(&self, dir: &Path) -> Result<(), RtlError> {
        write_files(dir, &self.files())
    }
}

/// Every preset in every size its spec allows (the preset itself first, then the other sizes,
/// named `<preset>-<size>`), validated.
pub fn all_designs() -> Vec<Schedule> {
    let mut out = Vec::new();
    for name in skeinhw_sched::preset_names() {
        let spec = skeinhw_sched::preset_spec(name).expect("a preset");
        let own = spec.size;
        out.push(spec.clone().build().expect("presets are valid"));
        for size in skeinhw_sched::ALLOWED_SIZES {
            if size == own {
                continue;
            }
            let mut s = spec.clone();
            s.size = size;
            s.name = format!("{name}-{size}");
            if let Ok(schedule) = s.build() {
                out.push(schedule);
            }
        }
    }
    out
}
