//! Shared helpers of the Shabal rtl tests: generate a core into a cached directory, build it
//! once per simulator (cached like the Skein designs), run messages through it and compare
//! its VCD with the golden trace of `skeinhw_sched::shabal::sim`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use skeinhw_rtl::shabal::{ShabalDesign, compare_vcd, digest_bytes, generate, stimulus};
use skeinhw_rtl::{Message, RunOutput, Simulator, build_cached, run};
use skeinhw_sched::shabal::ShabalSchedule;
use skeinhw_sched::shabal::sim::{ShabalJob, ShabalMemorySink, simulate};

pub use crate::common::cache_root;

/// Writes `design` into `<cache>/src/<name>`, rewriting only changed files.
pub fn write_design(design: &ShabalDesign, name: &str) -> PathBuf {
    let dir = cache_root().join("src").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in design.files() {
        let p = dir.join(file);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text.as_str()) {
            let mut tmp = tempfile::NamedTempFile::new_in(&dir).unwrap();
            std::io::Write::write_all(&mut tmp, text.as_bytes()).unwrap();
            tmp.persist(&p).unwrap();
        }
    }
    dir
}

/// The generated core of `schedule` in its cached directory.
pub fn design_dir(schedule: &ShabalSchedule) -> PathBuf {
    write_design(&generate(schedule), schedule.name())
}

/// The outcome of one RTL run against the golden model.
pub struct Outcome {
    pub output: RunOutput,
    /// The library's digests (`skeinhw_shabal::hash`), per message.
    pub expected: Vec<Vec<u8>>,
    pub divergence: Option<skeinhw_diff::DiffReport>,
    pub golden_cycles: u64,
}

/// Runs `messages` back to back through the core in `dir` (built with `sim`) and compares its
/// VCD with the golden trace.
pub fn run_and_compare(
    schedule: &ShabalSchedule,
    dir: &Path,
    sim: Simulator,
    messages: &[Message<'_>],
) -> Outcome {
    let built = build_cached(sim, dir, &cache_root()).expect("build");
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("input.txt");
    std::fs::write(&input, stimulus(messages).unwrap()).unwrap();
    let vcd = work.path().join("dump.vcd");
    let output = run(&built, &input, &vcd).expect("simulation");
    if let Some(keep) = std::env::var_os("SKEINHW_KEEP_DIR") {
        let keep = PathBuf::from(keep);
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&input, keep.join("input.txt")).unwrap();
        std::fs::copy(&vcd, keep.join("dump.vcd")).unwrap();
    }
    let jobs: Vec<ShabalJob<'_>> = messages
        .iter()
        .map(|m| ShabalJob {
            message: m.data,
            msg_bits: m.bits,
        })
        .collect();
    let mut sink = ShabalMemorySink::default();
    let report = simulate(schedule, &jobs, &mut sink).expect("golden");
    let divergence = compare_vcd(
        sink.header.as_ref().expect("header"),
        &sink.records,
        &vcd,
        skeinhw_rtl::SCOPE,
        sim.vcd_prefix(),
    )
    .expect("compare");
    let out_bits = u64::from(schedule.output_bits());
    let expected = messages
        .iter()
        .map(|m| skeinhw_shabal::hash(out_bits, m.data, m.bits).unwrap())
        .collect();
    Outcome {
        output,
        expected,
        divergence,
        golden_cycles: report.cycles,
    }
}

/// Asserts the library's digests, the golden cycle count and the cycle-for-cycle equality.
pub fn assert_clean(name: &str, sim: Simulator, o: &Outcome) {
    if let Some(d) = &o.divergence {
        panic!("{name} ({}): {d}", sim.as_str());
    }
    for (s, want) in o.expected.iter().enumerate() {
        let got = digest_bytes(&o.output, s as u32)
            .unwrap_or_else(|| panic!("{name} ({}): no digest for message {s}", sim.as_str()));
        assert_eq!(
            &got,
            want,
            "{name} ({}): digest of message {s}",
            sim.as_str()
        );
    }
    assert_eq!(o.output.cycles, o.golden_cycles, "{name}: cycles");
}

/// Runs `f` on every item with two threads (the CI machine has two cores), collecting panics.
pub fn parallel<T: Sync>(items: &[T], f: impl Fn(&T) + Sync) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some(item) =
                    items.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    if let Err(e) =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)))
                    {
                        let msg = e
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        failures.lock().unwrap().push(msg);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
