//! `diff --viewer DIR` and `sim --viewer DIR`: the merged FST, the GTKWave save file and the
//! Surfer command file of a divergence, the cursor on the reported edge (GTKWave, headless,
//! says so where `gtkwave` and `xvfb-run` are installed); and a trace's own VCD diffed with
//! no options.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

fn skeinhw() -> Command {
    Command::cargo_bin("skeinhw").unwrap()
}

fn trace(dir: &Path, hex: &str, file: &str) -> PathBuf {
    let out = dir.join(file);
    skeinhw()
        .args(["trace", "--schedule", "ath-1r", "--hex", hex, "-o"])
        .arg(&out)
        .assert()
        .success();
    out
}

/// The `time N` of the report's first divergence line.
fn reported_time(report: &str) -> u64 {
    let line = report
        .lines()
        .find(|l| l.starts_with("first divergence"))
        .unwrap_or_else(|| panic!("no divergence in {report}"));
    let after = line.split("time ").nth(1).unwrap();
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// GTKWave's marker and displayed signals for `gtkw`, or `None` (said on standard error)
/// where `gtkwave` or `xvfb-run` is missing.
fn gtkwave(gtkw: &Path) -> Option<(u64, Vec<String>)> {
    let have = |p: &str| {
        Process::new("which")
            .arg(p)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !have("gtkwave") || !have("xvfb-run") {
        eprintln!("SKIPPED: gtkwave and xvfb-run are not both installed (scripts/install-deps.sh)");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("q.tcl");
    std::fs::write(
        &script,
        "puts \"MARKER [gtkwave::getMarker]\"\nputs \"SHOWN [gtkwave::getDisplayedSignals]\"\n\
         gtkwave::/File/Quit\n",
    )
    .unwrap();
    let o = Process::new("timeout")
        .args(["120", "xvfb-run", "-a", "gtkwave", "-S"])
        .arg(&script)
        .arg(gtkw)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let field = |tag: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(tag))
            .unwrap_or_else(|| panic!("{tag}: {out}\n{}", String::from_utf8_lossy(&o.stderr)))
            .to_owned()
    };
    let marker = field("MARKER ").trim().parse().unwrap();
    let shown = field("SHOWN ").split(' ').map(str::to_owned).collect();
    Some((marker, shown))
}

#[test]
fn a_trace_vcd_diffs_with_no_options() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = trace(dir.path(), "616263", "t.vcd");
    let fst = trace(dir.path(), "616263", "t.fst");
    for file in [&vcd, &fst] {
        let out = skeinhw()
            .arg("diff")
            .arg(file)
            .args(["--schedule", "ath-1r", "--hex", "616263"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {text}", file.display());
        assert!(text.contains("IDENTICAL"), "{text}");
    }
    // Another message diverges: the names were found, not skipped.
    let out = skeinhw()
        .arg("diff")
        .arg(&vcd)
        .args(["--schedule", "ath-1r", "--hex", "616264"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn diff_viewer_opens_the_divergence_in_gtkwave_at_the_reported_edge() {
    let dir = tempfile::tempdir().unwrap();
    let rtl = trace(dir.path(), "616264", "rtl.vcd");
    let out_dir = dir.path().join("view");
    let diff = |extra: &[&str]| {
        skeinhw()
            .arg("diff")
            .arg(&rtl)
            .args(["--schedule", "ath-1r", "--hex", "616263", "--viewer"])
            .arg(&out_dir)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = diff(&[]);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8_lossy(&out.stdout);
    let time = reported_time(&report);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("view.gtkw"), "{err}");

    let gtkw = std::fs::read_to_string(out_dir.join("view.gtkw")).unwrap();
    let merged = std::path::absolute(out_dir.join("view.fst")).unwrap();
    assert!(gtkw.contains(&format!("[dumpfile] \"{}\"", merged.display())));
    let marker_line = gtkw.lines().find(|l| l.starts_with('*')).unwrap();
    assert_eq!(
        marker_line.split(' ').nth(1),
        Some(time.to_string().as_str())
    );
    // The clocks, then the diverging field, golden beside RTL, then the context.
    let traces: Vec<&str> = gtkw.lines().skip_while(|l| !l.starts_with('@')).collect();
    assert_eq!(
        traces[..9],
        [
            "@28",
            "golden.skeinhw.clk",
            "rtl.skeinhw.clk",
            "@200",
            "-diverging",
            "@22",
            "golden.skeinhw.slot0_state_0[63:0]",
            "rtl.skeinhw.slot0_state_0[63:0]",
            "@200",
        ]
    );
    assert_eq!(traces[9], "-context");
    let sucl = std::fs::read_to_string(out_dir.join("view.sucl")).unwrap();
    assert!(sucl.ends_with(&format!("cursor_set {time}\ngoto_cursor\n")));

    if let Some((marker, shown)) = gtkwave(&out_dir.join("view.gtkw")) {
        assert_eq!(marker, time, "GTKWave's marker is the reported edge");
        for name in [
            "golden.skeinhw.slot0_state_0[63:0]",
            "rtl.skeinhw.slot0_state_0[63:0]",
        ] {
            assert!(shown.iter().any(|s| s == name), "{name}: {shown:?}");
        }
    }

    // Written again only with --force; a user's file in the directory is never replaced.
    let again = diff(&[]);
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("--force"), "{err}");
    assert!(again.stdout.is_empty(), "refused before the diff");
    assert_eq!(diff(&["--force"]).status.code(), Some(1));
    std::fs::write(out_dir.join("notes.txt"), "mine").unwrap();
    let foreign = diff(&["--force"]);
    assert_eq!(foreign.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(out_dir.join("notes.txt")).unwrap(),
        "mine"
    );
    // A file where the directory should be is refused, left as it was.
    let file = dir.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    skeinhw()
        .arg("diff")
        .arg(&rtl)
        .args(["--schedule", "ath-1r", "--hex", "616263", "--viewer"])
        .arg(&file)
        .assert()
        .code(2);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    // --force alone is a usage error.
    skeinhw()
        .arg("diff")
        .arg(&rtl)
        .args(["--schedule", "ath-1r", "--hex", "616263", "--force"])
        .assert()
        .code(2);
    // Identical: nothing to show, nothing written.
    let same = dir.path().join("same");
    skeinhw()
        .arg("diff")
        .arg(&rtl)
        .args(["--schedule", "ath-1r", "--hex", "616264", "--viewer"])
        .arg(&same)
        .assert()
        .code(0);
    assert!(!same.join("view.gtkw").exists());
}

#[test]
fn sim_viewer_shows_the_edited_design_beside_the_golden_model() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    skeinhw()
        .args(["rtl", "--schedule", "long-iter-256", "-o"])
        .arg(&dir)
        .assert()
        .success();
    let v = std::fs::read_to_string(dir.join("skeinhw.v")).unwrap();
    let v = v.replace("// PERM w=1 pi=3", "// edited").replace(
        "permute[64 +: 64] = x[192 +: 64]; // edited",
        "permute[64 +: 64] = x[128 +: 64]; // edited",
    );
    std::fs::write(dir.join("skeinhw.v"), v).unwrap();
    let out_dir = tmp.path().join("view");
    let out = skeinhw()
        .args(["sim", "--schedule", "long-iter-256", "--hex", "616263"])
        .arg("--rtl-dir")
        .arg(&dir)
        .arg("--viewer")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let time = reported_time(&String::from_utf8_lossy(&out.stdout));
    let gtkw = std::fs::read_to_string(out_dir.join("view.gtkw")).unwrap();
    assert!(
        gtkw.contains(
            "\n-diverging\n@22\ngolden.skeinhw.slot0_state_1[63:0]\n\
             rtl.skeinhw_tb.dut.slot0_state_1[63:0]\n"
        ),
        "{gtkw}"
    );
    if let Some((marker, shown)) = gtkwave(&out_dir.join("view.gtkw")) {
        assert_eq!(marker, time, "GTKWave's marker is the reported edge");
        assert!(
            shown.iter().any(|s| s == "rtl.skeinhw_tb.dut.clk"),
            "{shown:?}"
        );
    }
}
