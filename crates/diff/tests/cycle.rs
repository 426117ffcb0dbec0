//! The cycle diff on golden traces written as VCD by `skeinhw-trace` (an independent writer,
//! the `vcd` crate) and read back by wellen: identical runs compare clean; a value changed in
//! the file is reported at exactly its cycle and field; truncation, a wrong clock and nothing to
//! compare are errors, never a pass.

use std::path::{Path, PathBuf};

use skeinhw_diff::frame::skein_frame;
use skeinhw_diff::{CycleOptions, DiffReport, SignalMap, Verdict, compare_cycles};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, MemorySink, OwnedCycleRecord, TraceHeader, simulate};
use skeinhw_trace::{VcdWriter, names};

fn golden(schedule: &str, msg: &[u8]) -> (TraceHeader, Vec<OwnedCycleRecord>) {
    let s = preset(schedule).unwrap();
    let mut sink = MemorySink::new();
    simulate(&s, &[Job::bytes(msg, 512, Default::default())], &mut sink).unwrap();
    (sink.header.unwrap(), sink.records)
}

fn write_vcd(dir: &Path, schedule: &str, msg: &[u8]) -> PathBuf {
    let s = preset(schedule).unwrap();
    let path = dir.join("golden.vcd");
    let mut w = VcdWriter::new(std::fs::File::create(&path).unwrap());
    simulate(&s, &[Job::bytes(msg, 512, Default::default())], &mut w).unwrap();
    drop(w);
    path
}

fn signals(h: &TraceHeader) -> Vec<names::Signal> {
    names::signals(h.words, h.slots)
}

fn identity(h: &TraceHeader) -> SignalMap {
    let signals = signals(h);
    SignalMap::identity(signals.iter().map(|s| s.name.as_str()), Some(names::SCOPE))
}

fn options() -> CycleOptions {
    let mut o = CycleOptions::default();
    o.wave.clock = format!("{}.{}", names::SCOPE, names::CLK);
    o
}

fn run(h: &TraceHeader, records: &[OwnedCycleRecord], vcd: &Path, o: &CycleOptions) -> DiffReport {
    let ok = records.iter().map(|r| Ok::<_, String>(skein_frame(r)));
    compare_cycles(&signals(h), ok, vcd, &identity(h), o).unwrap()
}

#[test]
fn a_trace_diffs_clean_against_itself() {
    for schedule in ["ath-1r", "ath-8r-2fp-3sp", "long-split-256"] {
        let dir = tempfile::tempdir().unwrap();
        let vcd = write_vcd(dir.path(), schedule, b"abc");
        let (h, records) = golden(schedule, b"abc");
        let report = run(&h, &records, &vcd, &options());
        assert_eq!(report.verdict, Verdict::Identical, "{schedule}: {report}");
        assert_eq!(report.compared_cycles, records.len() as u64);
        assert_eq!(report.exit_status(), 0);
    }
}

/// Changes the value of `signal` written at time `time` in a VCD text.
fn corrupt(vcd: &Path, signal: &str, time: u64) -> u64 {
    let text = std::fs::read_to_string(vcd).unwrap();
    // The id code of the signal.
    let id = text
        .lines()
        .find(|l| l.starts_with("$var") && l.split_whitespace().nth(4) == Some(signal))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap()
        .to_string();
    let mut out = String::new();
    let mut now = 0u64;
    let mut changed = None;
    for line in text.lines() {
        if let Some(t) = line.strip_prefix('#') {
            now = t.parse().unwrap_or(now);
        }
        if now >= time
            && changed.is_none()
            && line.starts_with('b')
            && line.ends_with(&format!(" {id}"))
        {
            // Flip the last bit of the vector.
            let (bits, rest) = line.split_once(' ').unwrap();
            let mut b: Vec<char> = bits.chars().collect();
            let last = b.len() - 1;
            b[last] = if b[last] == '1' { '0' } else { '1' };
            out.push_str(&format!("{} {rest}\n", b.iter().collect::<String>()));
            changed = Some(now);
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    std::fs::write(vcd, out).unwrap();
    changed.expect("a change of the signal after that time")
}

#[test]
fn a_changed_value_is_reported_at_its_cycle_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = write_vcd(dir.path(), "ath-1r", b"abc");
    let (h, records) = golden("ath-1r", b"abc");
    let time = corrupt(&vcd, "slot0_state_2", 400);
    let report = run(&h, &records, &vcd, &options());
    assert_eq!(report.verdict, Verdict::Divergent, "{report}");
    let d = report.first_divergence.as_ref().unwrap();
    assert_eq!(d.cycle, time / 10, "{report}");
    assert_eq!(d.fields.len(), 1);
    assert_eq!(d.fields[0].field, "slot0_state_2");
    assert_eq!(d.location[0].stream, 0);
    let text = report.to_string();
    assert!(
        text.contains("golden") && text.contains("DIVERGENT"),
        "{text}"
    );
    assert!(text.lines().last().unwrap().starts_with("DIVERGENT"));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["verdict"], "divergent");
    assert_eq!(report.exit_status(), 1);
}

