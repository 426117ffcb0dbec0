//! Peak memory of the streaming tree: hashing a long generated stream through
//! `stream_tree::hash_reader` must not grow the process's peak resident size (VmHWM, the
//! kernel's ru_maxrss) by more than the read-ahead buffers and some slack, whatever the
//! length. 16 MiB by default (more than the bound: reading the input whole fails; a debug
//! build hashes slowly); 4 GiB with `SKEINHW_SLOW=1`. Alone in its test binary so that
//! no other test's memory counts. Linux only (reads /proc/self/status).

use skeinhw_skein::batch;
use skeinhw_skein::stream_tree::{READ_AHEAD, TreeHasher, hash_reader};
use skeinhw_skein::{Params, TreeParams};

/// Peak resident size in KiB.
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// `left` bytes of a cheap pattern, in reads of whatever size is asked.
struct Generator {
    left: u64,
    at: u64,
}

impl std::io::Read for Generator {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.left as usize);
        for (i, b) in buf[..n].iter_mut().enumerate() {
            *b = (((self.at + i as u64) * 31) >> 3) as u8;
        }
        self.at += n as u64;
        self.left -= n as u64;
        Ok(n)
    }
}

#[cfg(target_os = "linux")]
#[test]
fn streaming_tree_peak_memory_is_bounded() {
    let len: u64 = if std::env::var_os("SKEINHW_SLOW").is_some_and(|v| v == "1") {
        4 << 30
    } else {
        16 << 20
    };
    let params = Params {
        tree: Some(TreeParams::new(5, 2, 255).unwrap()),
        ..Params::default()
    };
    let before = peak_kib();
    let t = TreeHasher::new(batch::detected(), true, 512, 512, &params).unwrap();
    let (digest, n) = hash_reader(t, Generator { left: len, at: 0 }).unwrap();
    assert_eq!(n, len);
    assert_eq!(digest.len(), 64);
    let growth = peak_kib().saturating_sub(before);
    // Three read-ahead buffers (6 MiB), the values of one stretch, thread stacks.
    let bound = (3 * READ_AHEAD as u64) / 1024 + 6 * 1024;
    assert!(bound < len / 1024, "the bound is below the input's size");
    println!("{len} bytes: peak grew by {growth} KiB (bound {bound} KiB)");
    assert!(growth < bound, "peak grew by {growth} KiB for {len} bytes");
}
