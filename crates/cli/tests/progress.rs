//! Progress bars: a long trace shows one on a terminal (a pseudo-terminal made by util-linux's
//! `script`), counting the run's exact UBI blocks, clears it before the results, and writes
//! the same file as a run whose standard error is a pipe, which shows nothing.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_skeinhw");

/// 520 KiB through ath-8r (10 cycles a block): Config, 8,320 Message blocks and one Output
/// block, over the bar's 8,192-block threshold in 83 k cycles.
const MESSAGE_BYTES: usize = 520 << 10;
const BLOCKS: u64 = 1 + 8_320 + 1;

fn trace_args(message: &Path, out: &Path) -> Vec<String> {
    [
        "trace",
        "--schedule",
        "ath-8r",
        "--msg-file",
        message.to_str().unwrap(),
        "--summary",
        "-o",
        out.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec()
}

fn script_exists() -> bool {
    Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `skeinhw args` in a pseudo-terminal (`script`); what the terminal showed, and what
/// followed the bar's last erase-line: the results as they print.
fn on_a_terminal<S: AsRef<str>>(args: impl IntoIterator<Item = S>) -> (String, String) {
    let command = std::iter::once(format!("'{BIN}'"))
        .chain(args.into_iter().map(|a| format!("'{}'", a.as_ref())))
        .collect::<Vec<_>>()
        .join(" ");
    let shown = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    assert!(shown.status.success(), "{shown:?}");
    let screen = String::from_utf8_lossy(&shown.stdout).into_owned();
    let cleared = screen.rfind("\x1b[2K").expect("the bar is cleared") + 4;
    let after_bar = screen[cleared..].replace("\r\n", "\n");
    (screen, after_bar)
}

#[test]
fn a_long_trace_shows_its_blocks_on_a_terminal_and_nothing_in_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let message = dir.path().join("m.bin");
    std::fs::write(&message, vec![0x5a; MESSAGE_BYTES]).unwrap();

    let piped_out = dir.path().join("piped.jsonl");
    let piped = Command::new(BIN)
        .args(trace_args(&message, &piped_out))
        .output()
        .unwrap();
    assert!(piped.status.success());
    assert_eq!(
        String::from_utf8_lossy(&piped.stderr),
        "",
        "nothing on a pipe"
    );
    let summary = String::from_utf8(piped.stdout).unwrap();
    assert!(
        summary.contains(&format!("blocks              {BLOCKS}\n")),
        "{summary}"
    );

    if !script_exists() {
        eprintln!("skipped: the terminal half needs util-linux's `script`");
        return;
    }
    let tty_out = dir.path().join("tty.jsonl");
    let (screen, after_bar) = on_a_terminal(trace_args(&message, &tty_out));
    assert!(
        screen.contains(&format!("/{BLOCKS} blocks")),
        "a bar over the run's {BLOCKS} blocks: {screen}"
    );
    // The bar is cleared (erase line) before the summary, which reads as it does in a pipe.
    assert!(
        after_bar.starts_with("schedule            ath-8r"),
        "{after_bar:?}"
    );
    assert_eq!(after_bar, summary);
    assert_eq!(
        std::fs::read(&tty_out).unwrap(),
        std::fs::read(&piped_out).unwrap()
    );
}

/// `diff` of a waveform of 64 MiB or more shows a bar over its bytes on a terminal, cleared
/// before the verdict; nothing on a pipe.
#[test]
fn a_long_diff_shows_the_bytes_read_on_a_terminal_and_nothing_in_a_pipe() {
    if !script_exists() {
        eprintln!("skipped: needs util-linux's `script`");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let message = dir.path().join("m.bin");
    // 110 KiB through ath-1r: 1,762 blocks of 73 cycles, a VCD of about 79 MB.
    std::fs::write(&message, vec![0xa5; 110 << 10]).unwrap();
    let vcd = dir.path().join("t.vcd");
    let traced = Command::new(BIN)
        .args(["trace", "--schedule", "ath-1r", "--msg-file"])
        .arg(&message)
        .arg("-o")
        .arg(&vcd)
        .output()
        .unwrap();
    assert!(traced.status.success(), "{traced:?}");
    assert!(std::fs::metadata(&vcd).unwrap().len() >= 64 << 20);
    let diff_args = [
        "diff",
        vcd.to_str().unwrap(),
        "--schedule",
        "ath-1r",
        "--msg-file",
        message.to_str().unwrap(),
    ];
    let piped = Command::new(BIN).args(diff_args).output().unwrap();
    assert!(piped.status.success(), "{piped:?}");
    assert_eq!(
        String::from_utf8_lossy(&piped.stderr),
        "",
        "nothing on a pipe"
    );
    let verdict = String::from_utf8(piped.stdout).unwrap();
    assert!(verdict.starts_with("IDENTICAL: "), "{verdict}");

    let (screen, after_bar) = on_a_terminal(diff_args);
    assert!(
        screen.contains(&format!("diff {}", vcd.display())),
        "{screen}"
    );
    assert!(screen.contains(" MiB"), "a bar over the bytes: {screen}");
    assert_eq!(after_bar, verdict);
}
