//! Known answers from `vectors/shabal/` (see its README for the provenance of every value):
//! the digests through the library, the `digest` types and RustCrypto's `shabal`, and the
//! initial values derived from the prefix against the reference code's tables.

use rustcrypto_shabal::Digest as _;
use skeinhw_shabal::{Shabal, Shabal192, Shabal224, Shabal256, Shabal384, Shabal512, hash, perm};

fn vectors(name: &str) -> String {
    let path = format!("{}/../../vectors/shabal/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

struct Kat {
    line: usize,
    out_bits: u64,
    msg_bits: u64,
    message: Vec<u8>,
    digest: Vec<u8>,
    source: String,
}

fn kats() -> Vec<Kat> {
    vectors("kat.txt")
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 5, "line {}", i + 1);
            Kat {
                line: i + 1,
                out_bits: f[0].parse().unwrap(),
                msg_bits: f[1].parse().unwrap(),
                message: hex::decode(f[2]).unwrap(),
                digest: hex::decode(f[3]).unwrap(),
                source: f[4].to_string(),
            }
        })
        .collect()
}

/// RustCrypto's digest of a whole-byte message.
fn rustcrypto(out_bits: u64, m: &[u8]) -> Vec<u8> {
    match out_bits {
        192 => rustcrypto_shabal::Shabal192::digest(m).to_vec(),
        224 => rustcrypto_shabal::Shabal224::digest(m).to_vec(),
        256 => rustcrypto_shabal::Shabal256::digest(m).to_vec(),
        384 => rustcrypto_shabal::Shabal384::digest(m).to_vec(),
        _ => rustcrypto_shabal::Shabal512::digest(m).to_vec(),
    }
}

/// Our digest through the `digest` trait types.
fn ours_digest_trait(out_bits: u64, m: &[u8]) -> Vec<u8> {
    use skeinhw_shabal::Digest;
    match out_bits {
        192 => Shabal192::digest(m).to_vec(),
        224 => Shabal224::digest(m).to_vec(),
        256 => Shabal256::digest(m).to_vec(),
        384 => Shabal384::digest(m).to_vec(),
        _ => Shabal512::digest(m).to_vec(),
    }
}

#[test]
fn known_answers() {
    let kats = kats();
    assert_eq!(kats.len(), 59, "vectors in kat.txt");
    for size in [192, 224, 256, 384, 512] {
        assert!(
            kats.iter().any(|k| k.out_bits == size),
            "a vector for {size}"
        );
    }
    for k in &kats {
        let at = format!("kat.txt line {} ({})", k.line, k.source);
        let got = hash(k.out_bits, &k.message, k.msg_bits).unwrap();
        assert_eq!(hex::encode(&got), hex::encode(&k.digest), "{at}");
        assert_eq!(k.msg_bits % 8, 0, "{at}: whole bytes");
        let m = &k.message[..(k.msg_bits / 8) as usize];
        assert_eq!(rustcrypto(k.out_bits, m), k.digest, "RustCrypto, {at}");
        assert_eq!(
            ours_digest_trait(k.out_bits, m),
            k.digest,
            "digest types, {at}"
        );
        // Byte by byte, through the streaming API.
        let mut h = Shabal::new(k.out_bits).unwrap();
        for b in m {
            h.update(core::slice::from_ref(b));
        }
        assert_eq!(h.finalize(), k.digest, "byte by byte, {at}");
    }
}

#[test]
fn initial_values_match_the_reference_tables() {
    let mut seen = 0;
    for line in vectors("iv.txt").lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let out_bits: u64 = f[0].parse().unwrap();
        let words: Vec<u32> = f[2..]
            .iter()
            .map(|w| u32::from_str_radix(w, 16).unwrap())
            .collect();
        let iv = perm::initial_state(out_bits).unwrap();
        let ours: &[u32] = match f[1] {
            "A" => &iv.a,
            "B" => &iv.b,
            _ => &iv.c,
        };
        assert_eq!(ours, &words[..], "IV {out_bits} {}", f[1]);
        assert_eq!(iv.w, 1, "the first message block is number 1");
        seen += 1;
    }
    assert_eq!(seen, 15, "A, B and C for five sizes");
}
