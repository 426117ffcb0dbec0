//! The official vectors through the library: every entry of the golden KAT file (plain, MAC and
//! tree, bit-length messages), the NIST-format short-message files and the Threefish vectors.

use skeinhw_skein::kat::{parse_golden, parse_nist, parse_threefish};
use skeinhw_skein::{Params, Skein, hash, reference, threefish};

fn vectors(name: &str) -> String {
    let path = format!("{}/../../vectors/skein/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn golden_kat_all_entries() {
    let entries = parse_golden(&vectors("skein_golden_kat.txt"));
    assert_eq!(entries.len(), 491, "the golden file has 491 vectors");
    let (mut mac, mut tree) = (0, 0);
    for e in &entries {
        mac += usize::from(e.mac);
        tree += usize::from(e.tree.is_some());
        let params = Params {
            key: &e.key,
            tree: e.tree,
            ..Params::default()
        };
        let got = hash(e.state_bits, e.out_bits, &e.message, e.msg_bits, &params).unwrap();
        assert_eq!(got, e.result, "fast, entry at line {}", e.line);
        let reference = match e.state_bits {
            256 => reference::skein::<4>(e.out_bits, &e.message, e.msg_bits, &params),
            512 => reference::skein::<8>(e.out_bits, &e.message, e.msg_bits, &params),
            _ => reference::skein::<16>(e.out_bits, &e.message, e.msg_bits, &params),
        };
        assert_eq!(reference, e.result, "reference, entry at line {}", e.line);
    }
    assert_eq!(mac, 114, "MAC entries");
    assert_eq!(tree, 35, "tree entries");
}

#[test]
fn nist_short_message_files() {
    for (file, state_bits, out_bits) in [
        ("ShortMsgKAT_224.txt", 512, 224),
        ("ShortMsgKAT_256.txt", 512, 256),
        ("ShortMsgKAT_384.txt", 512, 384),
        ("ShortMsgKAT_512.txt", 512, 512),
        ("ShortMsgKAT_1024.txt", 1024, 1024),
    ] {
        let entries = parse_nist(&vectors(file));
        assert_eq!(entries.len(), 2048, "{file}");
        for e in entries {
            let got = hash(state_bits, out_bits, &e.msg, e.len, &Params::default()).unwrap();
            assert_eq!(got, e.md, "{file} Len = {}", e.len);
        }
    }
}

#[test]
fn threefish_vectors_encrypt_and_decrypt() {
    let entries = parse_threefish(&vectors("threefish_vectors_from_golden_kat_internals.txt"));
    assert_eq!(entries.len(), 6);
    fn check<const N: usize>(e: &skeinhw_skein::kat::ThreefishEntry) {
        let key: [u64; N] = e.key[..].try_into().unwrap();
        let input: [u64; N] = e.input[..].try_into().unwrap();
        let tweak = [e.tweak[0], e.tweak[1]];
        // The file's result is E(P) xor P.
        let expected: [u64; N] = core::array::from_fn(|i| e.result[i] ^ input[i]);
        assert_eq!(
            threefish::encrypt(&key, tweak, &input),
            expected,
            "{} spec",
            e.name
        );
        assert_eq!(
            skeinhw_skein::fast::encrypt(&key, tweak, &input),
            expected,
            "{} fast",
            e.name
        );
        assert_eq!(
            threefish::decrypt(&key, tweak, &expected),
            input,
            "{} decrypt",
            e.name
        );
    }
    for e in &entries {
        match e.state_bits {
            256 => check::<4>(e),
            512 => check::<8>(e),
            1024 => check::<16>(e),
            other => panic!("size {other}"),
        }
    }
}

#[test]
fn streaming_matches_one_shot_on_golden_entries() {
    // Byte-length entries fed one byte at a time.
    for e in parse_golden(&vectors("skein_golden_kat.txt"))
        .iter()
        .filter(|e| e.msg_bits % 8 == 0)
    {
        let params = Params {
            key: &e.key,
            tree: e.tree,
            ..Params::default()
        };
        fn run<const N: usize>(e: &skeinhw_skein::kat::GoldenEntry, p: &Params) -> Vec<u8> {
            let mut h = Skein::<N>::with_params(e.out_bits, p).unwrap();
            for b in &e.message {
                h.update(std::slice::from_ref(b));
            }
            h.finalize()
        }
        let got = match e.state_bits {
            256 => run::<4>(e, &params),
            512 => run::<8>(e, &params),
            _ => run::<16>(e, &params),
        };
        assert_eq!(got, e.result, "entry at line {}", e.line);
    }
}
