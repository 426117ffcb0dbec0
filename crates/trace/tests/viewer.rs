//! Wave-viewer files for a divergence: the merged FST holds both sides' signals with their
//! values, the save files name them and put the cursor on the edge; GTKWave (headless, where
//! `xvfb-run` and `gtkwave` are installed) loads the save file and reports that marker.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::process::Command;

use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, simulate};
use skeinhw_skein::Params;
use skeinhw_trace::{Divergence, FstWriter, VcdWriter, write_viewer_dir, write_viewer_files};

fn bits_of(path: &Path, name: &str) -> Vec<(u64, String)> {
    let mut wave = wellen::simple::read(path).unwrap();
    let h = wave.hierarchy();
    let r = h
        .all_vars()
        .find(|&r| h[r].full_name(h) == name)
        .unwrap_or_else(|| panic!("{name} in {}", path.display()));
    let signal = h[r].signal_ref();
    wave.load_signals(&[signal]);
    let times = wave.time_table().to_vec();
    wave.get_signal(signal)
        .unwrap()
        .iter_changes()
        .map(|(t, v)| (times[t as usize], v.to_bit_string().unwrap()))
        .collect()
}

#[test]
fn merged_fst_and_save_files_show_both_sides_at_the_edge() {
    let dir = tempfile::tempdir().unwrap();
    let golden = dir.path().join("golden.fst");
    let rtl = dir.path().join("rtl.vcd");
    let s = preset("ath-1r").unwrap();
    let mut w = FstWriter::new(BufWriter::new(File::create(&golden).unwrap()));
    simulate(&s, &[Job::bytes(b"abc", 512, Params::default())], &mut w).unwrap();
    let mut w = VcdWriter::new(BufWriter::new(File::create(&rtl).unwrap()));
    simulate(&s, &[Job::bytes(b"abd", 512, Params::default())], &mut w).unwrap();

    let field = |n: &str| (format!("skeinhw.{n}"), format!("skeinhw.{n}"));
    let top = [field("clk")];
    let diverging = [field("slot0_state_0")];
    let context = [field("slot0_valid")];
    let d = Divergence {
        golden: &golden,
        rtl: &rtl,
        rtl_prefix: None,
        top: &top,
        diverging: &diverging,
        context: &context,
        rtl_time: 1460,
        golden_time: Some(1460),
        window: 200,
    };
    let files = write_viewer_files(&d, &dir.path().join("view")).unwrap();
    assert_eq!(files.merged, dir.path().join("view.fst"));
    assert_eq!(files.cursor, 1460);

    for (side, file) in [("golden", &golden), ("rtl", &rtl)] {
        for (g, _) in top.iter().chain(&diverging).chain(&context) {
            assert_eq!(
                bits_of(&files.merged, &format!("{side}.{g}")),
                bits_of(file, g),
                "{side} {g}"
            );
        }
    }
    assert_ne!(
        bits_of(&files.merged, "golden.skeinhw.slot0_state_0"),
        bits_of(&files.merged, "rtl.skeinhw.slot0_state_0"),
    );

    let gtkw = std::fs::read_to_string(&files.gtkw).unwrap();
    let merged = std::path::absolute(&files.merged).unwrap();
    assert!(
        gtkw.contains(&format!("[dumpfile] \"{}\"", merged.display())),
        "{gtkw}"
    );
    assert!(
        gtkw.lines()
            .any(|l| l.starts_with("*") && l.split(' ').nth(1) == Some("1460"))
    );
    // The clocks, then the diverging field golden beside RTL, then the context.
    let traces: Vec<&str> = gtkw.lines().skip_while(|l| !l.starts_with('@')).collect();
    assert_eq!(
        traces,
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
            "-context",
            "@28",
            "golden.skeinhw.slot0_valid",
            "rtl.skeinhw.slot0_valid",
        ]
    );
    let sucl = std::fs::read_to_string(&files.surfer).unwrap();
    assert!(sucl.starts_with(&format!("load_file {}\n", merged.display())));
    assert!(sucl.contains(
        "divider_add diverging\nvariable_add golden.skeinhw.slot0_state_0\n\
         variable_add rtl.skeinhw.slot0_state_0\n"
    ));
    assert!(sucl.ends_with("cursor_set 1460\ngoto_cursor\n"));

    // A signal that is not there is an error naming it and the file.
    let bad = [field("slot7_state_0")];
    let err = write_viewer_files(
        &Divergence {
            diverging: &bad,
            ..d.clone()
        },
        &dir.path().join("x"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("skeinhw.slot7_state_0") && err.contains("golden.fst"),
        "{err}"
    );

    // The golden side moved: its cycle 100 (time 1000) rises on the RTL's edge at 1460.
    let shifted = Divergence {
        golden_time: Some(1000),
        ..d.clone()
    };
    let moved = write_viewer_files(&shifted, &dir.path().join("moved")).unwrap();
    let g = bits_of(&moved.merged, "golden.skeinhw.slot0_state_0");
    let want: Vec<(u64, String)> = bits_of(&golden, "skeinhw.slot0_state_0")
        .into_iter()
        .map(|(t, v)| ((t + 460), v))
        .collect();
    // Before its first change the shifted side is unknown (x) in the merged file.
    assert!(g[0] == (0, "x".repeat(64)), "{:?}", g[0]);
    assert!(g[1..] == want[..], "every change 460 later");

    // A viewer directory: created new; written again only with force; a user's file refused.
    let out = dir.path().join("viewer");
    let files = write_viewer_dir(&d, &out, false).unwrap();
    assert_eq!(files.gtkw, out.join("view.gtkw"));
    assert!(files.merged.is_file() && files.surfer.is_file());
    let again = write_viewer_dir(&d, &out, false).unwrap_err().to_string();
    assert!(again.contains("--force"), "{again}");
    write_viewer_dir(&d, &out, true).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let foreign = write_viewer_dir(&d, &out, true).unwrap_err().to_string();
    assert!(foreign.contains("notes.txt"), "{foreign}");
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );

    gtkwave_loads(&files.gtkw, dir.path());
}

/// GTKWave, headless under `xvfb-run`, loads the save file: its marker is the edge and every
/// signal of the file is displayed.
fn gtkwave_loads(gtkw: &Path, dir: &Path) {
    let have = |p: &str| {
        Command::new("which")
            .arg(p)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !have("gtkwave") || !have("xvfb-run") {
        eprintln!("SKIPPED: gtkwave and xvfb-run are not both installed");
        return;
    }
    let script = dir.join("q.tcl");
    std::fs::write(
        &script,
        "puts \"MARKER [gtkwave::getMarker]\"\nputs \"SHOWN [gtkwave::getDisplayedSignals]\"\n\
         gtkwave::/File/Quit\n",
    )
    .unwrap();
    let o = Command::new("timeout")
        .args(["120", "xvfb-run", "-a", "gtkwave", "-S"])
        .arg(&script)
        .arg(gtkw)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("MARKER 1460"),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let shown = out.lines().find(|l| l.starts_with("SHOWN")).unwrap();
    for name in [
        "golden.skeinhw.clk",
        "rtl.skeinhw.clk",
        "golden.skeinhw.slot0_state_0[63:0]",
        "rtl.skeinhw.slot0_state_0[63:0]",
        "rtl.skeinhw.slot0_valid",
    ] {
        assert!(shown.split(' ').any(|s| s == name), "{name}: {shown}");
    }
}
