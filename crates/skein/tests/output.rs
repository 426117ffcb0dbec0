//! The streaming output reader against the official golden vectors: every entry, read in
//! pieces of several sizes, gives the published result.

use skeinhw_skein::kat::parse_golden;
use skeinhw_skein::{DynSkein, Params, TreeParams};

#[test]
fn golden_vectors_streamed_in_pieces() {
    let text = std::fs::read_to_string(format!(
        "{}/../../vectors/skein/skein_golden_kat.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let entries = parse_golden(&text);
    assert!(entries.iter().any(|e| e.out_bits > e.state_bits as u64));
    for e in &entries {
        let params = Params {
            key: &e.key,
            tree: e
                .tree
                .map(|t| TreeParams::new(t.leaf, t.fan_out, t.max_height).unwrap()),
            ..Params::default()
        };
        for step in [1usize, 7, 64, 1000] {
            let mut h = DynSkein::new(e.state_bits, e.out_bits, &params).unwrap();
            h.update_bits(&e.message, e.msg_bits).unwrap();
            let mut r = h.finalize_reader();
            let mut got = Vec::new();
            let mut buf = vec![0u8; step];
            loop {
                let n = r.fill(&mut buf);
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            assert_eq!(got, e.result, "{} bits, step {step}", e.out_bits);
        }
    }
}
