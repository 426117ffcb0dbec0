//! Shared helpers of the rtl tests: generate a design into a cached directory, build it once
//! per simulator (cached in the target directory), run messages through it and compare the
//! VCD with the golden trace.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use skeinhw_rtl::{
    Message, RunOutput, Simulator, build_cached, compare_vcd, generate, run, stimulus,
};
use skeinhw_sched::Schedule;
use skeinhw_sched::sim::{Job, MemorySink, simulate};
use skeinhw_skein::Params;

/// Where builds are cached: `<target>/rtl-cache` (shared by test runs).
pub fn cache_root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
        target.join("rtl-cache")
    })
    .clone()
}

/// Writes the design of `schedule` into a fresh directory under the cache root.
pub fn design_dir(schedule: &Schedule) -> PathBuf {
    let d = generate(schedule).expect("generate");
    let dir = cache_root().join("src").join(schedule.name());
    std::fs::create_dir_all(&dir).unwrap();
    // Only rewrite changed files so that concurrent readers see whole files.
    for (name, text) in d.files() {
        let p = dir.join(name);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text.as_str()) {
            let mut tmp = tempfile::NamedTempFile::new_in(&dir).unwrap();
            std::io::Write::write_all(&mut tmp, text.as_bytes()).unwrap();
            tmp.persist(&p).unwrap();
        }
    }
    dir
}

/// The outcome of one RTL run against the golden model.
pub struct Outcome {
    pub output: RunOutput,
    pub expected: Vec<Vec<u8>>,
    pub divergence: Option<skeinhw_diff::DiffReport>,
    pub golden_cycles: u64,
}

/// Runs `messages` through the design in `dir` (built with `sim`) and compares.
pub fn run_and_compare(
    schedule: &Schedule,
    dir: &Path,
    sim: Simulator,
    messages: &[Message<'_>],
) -> Outcome {
    let built = build_cached(sim, dir, &cache_root()).expect("build");
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("input.txt");
    std::fs::write(&input, stimulus(schedule, messages).unwrap()).unwrap();
    let vcd = work.path().join("dump.vcd");
    let output = run(&built, &input, &vcd).expect("simulation");
    if let Some(keep) = std::env::var_os("SKEINHW_KEEP_DIR") {
        // Debugging: keep the last run's input and VCD.
        let keep = PathBuf::from(keep);
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&input, keep.join("input.txt")).unwrap();
        std::fs::copy(&vcd, keep.join("dump.vcd")).unwrap();
    }
    let out_bits = u64::from(schedule.size().bits());
    let jobs: Vec<Job<'_>> = messages
        .iter()
        .map(|m| Job {
            message: m.data,
            msg_bits: m.bits,
            out_bits,
            params: Params {
                key: m.key,
                ..Params::default()
            },
        })
        .collect();
    let mut sink = MemorySink::new();
    let report = simulate(schedule, &jobs, &mut sink).expect("golden");
    let divergence = compare_vcd(
        sink.header.as_ref().expect("header"),
        &sink.records,
        &vcd,
        skeinhw_rtl::SCOPE,
        sim.vcd_prefix(),
    )
    .expect("compare");
    Outcome {
        output,
        expected: report.digests,
        divergence,
        golden_cycles: report.cycles,
    }
}

/// Asserts digests and the cycle-for-cycle equality.
pub fn assert_clean(name: &str, sim: Simulator, o: &Outcome) {
    if let Some(d) = &o.divergence {
        panic!("{name} ({}): {d}", sim.as_str());
    }
    for (s, want) in o.expected.iter().enumerate() {
        let got = o
            .output
            .digest_bytes(s as u32)
            .unwrap_or_else(|| panic!("{name} ({}): no digest for stream {s}", sim.as_str()));
        assert_eq!(
            &got,
            want,
            "{name} ({}): digest of stream {s}",
            sim.as_str()
        );
    }
    assert_eq!(o.output.cycles, o.golden_cycles, "{name}: cycles");
}
