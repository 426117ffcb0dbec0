//! The one-lane run on the scalar cipher of [`crate::fast`].

use super::TWEAK_FIRST;

/// A [`Run`](super::Run) on one lane with the scalar cipher of [`crate::fast`] ([`crate::fast::compress_blocks`]
/// for the blocks before a Final one).
pub(crate) fn run_scalar<const N: usize>(
    chain: &mut [[u64; 1]; N],
    data: [&[u8]; 1],
    tweak: [[u64; 1]; 2],
    last: [u64; 1],
    steps: usize,
) {
    let nb = N * 8;
    assert!(steps > 0, "a run has at least one block");
    let data = &data[0][..steps * nb];
    let mut h: [u64; N] = core::array::from_fn(|i| chain[i][0]);
    let [t0, t1] = [tweak[0][0], tweak[1][0]];
    let bulk = if last[0] == 0 { steps } else { steps - 1 };
    if bulk > 0 {
        crate::fast::compress_blocks(&mut h, &data[..bulk * nb], [t0, t1]);
    }
    if bulk < steps {
        let t1 = if bulk > 0 { t1 & !TWEAK_FIRST } else { t1 };
        let t0 = t0.wrapping_add((bulk * nb) as u64);
        let m = crate::threefish::words_from_bytes::<N>(&data[bulk * nb..]);
        crate::fast::compress_words(&mut h, &m, [t0, t1 | last[0]]);
    }
    for (c, w) in chain.iter_mut().zip(h) {
        c[0] = w;
    }
}
