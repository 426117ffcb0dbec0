//! Properties on random inputs: equality with RustCrypto's `shabal` for every output size,
//! split invariance of streaming, bit-length messages against the padding rule written as a
//! bit string, and the step-by-step permutation API against itself (per-addition and per-word
//! final additions, iteration by iteration against the round).

use proptest::prelude::*;
use rustcrypto_shabal::Digest as _;
use skeinhw_shabal::constants::{ITERATIONS, OUTPUT_BITS};
use skeinhw_shabal::perm::{self, State};
use skeinhw_shabal::{Error, Shabal, hash};

fn rustcrypto(out_bits: u64, m: &[u8]) -> Vec<u8> {
    match out_bits {
        192 => rustcrypto_shabal::Shabal192::digest(m).to_vec(),
        224 => rustcrypto_shabal::Shabal224::digest(m).to_vec(),
        256 => rustcrypto_shabal::Shabal256::digest(m).to_vec(),
        384 => rustcrypto_shabal::Shabal384::digest(m).to_vec(),
        _ => rustcrypto_shabal::Shabal512::digest(m).to_vec(),
    }
}

fn size() -> impl Strategy<Value = u64> {
    prop::sample::select(OUTPUT_BITS.to_vec())
}

/// The padding as the specification states it, on a bit string: the message bits (most
/// significant bit of each byte first), a 1, zeros to a multiple of 512 bits; then the blocks
/// through the step API (message rounds, the last block finished with the final rounds).
fn spec_hash(out_bits: u64, message: &[u8], msg_bits: u64) -> Vec<u8> {
    let mut bits: Vec<bool> = (0..msg_bits)
        .map(|k| message[(k / 8) as usize] >> (7 - k % 8) & 1 == 1)
        .collect();
    bits.push(true);
    while !bits.len().is_multiple_of(512) {
        bits.push(false);
    }
    let bytes: Vec<u8> = bits
        .chunks(8)
        .map(|b| b.iter().fold(0u8, |acc, &x| acc << 1 | u8::from(x)))
        .collect();
    let mut s = *perm::initial_state(out_bits).unwrap();
    let blocks: Vec<&[u8]> = bytes.chunks(64).collect();
    for (k, block) in blocks.iter().enumerate() {
        perm::load_block(&mut s, (*block).try_into().unwrap());
        if k + 1 < blocks.len() {
            perm::message_round(&mut s);
        } else {
            perm::finish(&mut s);
        }
    }
    let mut out = vec![0; (out_bits / 8) as usize];
    perm::output(&s, &mut out);
    out
}

