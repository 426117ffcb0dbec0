//! The golden-model handle against the JSON lines `skeinhw trace` writes (its writer,
//! `skeinhw_trace::JsonlWriter`, on the same simulator), read back as plain JSON: every field
//! of every cycle, for several presets and several streams.

use std::ffi::CString;
use std::ptr::{null, null_mut};

use serde_json::Value;
use skeinhw::golden::*;
use skeinhw::{SKEINHW_END, SKEINHW_OK, skeinhw_last_error};
use skeinhw_sched::sim::{Job, Phase, simulate};
use skeinhw_trace::JsonlWriter;

fn trace_lines(preset: &str, messages: &[Vec<u8>]) -> Vec<Value> {
    let schedule = skeinhw_sched::preset(preset).unwrap();
    let out_bits = u64::from(schedule.size().bits());
    let jobs: Vec<Job<'_>> = messages
        .iter()
        .map(|m| Job::bytes(m, out_bits, Default::default()))
        .collect();
    let mut text = Vec::new();
    simulate(&schedule, &jobs, &mut JsonlWriter::new(&mut text)).unwrap();
    String::from_utf8(text)
        .unwrap()
        .lines()
        .skip(1) // the header
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn field(g: *mut SkeinhwGolden, name: &str) -> Vec<u64> {
    let c = CString::new(name).unwrap();
    let mut words = [0u64; 17];
    let mut n = 0usize;
    let s = unsafe { skeinhw_golden_field(g, c.as_ptr(), words.as_mut_ptr(), 17, &mut n) };
    assert_eq!(s, SKEINHW_OK, "field {name}: {:?}", unsafe {
        std::ffi::CStr::from_ptr(skeinhw_last_error())
    });
    words[..n].to_vec()
}

fn hex_words(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|w| u64::from_str_radix(w.as_str().unwrap(), 16).unwrap())
        .collect()
}

fn compare(preset: &str, messages: &[Vec<u8>]) {
    let lines = trace_lines(preset, messages);
    let name = CString::new(preset).unwrap();
    let mut g = null_mut();
    unsafe {
        assert_eq!(skeinhw_golden_new(name.as_ptr(), &mut g), SKEINHW_OK);
        for m in messages {
            assert_eq!(
                skeinhw_golden_add_message(g, m.as_ptr(), 8 * m.len() as u64, 0, null()),
                SKEINHW_OK
            );
        }
    }
    let mut compared = 0usize;
    for line in &lines {
        assert_eq!(unsafe { skeinhw_golden_step(g) }, SKEINHW_OK);
        let cycle = line["cycle"].as_u64().unwrap();
        assert_eq!(field(g, "cycle"), [cycle]);
        let phase = Phase::from_name(line["phase"].as_str().unwrap()).unwrap();
        assert_eq!(
            field(g, "phase"),
            [u64::from(phase.code())],
            "{preset} cycle {cycle}"
        );
        for (k, v) in line["busy"].as_object().unwrap() {
            assert_eq!(field(g, &format!("busy_{k}")), [v.as_u64().unwrap()]);
        }
        let out = &line["out"];
        assert_eq!(field(g, "out_valid"), [u64::from(!out.is_null())]);
        if !out.is_null() {
            assert_eq!(field(g, "out_stream"), [out["stream"].as_u64().unwrap()]);
            assert_eq!(field(g, "out_index"), [out["index"].as_u64().unwrap()]);
            assert_eq!(field(g, "out_data"), hex_words(&out["data"]));
            compared += 1;
        }
        for (i, slot) in line["slots"].as_array().unwrap().iter().enumerate() {
            let f = |name: &str| field(g, &format!("slot{i}_{name}"));
            assert_eq!(f("valid"), [u64::from(slot["valid"].as_bool().unwrap())]);
            for k in ["stream", "block", "round", "subkey"] {
                assert_eq!(
                    f(k),
                    [slot[k].as_u64().unwrap()],
                    "{preset} cycle {cycle} slot{i}_{k}"
                );
            }
            let phase = Phase::from_name(slot["phase"].as_str().unwrap()).unwrap();
            assert_eq!(f("phase"), [u64::from(phase.code())]);
            for k in ["state", "key", "tweak"] {
                let want = hex_words(&slot[k]);
                assert_eq!(f(k), want, "{preset} cycle {cycle} slot{i}_{k}");
                for (w, v) in want.iter().enumerate() {
                    assert_eq!(f(&format!("{k}_{w}")), [*v]);
                }
            }
            compared += 1;
        }
    }
    assert!(compared > lines.len(), "compared slots and outputs");
    assert_eq!(
        unsafe { skeinhw_golden_step(g) },
        SKEINHW_END,
        "{preset}: same length"
    );
    unsafe { skeinhw_golden_free(g) };
}

#[test]
fn golden_handle_equals_the_trace_for_several_presets() {
    let one = vec![b"abc".to_vec()];
    let three = vec![vec![0x5a; 100], Vec::new(), (0..=255).collect()];
    compare("ath-1r", &one);
    compare("long-iter-256", &three);
    compare("ath-8r-2fp-3sp", &three);
    compare("long-pipe-512", &three);
    compare("long-iter-1024", &one);
}
