use std::time::Instant;
fn main() {
    let n = 2_000_000u64;
    let mut c = [1u64; 8];
    let b = [2u64; 8];
    let t0 = Instant::now();
    for i in 0..n { skeinhw_skein::fast::compress512(&mut c, &b, [i, 0]); }
    let dt = t0.elapsed().as_secs_f64();
    println!("dependent: {:.1} ns/block {:.0} MB/s {:?}", dt / n as f64 * 1e9, 64.0 * n as f64 / dt / 1e6, c[0]);
    let mut c2 = [3u64; 8];
    let t0 = Instant::now();
    for i in 0..n / 2 { skeinhw_skein::fast::compress512(&mut c, &b, [i, 0]); skeinhw_skein::fast::compress512(&mut c2, &b, [i, 0]); }
    let dt = t0.elapsed().as_secs_f64();
    println!("two chains: {:.1} ns/block {:?}", dt / n as f64 * 1e9, c2[0]);
}
