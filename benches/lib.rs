//! Criterion benchmarks live beside this file; see `cargo bench -p skeinhw-benches`. What they
//! share: CPU-time counting for the figures a shared machine's load does not inflate.

/// CPU time (user + system, all threads) this process has used, in seconds: from
/// `/proc/self/stat`, whose times are in clock ticks of 1/100 s on Linux. `None` elsewhere.
pub fn cpu_seconds() -> Option<f64> {
    cpu_seconds_of("/proc/self/stat")
}

/// [`cpu_seconds`] of the calling thread alone (in the diff bench, the one reading the VCD): what
/// bounds the wall time when each thread has a core of its own.
pub fn thread_cpu_seconds() -> Option<f64> {
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
/// not inflate: cycles per CPU-second.
#[derive(Default)]
pub struct CpuCount {
    cycles: u64,
    seconds: f64,
}

impl CpuCount {
    pub fn add(&mut self, cycles: u64, before: Option<f64>, after: Option<f64>) {
        if let (Some(b), Some(a)) = (before, after) {
            self.cycles += cycles;
            self.seconds += a - b;
        }
    }

    pub fn report(&self, what: &str, whose: &str) {
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
