//! Compute-only speed of the tree leaves in lanes (in memory, this thread) against plain
//! Skein-512, in CPU time of this thread: `cargo run --release --example lanespeed`.
use skeinhw_skein::batch::{self, Backend, Request};
use skeinhw_skein::{Params, Skein512, TreeParams, par_tree};

/// Seconds this thread has been on a CPU (`/proc/thread-self/schedstat`): the machine is shared.
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    let ns: u64 = s.split_whitespace().next().unwrap().parse().unwrap();
    ns as f64 * 1e-9
}

fn main() {
    let mb: usize = std::env::args().nth(1).map_or(64, |a| a.parse().unwrap());
    let data: Vec<u8> = (0..mb << 20).map(|i| (i * 7 + i / 4096) as u8).collect();
    let params = Params {
        tree: Some(TreeParams::new(5, 2, 255).unwrap()),
        ..Params::default()
    };
    let best = |f: &dyn Fn()| {
        (0..5)
            .map(|_| {
                let t = cpu();
                f();
                cpu() - t
            })
            .fold(f64::MAX, f64::min)
    };
    let plain = best(&|| {
        let mut h = Skein512::new(512).unwrap();
        h.update(&data);
        std::hint::black_box(h.finalize());
    });
    println!(
        "plain: {:.1} ms ({:.0} MB/s)",
        plain * 1e3,
        mb as f64 * 1.048576 / plain
    );
    // Fan-out 2^2 (the benchmark's tree: the nodes are 4% more blocks than the leaves, in
    // runs of 4 blocks) and 2^10 (nodes negligible: about the leaves alone).
    for (name, tree) in [("5,2,255", (5, 2)), ("5,10,255", (5, 10))] {
        let params = Params {
            tree: Some(TreeParams::new(tree.0, tree.1, 255).unwrap()),
            ..params
        };
        for b in [Backend::Scalar, Backend::Avx2, Backend::Avx512] {
            if !b.is_available() {
                continue;
            }
            let request = Request {
                params,
                ..Request::new(512, 512, &data)
            };
            let t = best(&|| {
                std::hint::black_box(par_tree::hash_with(b, false, &request).unwrap());
            });
            println!(
                "tree {name} {b}: {:.1} ms, {:.2}x plain",
                t * 1e3,
                plain / t
            );
        }
    }
    let _ = batch::detected();
}
