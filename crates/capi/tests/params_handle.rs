//! The params handle and the hex entry points (the DPI-C forms) called from Rust: each option
//! set through the handle gives the digest of `skeinhw_skein::hash` with the same `Params`,
//! in the one-shot, streaming and golden-model calls; bad input is an error with a message.

use std::ffi::{CStr, CString, c_char};
use std::ptr::{null, null_mut};

use skeinhw::golden::*;
use skeinhw::hash::*;
use skeinhw::params::*;
use skeinhw::*;
use skeinhw_skein::{Params, TreeParams};

fn text(p: *const c_char) -> String {
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// A params handle with every option: the key a byte at a time, the rest from hex.
fn every_option() -> *mut skeinhw_params {
    let mut p = null_mut();
    unsafe {
        assert_eq!(skeinhw_params_new(&mut p), SKEINHW_OK);
        for b in b"a MAC key" {
            assert_eq!(
                skeinhw_params_add_byte(p, SKEINHW_PARAM_KEY, *b),
                SKEINHW_OK
            );
        }
        for (kind, value) in [
            (SKEINHW_PARAM_PERS, "pers"),
            (SKEINHW_PARAM_PUBLIC_KEY, "pk"),
            (SKEINHW_PARAM_KEY_ID, ""),
            (SKEINHW_PARAM_NONCE, "nonce"),
        ] {
            let hex = cstr(&hex::encode(value));
            assert_eq!(skeinhw_params_set_hex(p, kind, hex.as_ptr()), SKEINHW_OK);
        }
        assert_eq!(skeinhw_params_set_tree(p, 1, 2, 3), SKEINHW_OK);
    }
    p
}

fn every_option_rust() -> Params<'static> {
    Params {
        key: b"a MAC key",
        personalization: Some(b"pers"),
        public_key: Some(b"pk"),
        key_id: Some(b""),
        nonce: Some(b"nonce"),
        tree: Some(TreeParams::new(1, 2, 3).unwrap()),
    }
}

const MSG: &[u8] = &[0xa5; 300];
const MSG_BITS: u64 = 300 * 8 - 5;

#[test]
fn the_handle_hashes_as_the_library_with_the_same_params() {
    let want = skeinhw_skein::hash(1024, 520, MSG, MSG_BITS, &every_option_rust()).unwrap();
    let p = every_option();
    unsafe {
        // One-shot, through the handle as a `skeinhw_params *`.
        let mut out = [0u8; 65];
        let s = skeinhw_skein_hash(1024, 520, MSG.as_ptr(), MSG_BITS, p, out.as_mut_ptr(), 65);
        assert_eq!(s, SKEINHW_OK, "{}", text(skeinhw_last_error()));
        assert_eq!(out.to_vec(), want);

        // Streaming: whole bytes as hex, the last byte as a 3-bit word; digest as hex.
        let mut h = null_mut();
        assert_eq!(skeinhw_skein_new(1024, 520, p, &mut h), SKEINHW_OK);
        skeinhw_params_free(p);
        let body = cstr(&hex::encode(&MSG[..299]));
        assert_eq!(skeinhw_skein_update_hex(h, body.as_ptr()), SKEINHW_OK);
        assert_eq!(skeinhw_skein_update_u64(h, 0xa5, 3), SKEINHW_OK);
        assert_eq!(skeinhw_skein_final(h, null_mut(), 0), SKEINHW_OK);
        assert_eq!(text(skeinhw_skein_digest_hex(h)), hex::encode(&want));
        skeinhw_skein_free(h);
    }
}

#[test]
fn a_present_empty_string_differs_from_an_absent_one_and_clear_removes_it() {
    let mut p = null_mut();
    let digest = |p: *const skeinhw_params| {
        let mut out = [0u8; 32];
        let s = unsafe { skeinhw_skein_hash(256, 256, null(), 0, p, out.as_mut_ptr(), 32) };
        assert_eq!(s, SKEINHW_OK);
        out
    };
    unsafe {
        assert_eq!(skeinhw_params_new(&mut p), SKEINHW_OK);
        let absent = digest(p);
        assert_eq!(absent, digest(null()));
        assert_eq!(
            skeinhw_params_set_hex(p, SKEINHW_PARAM_NONCE, c"".as_ptr()),
            SKEINHW_OK
        );
        let empty = Params {
            nonce: Some(b""),
            ..Params::default()
        };
        assert_eq!(
            digest(p).to_vec(),
            skeinhw_skein::hash(256, 256, &[], 0, &empty).unwrap()
        );
        assert_ne!(digest(p), absent);
        assert_eq!(skeinhw_params_clear(p, SKEINHW_PARAM_NONCE), SKEINHW_OK);
        assert_eq!(digest(p), absent);
        skeinhw_params_free(p);
    }
}

