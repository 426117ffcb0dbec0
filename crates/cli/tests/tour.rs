//! `skeinhw tour`, the README's first command: every step runs and agrees, the digests are
//! those of RustCrypto's `skein` and `shabal` (independent implementations), and when Icarus
//! Verilog is installed both generated designs diff clean against the golden traces.

use assert_cmd::Command;
use rustcrypto_shabal::Digest as _;

const MESSAGE: &[u8] = b"The quick brown fox jumps over the lazy dog";

#[test]
fn the_tour_runs_every_step_and_agrees() {
    let out = Command::cargo_bin("skeinhw")
        .unwrap()
        .arg("tour")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let skein = hex::encode(rustcrypto_skein::Skein512_512::digest(MESSAGE));
    let shabal = hex::encode(rustcrypto_shabal::Shabal512::digest(MESSAGE));
    assert!(text.contains(&skein), "{text}");
    assert!(text.contains(&shabal), "{text}");
    for step in [
        "1. hash",
        "2. trace",
        "3. diff",
        "4. rtl",
        "5. estimate",
        "6. shabal",
    ] {
        assert!(text.contains(step), "{step}: {text}");
    }
    assert!(text.contains("IDENTICAL: 219 cycles"), "{text}");
    // Table I beside the Shabal estimate (the seed table, not our model).
    assert!(
        text.contains("(the paper: 1715 slices, 76 MHz, 3242 Mbit/s)"),
        "{text}"
    );
    assert!(
        text.contains("digest out of the datapath equals the library's"),
        "{text}"
    );
    let icarus = std::process::Command::new("iverilog")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if icarus {
        assert!(
            text.contains("219 cycles identical to the golden trace"),
            "{text}"
        );
        assert!(
            text.contains("48 cycles identical to the golden trace"),
            "{text}"
        );
    } else {
        eprintln!("iverilog not installed: the tour's RTL steps are not checked");
    }
}
