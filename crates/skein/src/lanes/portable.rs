//! The plain-Rust lanes: any CPU, any lane count.

use super::{Lanes, run_lanes};

/// The plain-Rust lanes: `[u64; L]` arrays, on any CPU. Used for the 8-lane backend
/// [`crate::batch::Backend::Portable8`], which tests the 8-lane logic everywhere.
#[derive(Clone, Copy)]
pub(crate) struct Portable;

impl<const L: usize> Lanes<L> for Portable {
    type V = [u64; L];
    #[inline(always)]
    fn splat(self, w: u64) -> [u64; L] {
        [w; L]
    }
    #[inline(always)]
    fn load(self, w: [u64; L]) -> [u64; L] {
        w
    }
    #[inline(always)]
    fn store(self, v: [u64; L]) -> [u64; L] {
        v
    }
    #[inline(always)]
    fn add(self, mut a: [u64; L], b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            a[l] = a[l].wrapping_add(b[l]);
        }
        a
    }
    #[inline(always)]
    fn xor(self, mut a: [u64; L], b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            a[l] ^= b[l];
        }
        a
    }
    #[inline(always)]
    fn or(self, mut a: [u64; L], b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            a[l] |= b[l];
        }
        a
    }
    #[inline(always)]
    fn and(self, mut a: [u64; L], b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            a[l] &= b[l];
        }
        a
    }
    #[inline(always)]
    fn andnot(self, a: [u64; L], mut b: [u64; L]) -> [u64; L] {
        for l in 0..L {
            b[l] &= !a[l];
        }
        b
    }
    #[inline(always)]
    fn rotl(self, mut v: [u64; L], r: u32) -> [u64; L] {
        for w in &mut v {
            *w = w.rotate_left(r);
        }
        v
    }
}

/// The [`Run`] on eight portable lanes ([`Portable`]).
pub(crate) fn run_portable8<const N: usize>(
    chain: &mut [[u64; 8]; N],
    data: [&[u8]; 8],
    tweak: [[u64; 8]; 2],
    last: [u64; 8],
    steps: usize,
) {
    run_lanes::<Portable, 8, N>(Portable, chain, data, tweak, last, steps);
}