/// The context of a divergence: the `context` cycles before it (held in a ring that has
/// turned many times by then), the divergent one and those after, each divergent field's
/// golden value from the simulator's records and the RTL's from the file.
#[test]
fn a_divergence_shows_the_cycles_around_it() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = write_vcd(dir.path(), "ath-1r", b"abc");
    let (h, records) = golden("ath-1r", b"abc");
    let time = corrupt(&vcd, "slot0_state_2", 400);
    let index = signals(&h)
        .iter()
        .position(|s| s.name == "slot0_state_2")
        .unwrap();
    let golden_at = |cycle: u64| {
        let r = records.iter().find(|r| r.cycle == cycle).unwrap();
        format!("{:016x}", skein_frame(r).values[index])
    };
    for context in [0usize, 1, 3, 7] {
        let mut o = options();
        o.context = context;
        let report = run(&h, &records, &vcd, &o);
        let d = report.first_divergence.as_ref().expect("divergence");
        assert_eq!(d.cycle, time / 10);
        let cycles: Vec<u64> = d.context.iter().map(|r| r.cycle).collect();
        let want: Vec<u64> = (d.cycle - context as u64..=d.cycle + context as u64).collect();
        assert_eq!(cycles, want, "context {context}");
        for row in &d.context {
            let (field, golden, rtl) = &row.values[0];
            assert_eq!((row.values.len(), field.as_str()), (1, "slot0_state_2"));
            assert_eq!(*golden, golden_at(row.cycle), "cycle {}", row.cycle);
            if row.cycle < d.cycle {
                assert_eq!(rtl, golden, "cycle {} matched", row.cycle);
            }
            if row.cycle == d.cycle {
                assert_eq!(*rtl, d.fields[0].rtl);
                assert_ne!(rtl, golden);
            }
        }
    }
}

#[test]
fn x_never_equals_a_known_value() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = write_vcd(dir.path(), "ath-1r", b"");
    let (h, records) = golden("ath-1r", b"");
    let text = std::fs::read_to_string(&vcd).unwrap();
    let id = text
        .lines()
        .find(|l| l.starts_with("$var") && l.split_whitespace().nth(4) == Some("slot0_round"))
        .and_then(|l| l.split_whitespace().nth(3))
        .unwrap()
        .to_string();
    // At the end of time step 50 (cycle 5's rising edge) the round counter goes to x.
    let patched = text.replacen("#55\n", &format!("bxxxxxxxx {id}\n#55\n"), 1);
    std::fs::write(&vcd, patched).unwrap();
    let report = run(&h, &records, &vcd, &options());
    let d = report.first_divergence.expect("divergence");
    assert_eq!(d.cycle, 5);
    assert!(d.fields[0].unknown, "{:?}", d.fields);
}

#[test]
fn truncation_clock_and_empty_comparisons_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = write_vcd(dir.path(), "ath-1r", b"abc");
    let (h, records) = golden("ath-1r", b"abc");
    // The RTL run stops halfway: a length mismatch, not a pass.
    let text = std::fs::read_to_string(&vcd).unwrap();
    let cut = text.find("#1000\n").unwrap();
    std::fs::write(&vcd, &text[..cut]).unwrap();
    let report = run(&h, &records, &vcd, &options());
    assert_eq!(report.verdict, Verdict::LengthMismatch, "{report}");
    assert_ne!(report.exit_status(), 0);
    // No such clock.
    let mut o = options();
    o.wave.clock = "skeinhw.nope".into();
    let ok = records.iter().map(|r| Ok::<_, String>(skein_frame(r)));
    let e = compare_cycles(&signals(&h), ok, &vcd, &identity(&h), &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nope"), "{e}");
    // Every edge skipped: nothing compared.
    let mut o = options();
    o.reset_cycles = 1_000_000;
    let ok = records.iter().map(|r| Ok::<_, String>(skein_frame(r)));
    let e = compare_cycles(&signals(&h), ok, &vcd, &identity(&h), &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nothing compared"), "{e}");
}
