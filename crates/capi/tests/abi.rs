//! The C ABI called from Rust: the official vectors through it, the round level against the
//! official Threefish vectors, and bad input across the boundary (an error status and a
//! message, never a crash).

use std::ffi::{CStr, c_char};
use std::ptr::{null, null_mut};

use skeinhw::golden::*;
use skeinhw::hash::*;
use skeinhw::round::*;
use skeinhw::shabal::*;
use skeinhw::*;
use skeinhw_skein::kat::{parse_golden, parse_threefish};

fn vectors(name: &str) -> String {
    let path = format!("{}/../../vectors/skein/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn message(p: *const c_char) -> String {
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn last_error() -> String {
    message(skeinhw_last_error())
}

fn no_params() -> skeinhw_params {
    skeinhw_params {
        key: null(),
        key_len: 0,
        pers: null(),
        pers_len: 0,
        public_key: null(),
        public_key_len: 0,
        key_id: null(),
        key_id_len: 0,
        nonce: null(),
        nonce_len: 0,
        tree_leaf: 0,
        tree_fanout: 0,
        tree_max_height: 0,
    }
}

#[test]
fn golden_kat_through_the_one_shot_call() {
    let entries = parse_golden(&vectors("skein_golden_kat.txt"));
    assert!(entries.len() > 400, "the golden KAT file has its entries");
    for e in &entries {
        let mut p = no_params();
        p.key = e.key.as_ptr();
        p.key_len = e.key.len();
        if let Some(t) = e.tree {
            (p.tree_leaf, p.tree_fanout, p.tree_max_height) = (t.leaf, t.fan_out, t.max_height);
        }
        let mut out = vec![0u8; e.result.len()];
        let status = unsafe {
            skeinhw_skein_hash(
                e.state_bits as u32,
                e.out_bits,
                e.message.as_ptr(),
                e.msg_bits,
                &p,
                out.as_mut_ptr(),
                out.len(),
            )
        };
        assert_eq!(status, SKEINHW_OK, "line {}: {}", e.line, last_error());
        assert_eq!(out, e.result, "golden KAT line {}", e.line);
    }
}

#[test]
fn streaming_matches_rustcrypto() {
    use rustcrypto_skein::Digest;
    let msg: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
    let expected = rustcrypto_skein::Skein512_512::digest(&msg);
    let mut h = null_mut();
    assert_eq!(
        unsafe { skeinhw_skein_new(512, 512, null(), &mut h) },
        SKEINHW_OK
    );
    // Pieces of every size, then whole 64-bit words, as a DPI-C caller gives them.
    let (head, tail) = msg.split_at(999 - 7 * 8);
    for piece in head.chunks(37) {
        assert_eq!(
            unsafe { skeinhw_skein_update(h, piece.as_ptr(), piece.len()) },
            SKEINHW_OK
        );
    }
    let (words, last) = tail.split_at(56);
    for w in words.chunks(8) {
        let word = u64::from_le_bytes(w.try_into().unwrap());
        assert_eq!(unsafe { skeinhw_skein_update_u64(h, word, 64) }, SKEINHW_OK);
    }
    assert_eq!(
        unsafe { skeinhw_skein_update_u64(h, u64::from(last[0]), 8) },
        SKEINHW_OK
    );
    assert_eq!(unsafe { skeinhw_skein_final(h, null_mut(), 0) }, SKEINHW_OK);
    for i in 0..8u32 {
        let mut w = 0;
        assert_eq!(
            unsafe { skeinhw_skein_digest_u64(h, i, &mut w) },
            SKEINHW_OK
        );
        let want = u64::from_le_bytes(expected[8 * i as usize..][..8].try_into().unwrap());
        assert_eq!(w, want, "digest word {i}");
    }
    // The handle starts over with the same parameters.
    let mut out = [0u8; 64];
    assert_eq!(
        unsafe { skeinhw_skein_update(h, msg.as_ptr(), msg.len()) },
        SKEINHW_OK
    );
    assert_eq!(
        unsafe { skeinhw_skein_final(h, out.as_mut_ptr(), out.len()) },
        SKEINHW_OK
    );
    assert_eq!(out[..], expected[..]);
    unsafe { skeinhw_skein_free(h) };
}

#[test]
fn threefish_blocks_and_rounds_against_the_official_vectors() {
    let entries = parse_threefish(&vectors("threefish_vectors_from_golden_kat_internals.txt"));
    assert_eq!(entries.len(), 6);
    for e in &entries {
        let n = e.key.len();
        let rounds = if n == 16 { 80 } else { 72 };
        // Round by round through the handle, as a scoreboard drives it.
        let mut h = null_mut();
        assert_eq!(
            unsafe { skeinhw_threefish_new(e.state_bits as u32, &mut h) },
            SKEINHW_OK
        );
        unsafe {
            assert_eq!(
                skeinhw_threefish_set_key_tweak(h, e.key.as_ptr(), n, e.tweak[0], e.tweak[1]),
                SKEINHW_OK
            );
            assert_eq!(
                skeinhw_threefish_set_state(h, e.input.as_ptr(), n),
                SKEINHW_OK
            );
            for d in 0..rounds {
                if d % 4 == 0 {
                    assert_eq!(skeinhw_threefish_inject_subkey(h, d / 4), SKEINHW_OK);
                }
                assert_eq!(skeinhw_threefish_round(h, d), SKEINHW_OK);
            }
            assert_eq!(skeinhw_threefish_inject_subkey(h, rounds / 4), SKEINHW_OK);
        }
        let mut state = vec![0u64; n];
        assert_eq!(
            unsafe { skeinhw_threefish_get_state(h, state.as_mut_ptr(), n) },
            SKEINHW_OK
        );
        let fed: Vec<u64> = state.iter().zip(&e.input).map(|(c, p)| c ^ p).collect();
        assert_eq!(fed, e.result, "{} round by round", e.name);
        unsafe { skeinhw_threefish_free(h) };

        // The block call, and its inverse.
        let to_bytes = |w: &[u64]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let key = to_bytes(&e.key);
        let tweak = to_bytes(&e.tweak);
        let mut block = to_bytes(&e.input);
        let bits = e.state_bits as u32;
        unsafe {
            assert_eq!(
                skeinhw_threefish_encrypt(
                    bits,
                    key.as_ptr(),
                    key.len(),
                    tweak.as_ptr(),
                    16,
                    block.as_mut_ptr(),
                    block.len()
                ),
                SKEINHW_OK
            );
        }
        assert_eq!(block, to_bytes(&state), "{} block encrypt", e.name);
        unsafe {
            assert_eq!(
                skeinhw_threefish_decrypt(
                    bits,
                    key.as_ptr(),
                    key.len(),
                    tweak.as_ptr(),
                    16,
                    block.as_mut_ptr(),
                    block.len()
                ),
                SKEINHW_OK
            );
        }
        assert_eq!(block, to_bytes(&e.input), "{} decrypt", e.name);
    }
}

#[test]
fn shabal_against_rustcrypto() {
    use rustcrypto_shabal::Digest;
    let msg = b"The quick brown fox jumps over the lazy dog";
    let expected = rustcrypto_shabal::Shabal256::digest(msg);
    let mut out = [0u8; 32];
    let status = unsafe {
        skeinhw_shabal_hash(
            256,
            msg.as_ptr(),
            8 * msg.len() as u64,
            out.as_mut_ptr(),
            32,
        )
    };
    assert_eq!(status, SKEINHW_OK, "{}", last_error());
    assert_eq!(out[..], expected[..]);
    let mut h = null_mut();
    unsafe {
        assert_eq!(skeinhw_shabal_new(256, &mut h), SKEINHW_OK);
        assert_eq!(skeinhw_shabal_update(h, msg.as_ptr(), 10), SKEINHW_OK);
        assert_eq!(
            skeinhw_shabal_update_bits(
                h,
                msg[10..].as_ptr(),
                msg.len() - 10,
                8 * (msg.len() as u64 - 10)
            ),
            SKEINHW_OK
        );
        out.fill(0);
        assert_eq!(skeinhw_shabal_final(h, out.as_mut_ptr(), 32), SKEINHW_OK);
        skeinhw_shabal_free(h);
    }
    assert_eq!(out[..], expected[..]);
}

/// Each bad call: its status, and a message that says what was wrong.
fn bad(status: i32, want: i32, words: &str) {
    assert_eq!(status, want, "status (message: {})", last_error());
    let m = last_error();
    assert!(m.contains(words), "message {m:?} should mention {words:?}");
}

#[test]
fn bad_input_is_an_error_status_with_a_message() {
    let mut out = [0u8; 64];
    let o = out.as_mut_ptr();
    unsafe {
        bad(
            skeinhw_skein_hash(512, 512, null(), 8, null(), o, 64),
            SKEINHW_ERR_NULL,
            "msg",
        );
        bad(
            skeinhw_skein_hash(512, 512, null(), 0, null(), null_mut(), 64),
            SKEINHW_ERR_NULL,
            "out",
        );
        bad(
            skeinhw_skein_hash(384, 512, null(), 0, null(), o, 64),
            SKEINHW_ERR_ARGUMENT,
            "384",
        );
        bad(
            skeinhw_skein_hash(512, 0, null(), 0, null(), o, 64),
            SKEINHW_ERR_ARGUMENT,
            "output",
        );
        bad(
            skeinhw_skein_hash(512, 1024, null(), 0, null(), o, 64),
            SKEINHW_ERR_BUFFER,
            "out_len",
        );
        bad(
            skeinhw_skein_hash(512, u64::MAX, null(), 0, null(), o, 64),
            SKEINHW_ERR_BUFFER,
            "out_len",
        );
        let mut p = no_params();
        p.tree_leaf = 1;
        bad(
            skeinhw_skein_hash(512, 512, null(), 0, &p, o, 64),
            SKEINHW_ERR_ARGUMENT,
            "tree",
        );
        let mut p = no_params();
        p.nonce_len = 5;
        bad(
            skeinhw_skein_hash(512, 512, null(), 0, &p, o, 64),
            SKEINHW_ERR_NULL,
            "params.nonce",
        );
        // Present but empty is not absent: a different hash.
        let mut a = [0u8; 64];
        let mut b = [0u8; 64];
        let empty = [0u8; 0];
        let mut p = no_params();
        assert_eq!(
            skeinhw_skein_hash(512, 512, null(), 0, &p, a.as_mut_ptr(), 64),
            SKEINHW_OK
        );
        p.pers = empty.as_ptr();
        assert_eq!(
            skeinhw_skein_hash(512, 512, null(), 0, &p, b.as_mut_ptr(), 64),
            SKEINHW_OK
        );
        assert_ne!(a, b);

        // Streaming: NULL handles, lengths beyond buffers, order.
        bad(
            skeinhw_skein_update(null_mut(), null(), 0),
            SKEINHW_ERR_NULL,
            "handle",
        );
        assert_eq!(message(skeinhw_skein_error(null_mut())), "handle is NULL");
        bad(
            skeinhw_skein_new(512, 512, null(), null_mut()),
            SKEINHW_ERR_NULL,
            "out",
        );
        let mut h = null_mut();
        assert_eq!(skeinhw_skein_new(512, 512, null(), &mut h), SKEINHW_OK);
        let data = [1u8; 4];
        bad(
            skeinhw_skein_update_bits(h, data.as_ptr(), 4, 33),
            SKEINHW_ERR_ARGUMENT,
            "33",
        );
        assert!(message(skeinhw_skein_error(h)).contains("33"));
        bad(
            skeinhw_skein_update_u64(h, 0, 65),
            SKEINHW_ERR_ARGUMENT,
            "65",
        );
        bad(
            skeinhw_skein_digest_u64(h, 0, &mut 0),
            SKEINHW_ERR_STATE,
            "final",
        );
        assert_eq!(
            skeinhw_skein_update_bits(h, data.as_ptr(), 4, 3),
            SKEINHW_OK
        );
        bad(
            skeinhw_skein_update(h, data.as_ptr(), 4),
            SKEINHW_ERR_STATE,
            "partial",
        );
        bad(skeinhw_skein_final(h, o, 10), SKEINHW_ERR_BUFFER, "out_len");
        assert_eq!(skeinhw_skein_final(h, null_mut(), 0), SKEINHW_OK);
        bad(
            skeinhw_skein_digest_u64(h, 8, &mut 0),
            SKEINHW_ERR_ARGUMENT,
            "word 8",
        );
        skeinhw_skein_free(h);
        skeinhw_skein_free(null_mut());
        let mut h = null_mut();
        assert_eq!(skeinhw_skein_new(512, u64::MAX, null(), &mut h), SKEINHW_OK);
        bad(
            skeinhw_skein_final(h, null_mut(), 0),
            SKEINHW_ERR_BUFFER,
            "give a buffer",
        );
        skeinhw_skein_free(h);

        // Threefish.
        let key = [0u8; 64];
        bad(
            skeinhw_threefish_encrypt(512, key.as_ptr(), 32, key.as_ptr(), 16, o, 64),
            SKEINHW_ERR_BUFFER,
            "key_len",
        );
        bad(
            skeinhw_threefish_encrypt(512, key.as_ptr(), 64, null(), 16, o, 64),
            SKEINHW_ERR_NULL,
            "tweak",
        );
        bad(
            skeinhw_threefish_new(128, &mut null_mut()),
            SKEINHW_ERR_ARGUMENT,
            "128",
        );
        let mut t = null_mut();
        assert_eq!(skeinhw_threefish_new(256, &mut t), SKEINHW_OK);
        bad(
            skeinhw_threefish_round(t, 72),
            SKEINHW_ERR_ARGUMENT,
            "round 72",
        );
        bad(
            skeinhw_threefish_inject_subkey(t, 19),
            SKEINHW_ERR_ARGUMENT,
            "subkey 19",
        );
        bad(
            skeinhw_threefish_set_state_word(t, 4, 0),
            SKEINHW_ERR_ARGUMENT,
            "state word 4",
        );
        let w = [0u64; 8];
        bad(
            skeinhw_threefish_set_key_tweak(t, w.as_ptr(), 8, 0, 0),
            SKEINHW_ERR_BUFFER,
            "key_words",
        );
        bad(
            skeinhw_threefish_set_key_tweak(t, null(), 4, 0, 0),
            SKEINHW_ERR_NULL,
            "key",
        );
        bad(
            skeinhw_threefish_get_state_word(t, 0, null_mut()),
            SKEINHW_ERR_NULL,
            "word",
        );
        skeinhw_threefish_free(t);

        // Shabal.
        bad(
            skeinhw_shabal_hash(100, null(), 0, o, 64),
            SKEINHW_ERR_ARGUMENT,
            "100",
        );
        bad(
            skeinhw_shabal_hash(512, null(), 0, o, 10),
            SKEINHW_ERR_BUFFER,
            "out_len",
        );

        // The golden model.
        let mut g = null_mut();
        bad(
            skeinhw_golden_new(c"no-such-preset".as_ptr(), &mut g),
            SKEINHW_ERR_SCHEDULE,
            "no-such-preset",
        );
        bad(
            skeinhw_golden_new(c"{\"size\": 512,".as_ptr(), &mut g),
            SKEINHW_ERR_SCHEDULE,
            "",
        );
        bad(
            skeinhw_golden_new(
                c"{\"name\":\"x\",\"size\":512,\"bogus_field\":1}".as_ptr(),
                &mut g,
            ),
            SKEINHW_ERR_SCHEDULE,
            "bogus_field",
        );
        bad(
            skeinhw_golden_new(null(), &mut g),
            SKEINHW_ERR_NULL,
            "schedule",
        );
        assert_eq!(skeinhw_golden_new(c"ath-1r".as_ptr(), &mut g), SKEINHW_OK);
        bad(skeinhw_golden_step(g), SKEINHW_ERR_STATE, "no message");
        bad(
            skeinhw_golden_field_u64(g, c"phase".as_ptr(), 0, &mut 0),
            SKEINHW_ERR_STATE,
            "step",
        );
        bad(
            skeinhw_golden_add_message_hex(g, c"abc".as_ptr(), 0),
            SKEINHW_ERR_ARGUMENT,
            "hex",
        );
        bad(
            skeinhw_golden_add_message(g, null(), 9, 0, null()),
            SKEINHW_ERR_NULL,
            "msg",
        );
        assert_eq!(
            skeinhw_golden_add_message_hex(g, c"616263".as_ptr(), 0),
            SKEINHW_OK
        );
        assert_eq!(skeinhw_golden_step(g), SKEINHW_OK);
        bad(
            skeinhw_golden_add_message_hex(g, c"00".as_ptr(), 0),
            SKEINHW_ERR_STATE,
            "started",
        );
        bad(
            skeinhw_golden_field_u64(g, c"slot9_state_0".as_ptr(), 0, &mut 0),
            SKEINHW_ERR_FIELD,
            "slot9_state_0",
        );
        bad(
            skeinhw_golden_field_u64(g, c"slot0_state_0".as_ptr(), 1, &mut 0),
            SKEINHW_ERR_ARGUMENT,
            "no word 1",
        );
        let mut words = [0u64; 4];
        let mut n = 0usize;
        bad(
            skeinhw_golden_field(g, c"slot0_state".as_ptr(), words.as_mut_ptr(), 4, &mut n),
            SKEINHW_ERR_BUFFER,
            "max_words",
        );
        assert_eq!(n, 8);
        bad(
            skeinhw_golden_field(g, c"slot0_state".as_ptr(), null_mut(), 8, &mut n),
            SKEINHW_ERR_NULL,
            "words",
        );
        bad(
            skeinhw_golden_digest(g, 0, o, 64),
            SKEINHW_ERR_STATE,
            "not complete",
        );
        bad(
            skeinhw_golden_digest(g, 1, o, 64),
            SKEINHW_ERR_ARGUMENT,
            "stream 1",
        );
        assert!(message(skeinhw_golden_error(g)).contains("stream 1"));
        skeinhw_golden_free(g);
        // An invalid message is reported at the first step.
        let mut g = null_mut();
        assert_eq!(skeinhw_golden_new(c"ath-1r".as_ptr(), &mut g), SKEINHW_OK);
        let mut p = no_params();
        p.tree_max_height = 1;
        p.tree_leaf = 1;
        p.tree_fanout = 1;
        bad(
            skeinhw_golden_add_message(g, null(), 0, 0, &p),
            SKEINHW_ERR_ARGUMENT,
            "tree",
        );
        skeinhw_golden_free(g);
        bad(
            skeinhw_golden_new(c"shabal-unfold-1".as_ptr(), &mut g),
            SKEINHW_ERR_SCHEDULE,
            "Shabal",
        );
    }
}

#[test]
fn the_golden_model_runs_to_the_end_and_gives_the_digest() {
    let msg = b"abc";
    let mut want = [0u8; 64];
    unsafe {
        assert_eq!(
            skeinhw_skein_hash(512, 512, msg.as_ptr(), 24, null(), want.as_mut_ptr(), 64),
            SKEINHW_OK
        );
        let mut g = null_mut();
        assert_eq!(skeinhw_golden_new(c"ath-1r".as_ptr(), &mut g), SKEINHW_OK);
        assert_eq!(
            skeinhw_golden_add_message(g, msg.as_ptr(), 24, 0, null()),
            SKEINHW_OK
        );
        let mut digest_events = 0;
        let mut last = 0;
        let mut steps = 0u64;
        loop {
            let s = skeinhw_golden_step(g);
            if s == SKEINHW_END {
                break;
            }
            assert_eq!(s, SKEINHW_OK);
            steps += 1;
            let mut cycle = 0;
            assert_eq!(skeinhw_golden_cycle(g, &mut cycle), SKEINHW_OK);
            assert_eq!(cycle, steps);
            let mut ev = 0;
            assert_eq!(skeinhw_golden_events(g, &mut ev), SKEINHW_OK);
            if ev & SKEINHW_EVENT_DIGEST != 0 {
                digest_events += 1;
            }
            last = ev;
            assert!(steps < 10_000, "the run ends");
        }
        assert_eq!(digest_events, 1);
        assert_ne!(last & SKEINHW_EVENT_LAST, 0, "the last cycle says so");
        assert_eq!(
            skeinhw_golden_step(g),
            SKEINHW_END,
            "END again, not a crash"
        );
        let mut got = [0u8; 64];
        assert_eq!(
            skeinhw_golden_digest(g, 0, got.as_mut_ptr(), 64),
            SKEINHW_OK
        );
        assert_eq!(got, want);
        skeinhw_golden_free(g);
    }
}