#[test]
fn the_golden_model_takes_the_handle_and_a_bit_length() {
    let want = skeinhw_skein::hash(512, 384, MSG, MSG_BITS, &every_option_rust()).unwrap();
    let p = every_option();
    let mut g = null_mut();
    unsafe {
        assert_eq!(skeinhw_golden_new(c"ath-1r".as_ptr(), &mut g), SKEINHW_OK);
        let hex = cstr(&hex::encode(MSG));
        let s = skeinhw_golden_add_message_hex_params(g, hex.as_ptr(), MSG_BITS, 384, p);
        assert_eq!(s, SKEINHW_OK, "{}", text(skeinhw_golden_error(g)));
        // More bits than the hex holds.
        let s = skeinhw_golden_add_message_hex_params(g, c"00".as_ptr(), 9, 0, null());
        assert_eq!(s, SKEINHW_ERR_ARGUMENT);
        assert!(text(skeinhw_golden_error(g)).contains("msg_bits is 9"));
        skeinhw_params_free(p);
        while skeinhw_golden_step(g) == SKEINHW_OK {}
        let mut out = [0u8; 48];
        assert_eq!(
            skeinhw_golden_digest(g, 0, out.as_mut_ptr(), 48),
            SKEINHW_OK
        );
        assert_eq!(out.to_vec(), want);
        skeinhw_golden_free(g);
    }
}

#[test]
fn bad_input_is_an_error_with_a_message() {
    let mut p = null_mut();
    unsafe {
        assert_eq!(skeinhw_params_new(&mut p), SKEINHW_OK);
        type Call = Box<dyn Fn() -> i32>;
        let cases: [(Call, i32, &str); 5] = [
            (
                Box::new(move || skeinhw_params_add_byte(p, 4, 0)),
                SKEINHW_ERR_ARGUMENT,
                "parameter type 4",
            ),
            (
                Box::new(move || skeinhw_params_set_hex(p, SKEINHW_PARAM_PERS, c"abc".as_ptr())),
                SKEINHW_ERR_ARGUMENT,
                "hex string",
            ),
            (
                Box::new(move || skeinhw_params_set_hex(p, SKEINHW_PARAM_PERS, null())),
                SKEINHW_ERR_NULL,
                "hex is NULL",
            ),
            (
                Box::new(move || skeinhw_params_set_tree(p, 0, 1, 2)),
                SKEINHW_ERR_ARGUMENT,
                "",
            ),
            (
                Box::new(move || skeinhw_params_set_tree(p, 1, 1, 256)),
                SKEINHW_ERR_ARGUMENT,
                "over 255",
            ),
        ];
        for (i, (call, want, words)) in cases.into_iter().enumerate() {
            assert_eq!(call(), want, "case {i}");
            let message = text(skeinhw_last_error());
            assert!(!message.is_empty(), "case {i}");
            assert_eq!(text(skeinhw_params_error(p)), message, "case {i}");
            assert!(message.contains(words), "case {i}: {message}");
        }
        // A caller's own struct is not a handle: refused, not written past its end.
        let mut own = std::mem::zeroed::<skeinhw_params>();
        let s = skeinhw_params_add_byte(&mut own, SKEINHW_PARAM_KEY, 1);
        assert_eq!(s, SKEINHW_ERR_ARGUMENT);
        assert!(text(skeinhw_last_error()).contains("not made by skeinhw_params_new"));
        skeinhw_params_free(&mut own); // ignored
        assert_eq!(skeinhw_params_new(null_mut()), SKEINHW_ERR_NULL);
        skeinhw_params_free(p);
        // No digest kept yet: "".
        let mut h = null_mut();
        assert_eq!(skeinhw_skein_new(256, 256, null(), &mut h), SKEINHW_OK);
        assert_eq!(text(skeinhw_skein_digest_hex(h)), "");
        assert_eq!(
            skeinhw_skein_update_hex(h, c"0g".as_ptr()),
            SKEINHW_ERR_ARGUMENT
        );
        skeinhw_skein_free(h);
        assert_eq!(text(skeinhw_version()), env!("CARGO_PKG_VERSION"));
    }
}
