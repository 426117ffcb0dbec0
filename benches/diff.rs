//! The trace diff on a long simulation: a golden trace computed on the fly (the simulator in a
//! thread) against a VCD of the same run, streaming both. Reported as cycles per second (wall,
//! criterion) and, printed at the end, cycles per CPU-second of the whole process and of the
//! reading thread alone (the load of a shared machine does not inflate those). Issue 14's goal:
//! at least one million cycles per second. Run: `cargo bench -p skeinhw-benches --bench diff`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skeinhw_diff::{CycleOptions, Golden, OwnedJob, SignalMap, Verdict, compare_cycles};
use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, simulate};
use skeinhw_trace::{VcdWriter, names};

/// 1,000 blocks of ath-1r: 3,000 UBI blocks... about 73,000 cycles.
const MESSAGE_BYTES: usize = 64 * 1000;

/// CPU time (user + system, all threads) this process has used, in seconds: from
/// `/proc/self/stat`, whose times are in clock ticks of 1/100 s on Linux. `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    cpu_seconds_of("/proc/self/stat")
}

/// [`cpu_seconds`] of the calling thread alone (the one reading the VCD and comparing): what
/// bounds the wall time when each thread has a core of its own.
fn thread_cpu_seconds() -> Option<f64> {
    cpu_seconds_of("/proc/thread-self/stat")
}

fn cpu_seconds_of(file: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(file).ok()?;
    // The fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ').skip(11); // utime is field 14, the 12th after ')'
    let utime: f64 = fields.next()?.parse().ok()?;
    let stime: f64 = fields.next()?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Cycles and CPU seconds over every timed run, for the figure that the machine's load does
/// not inflate: cycles per CPU-second (both threads of the diff counted).
#[derive(Default)]
struct CpuCount {
    cycles: u64,
    seconds: f64,
}

impl CpuCount {
    fn add(&mut self, cycles: u64, before: Option<f64>, after: Option<f64>) {
        if let (Some(b), Some(a)) = (before, after) {
            self.cycles += cycles;
            self.seconds += a - b;
        }
    }

    fn report(&self, what: &str, whose: &str) {
        if self.seconds > 0.0 {
            eprintln!(
                "{what}: {} cycles in {:.2} CPU-seconds (user + sys, {whose}): {:.0}K cycles per CPU-second",
                self.cycles,
                self.seconds,
                self.cycles as f64 / self.seconds / 1e3
            );
        }
    }
}

fn diff(c: &mut Criterion) {
    let schedule = preset("ath-1r").unwrap();
    let message: Vec<u8> = (0..MESSAGE_BYTES).map(|i| i as u8).collect();
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("run.vcd");
    let report = {
        let mut w = VcdWriter::new(std::io::BufWriter::new(
            std::fs::File::create(&vcd).unwrap(),
        ));
        simulate(
            &schedule,
            &[Job::bytes(&message, 512, Default::default())],
            &mut w,
        )
        .unwrap()
    };
    let cycles = report.cycles;
    let bytes = std::fs::metadata(&vcd).unwrap().len();
    eprintln!(
        "diff bench: {cycles} cycles, VCD of {} MB",
        bytes / 1_000_000
    );
    let mut group = c.benchmark_group("diff");
    group.sample_size(10);
    group.throughput(Throughput::Elements(cycles));
    let mut cpu = CpuCount::default();
    let mut reader_cpu = CpuCount::default();
    group.bench_function("ath-1r cycles (golden on the fly vs VCD)", |b| {
        b.iter(|| {
            let before = cpu_seconds();
            let reader_before = thread_cpu_seconds();
            let job = OwnedJob {
                message: message.clone(),
                msg_bits: message.len() as u64 * 8,
                out_bits: 512,
                ..OwnedJob::default()
            };
            let golden = Golden::simulate(schedule.clone(), vec![job]).unwrap();
            let signals = names::signals(golden.header.words, golden.header.slots);
            let map =
                SignalMap::identity(signals.iter().map(|s| s.name.as_str()), Some(names::SCOPE));
            let mut options = CycleOptions::default();
            options.wave.clock = format!("{}.{}", names::SCOPE, names::CLK);
            let golden = golden.into_frames();
            let r = compare_cycles(&golden.signals, golden.frames, &vcd, &map, &options).unwrap();
            assert_eq!(r.verdict, Verdict::Identical);
            cpu.add(cycles, before, cpu_seconds());
            reader_cpu.add(cycles, reader_before, thread_cpu_seconds());
        })
    });
    group.finish();
    cpu.report("diff", "all threads");
    reader_cpu.report("diff", "the reading thread alone");
}

criterion_group!(benches, diff);
criterion_main!(benches);
