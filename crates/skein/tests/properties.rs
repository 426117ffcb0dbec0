//! Property tests: the fast streaming code against the spec-shaped reference, against
//! RustCrypto's independent `skein` crate, and against itself under any split of the input.

use proptest::prelude::*;
use skeinhw_skein::{Params, Skein, TreeParams, fast, reference, threefish};

/// Optional arguments, each present or not, with small tree parameters so that trees have
/// several levels and the maximum-height rule is reached.
#[derive(Clone, Debug)]
struct Extras {
    key: Vec<u8>,
    personalization: Option<Vec<u8>>,
    public_key: Option<Vec<u8>>,
    key_id: Option<Vec<u8>>,
    nonce: Option<Vec<u8>>,
    tree: Option<TreeParams>,
}

impl Extras {
    fn params(&self) -> Params<'_> {
        Params {
            key: &self.key,
            personalization: self.personalization.as_deref(),
            public_key: self.public_key.as_deref(),
            key_id: self.key_id.as_deref(),
            nonce: self.nonce.as_deref(),
            tree: self.tree,
        }
    }
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

fn extras() -> impl Strategy<Value = Extras> {
    let tree = prop_oneof![
        Just(None),
        (1u8..3, 1u8..3, prop_oneof![2u8..5, Just(255u8)])
            .prop_map(|(l, f, m)| Some(TreeParams::new(l, f, m).unwrap())),
    ];
    (
        bytes(140),
        prop::option::of(bytes(70)),
        prop::option::of(bytes(70)),
        prop::option::of(bytes(70)),
        prop::option::of(bytes(70)),
        tree,
    )
        .prop_map(
            |(key, personalization, public_key, key_id, nonce, tree)| Extras {
                key,
                personalization,
                public_key,
                key_id,
                nonce,
                tree,
            },
        )
}

/// A message with a bit length that may end inside its last byte.
fn message() -> impl Strategy<Value = (Vec<u8>, u64)> {
    bytes(1500).prop_flat_map(|m| {
        let bits = m.len() as u64 * 8;
        (Just(m), 0..=bits)
    })
}

fn fast_hash<const N: usize>(out_bits: u64, m: &[u8], bits: u64, p: &Params) -> Vec<u8> {
    let mut h = Skein::<N>::with_params(out_bits, p).unwrap();
    h.update_bits(m, bits).unwrap();
    h.finalize()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn fast_equals_reference(size in 0usize..3, out_bits in 1u64..1100, (m, bits) in message(), e in extras()) {
        let p = e.params();
        let (fast, slow) = match size {
            0 => (fast_hash::<4>(out_bits, &m, bits, &p), reference::skein::<4>(out_bits, &m, bits, &p)),
            1 => (fast_hash::<8>(out_bits, &m, bits, &p), reference::skein::<8>(out_bits, &m, bits, &p)),
            _ => (fast_hash::<16>(out_bits, &m, bits, &p), reference::skein::<16>(out_bits, &m, bits, &p)),
        };
        prop_assert_eq!(fast, slow);
    }

    #[test]
    fn any_split_gives_the_same_digest(m in bytes(3000), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6), e in extras()) {
        let p = e.params();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(m.len() + 1)).collect();
        cuts.sort();
        let mut h = Skein::<8>::with_params(512, &p).unwrap();
        let mut last = 0;
        for c in cuts {
            h.update(&m[last..c]);
            last = c;
        }
        h.update(&m[last..]);
        let mut one = Skein::<8>::with_params(512, &p).unwrap();
        one.update(&m);
        prop_assert_eq!(h.finalize(), one.finalize());
    }

    #[test]
    fn threefish_decrypt_inverts_encrypt(k in any::<[u64; 16]>(), t in any::<[u64; 2]>(), x in any::<[u64; 16]>()) {
        fn check<const N: usize>(k: &[u64], t: [u64; 2], x: &[u64]) -> Result<(), TestCaseError> {
            let k: [u64; N] = k[..N].try_into().unwrap();
            let x: [u64; N] = x[..N].try_into().unwrap();
            let c = threefish::encrypt(&k, t, &x);
            prop_assert_eq!(fast::encrypt(&k, t, &x), c);
            prop_assert_eq!(threefish::decrypt(&k, t, &c), x);
            Ok(())
        }
        check::<4>(&k, t, &x)?;
        check::<8>(&k, t, &x)?;
        check::<16>(&k, t, &x)?;
    }

    #[test]
    fn equals_rustcrypto_skein(m in bytes(2000)) {
        use rustcrypto_skein::Digest;
        prop_assert_eq!(fast_hash::<4>(256, &m, m.len() as u64 * 8, &Params::default()),
            rustcrypto_skein::Skein256_256::digest(&m).to_vec());
        prop_assert_eq!(fast_hash::<8>(512, &m, m.len() as u64 * 8, &Params::default()),
            rustcrypto_skein::Skein512_512::digest(&m).to_vec());
        prop_assert_eq!(fast_hash::<8>(256, &m, m.len() as u64 * 8, &Params::default()),
            rustcrypto_skein::Skein512_256::digest(&m).to_vec());
        prop_assert_eq!(fast_hash::<16>(1024, &m, m.len() as u64 * 8, &Params::default()),
            rustcrypto_skein::Skein1024_1024::digest(&m).to_vec());
        // Our digest-trait types give the same as theirs.
        prop_assert_eq!(skeinhw_skein::rustcrypto::Skein512_512::digest(&m).to_vec(),
            rustcrypto_skein::Skein512_512::digest(&m).to_vec());
        prop_assert_eq!(skeinhw_skein::rustcrypto::Skein1024_512::digest(&m).to_vec(),
            rustcrypto_skein::Skein1024_512::digest(&m).to_vec());
    }
}

#[test]
fn errors_name_the_problem() {
    assert!(Skein::<8>::new(0).is_err());
    assert!(TreeParams::new(0, 1, 2).is_err());
    assert!(TreeParams::new(1, 0, 2).is_err());
    assert!(TreeParams::new(1, 1, 1).is_err());
    let mut h = Skein::<8>::new(512).unwrap();
    assert!(h.update_bits(&[0xff], 9).is_err());
    h.update_bits(&[0xff], 3).unwrap();
    assert_eq!(
        h.try_update(b"more").unwrap_err().to_string(),
        "a message that ends in a partial byte cannot be extended"
    );
    assert_eq!(
        skeinhw_skein::hash(384, 8, b"", 0, &Params::default())
            .unwrap_err()
            .to_string(),
        "state size 384 is not a Skein size; allowed: 256, 512, 1024"
    );
}

#[test]
fn reset_and_finalize_reset_start_over() {
    use skeinhw_skein::rustcrypto::{Digest, FixedOutputReset, Skein256_256};
    let mut h = Skein256_256::new();
    Digest::update(&mut h, b"abc");
    let first = h.finalize_fixed_reset();
    Digest::update(&mut h, b"abc");
    assert_eq!(h.finalize(), first);
}