fn any_state() -> impl Strategy<Value = State> {
    (
        prop::array::uniform12(any::<u32>()),
        prop::array::uniform16(any::<u32>()),
        prop::array::uniform16(any::<u32>()),
        prop::array::uniform16(any::<u32>()),
        any::<u64>(),
    )
        .prop_map(|(a, b, c, m, w)| State { a, b, c, m, w })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn equals_rustcrypto(out_bits in size(), m in prop::collection::vec(any::<u8>(), 0..400)) {
        let ours = hash(out_bits, &m, m.len() as u64 * 8).unwrap();
        prop_assert_eq!(ours, rustcrypto(out_bits, &m));
    }

    #[test]
    fn equals_rustcrypto_every_size(m in prop::collection::vec(any::<u8>(), 0..200)) {
        use skeinhw_shabal::Digest;
        prop_assert_eq!(skeinhw_shabal::Shabal192::digest(&m).to_vec(), rustcrypto(192, &m));
        prop_assert_eq!(skeinhw_shabal::Shabal224::digest(&m).to_vec(), rustcrypto(224, &m));
        prop_assert_eq!(skeinhw_shabal::Shabal256::digest(&m).to_vec(), rustcrypto(256, &m));
        prop_assert_eq!(skeinhw_shabal::Shabal384::digest(&m).to_vec(), rustcrypto(384, &m));
        prop_assert_eq!(skeinhw_shabal::Shabal512::digest(&m).to_vec(), rustcrypto(512, &m));
    }

    #[test]
    fn split_invariance(
        out_bits in size(),
        m in prop::collection::vec(any::<u8>(), 0..600),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(m.len() + 1)).collect();
        cuts.sort_unstable();
        let mut h = Shabal::new(out_bits).unwrap();
        let mut from = 0;
        for c in cuts.into_iter().chain([m.len()]) {
            h.update(&m[from..c]);
            from = c;
        }
        prop_assert_eq!(h.finalize(), hash(out_bits, &m, m.len() as u64 * 8).unwrap());
    }

    #[test]
    fn bit_length_messages_follow_the_padding_rule(
        out_bits in size(),
        m in prop::collection::vec(any::<u8>(), 1..200),
        drop in 0u64..8,
    ) {
        let msg_bits = m.len() as u64 * 8 - drop;
        prop_assert_eq!(hash(out_bits, &m, msg_bits).unwrap(), spec_hash(out_bits, &m, msg_bits));
        // Streaming whole bytes first, then the partial byte, gives the same.
        let mut h = Shabal::new(out_bits).unwrap();
        let half = m.len() / 2;
        h.update(&m[..half]);
        h.update_bits(&m[half..], msg_bits - half as u64 * 8).unwrap();
        prop_assert_eq!(h.finalize(), spec_hash(out_bits, &m, msg_bits));
    }

    #[test]
    fn unused_bits_of_the_last_byte_do_not_matter(
        m in prop::collection::vec(any::<u8>(), 1..100),
        n in 1u64..8,
        noise in any::<u8>(),
    ) {
        let bits = (m.len() as u64 - 1) * 8 + n;
        let mut other = m.clone();
        *other.last_mut().unwrap() ^= noise >> n;
        prop_assert_eq!(hash(512, &m, bits).unwrap(), hash(512, &other, bits).unwrap());
    }

    #[test]
    fn final_additions_one_by_one_equal_per_word(s in any_state()) {
        let mut one = s;
        perm::final_additions(&mut one);
        let mut word = s;
        perm::final_additions_per_word(&mut word);
        prop_assert_eq!(one, word);
        // And one addition at a time, in the reference code's reverse order.
        let mut rev = s;
        for j in (0..36).rev() {
            perm::final_addition(&mut rev, j);
        }
        prop_assert_eq!(rev, word);
        // Only A changes.
        prop_assert_eq!((word.b, word.c, word.m, word.w), (s.b, s.c, s.m, s.w));
    }

    #[test]
    fn iterations_one_by_one_equal_permute(s in any_state()) {
        let mut step = s;
        perm::rotate_b(&mut step);
        for n in 0..ITERATIONS {
            perm::iteration(&mut step, n);
        }
        perm::final_additions(&mut step);
        let mut p = s;
        perm::permute(&mut p);
        prop_assert_eq!(step, p);
        // P keys on C and M and leaves them alone.
        prop_assert_eq!((p.c, p.m, p.w), (s.c, s.m, s.w));
    }

    #[test]
    fn iteration_is_combine_and_nl(s in any_state(), n in 0usize..48) {
        let ix = perm::indices(n);
        let mut t = s;
        perm::iteration(&mut t, n);
        let a = perm::u(s.a[ix.a] ^ perm::v(s.a[ix.a_prev].rotate_left(15)) ^ s.c[ix.c])
            ^ s.b[ix.b_o1] ^ (s.b[ix.b_o2] & !s.b[ix.b_o3]) ^ s.m[ix.m];
        prop_assert_eq!(t.a[ix.a], a);
        prop_assert_eq!(t.b[ix.b], !(s.b[ix.b].rotate_left(1) ^ a));
    }
}

#[test]
fn errors_name_the_problem() {
    assert_eq!(Shabal::new(160).unwrap_err(), Error::UnknownOutputSize(160));
    assert_eq!(
        hash(256, &[0xff], 9).unwrap_err(),
        Error::NotEnoughBits {
            bits: 9,
            available: 8
        }
    );
    let mut h = Shabal::new(256).unwrap();
    h.update_bits(&[0xff], 3).unwrap();
    assert_eq!(
        h.try_update(b"x").unwrap_err(),
        Error::UpdateAfterPartialByte
    );
    let mut out = [0u8; 31];
    assert!(matches!(
        h.finalize_into(&mut out),
        Err(Error::OutputBufferLength { expected: 32, .. })
    ));
}

#[test]
fn reset_and_finalize_reset_start_over() {
    use skeinhw_shabal::digest::{FixedOutputReset, Reset};
    let mut h = skeinhw_shabal::Shabal384::default();
    h.update(b"first");
    let first = h.finalize_fixed_reset();
    h.update(b"first");
    assert_eq!(h.finalize_fixed_reset(), first);
    h.update(b"junk");
    Reset::reset(&mut h);
    h.update(b"first");
    assert_eq!(h.finalize_fixed_reset(), first);
}

#[test]
fn block_boundaries() {
    // Lengths around one and two blocks, where the padding block is or is not a block of its own.
    for len in [0usize, 1, 55, 63, 64, 65, 127, 128, 129, 1000] {
        let m: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
        for out_bits in OUTPUT_BITS {
            assert_eq!(
                hash(out_bits, &m, len as u64 * 8).unwrap(),
                rustcrypto(out_bits, &m),
                "len {len}, Shabal-{out_bits}"
            );
            assert_eq!(
                hash(out_bits, &m, len as u64 * 8).unwrap(),
                spec_hash(out_bits, &m, len as u64 * 8)
            );
        }
    }
}
