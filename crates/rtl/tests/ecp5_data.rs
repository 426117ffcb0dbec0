//! The measured rows of `estimator/data/ecp5/results.json` (Yosys Virtex-5 netlists and ECP5
//! place-and-route, made by `skeinhw explore table` from a study store) are of the Verilog checked in today: each row's
//! hash is recomputed from `generated/<design>/skeinhw.v` (full cores) or from the lean core
//! generated in memory. A row whose Verilog the generator has since changed without changing
//! the hardware (e.g. no longer emitting functions no stage calls) keeps its measured hash and
//! names the current text in `"equivalent_verilog": {"fnv1a64", "evidence"}`; the row is
//! current when today's hash is either. `SKEINHW_SLOW=1` re-runs long-iter-256's lean row with
//! `skeinhw explore` and compares (`skeinhw explore table --check`).

use std::path::PathBuf;

use skeinhw_rtl::{Options, generate_with};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// FNV-1a 64, as the script and the estimator's netlist summaries hash the Verilog.
fn fnv1a64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn rows() -> Vec<serde_json::Value> {
    let path = root().join("estimator/data/ecp5/results.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let data: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    data["rows"].as_array().expect("rows").clone()
}

/// The schedule a row's design names: a preset, or a what-if `<preset>+field=value,...` (the
/// preset with those fields set and that name, as `skeinhw rtl --set` makes it).
fn schedule_of(design: &str) -> skeinhw_sched::Schedule {
    let (preset, overrides) = design.split_once('+').unwrap_or((design, ""));
    let mut spec = skeinhw_sched::preset_spec(preset).expect("a preset");
    for o in overrides.split(',').filter(|o| !o.is_empty()) {
        let (field, value) = o.split_once('=').expect("field=value");
        spec.set(field, value).expect("a schedule field");
    }
    spec.name = design.to_owned();
    spec.build().expect("a possible schedule")
}

#[test]
fn every_checked_in_row_is_of_the_current_verilog() {
    let rows = rows();
    assert!(!rows.is_empty(), "no measured rows");
    let mut stale = Vec::new();
    let mut routed = 0;
    for r in &rows {
        let design = r["design"].as_str().expect("design");
        let variant = r["variant"].as_str().expect("variant");
        let text = match variant {
            "full" => std::fs::read(
                root()
                    .join("crates/rtl/generated")
                    .join(design)
                    .join("skeinhw.v"),
            )
            .unwrap_or_else(|e| panic!("{design}: {e}")),
            "lean" => {
                let s = schedule_of(design);
                generate_with(&s, Options { lean: true })
                    .expect("generate")
                    .verilog
                    .into_bytes()
            }
            other => panic!("{design}: unknown variant {other}"),
        };
        let want = fnv1a64(&text);
        let equivalent = &r["equivalent_verilog"];
        if equivalent.is_object() {
            assert!(
                equivalent["evidence"]
                    .as_str()
                    .is_some_and(|e| !e.is_empty()),
                "{design} {variant}: equivalent_verilog without evidence"
            );
        }
        let hashes = [&r["verilog_fnv1a64"], &equivalent["fnv1a64"]];
        if !hashes.iter().any(|h| h.as_str() == Some(want.as_str())) {
            stale.push(format!("{design} {variant}"));
        }
        // a row measured something: a netlist, and a routed clock unless ECP5 was not run
        // (`"ecp5": null`, shown as "-" in the table)
        assert!(
            r["xc5v"]["luts"].as_u64().unwrap_or(0) > 0,
            "{design} {variant}: no LUTs"
        );
        let e = &r["ecp5"];
        if e["fits"] == false {
            // not placed: a result only if the core really is larger than the device
            let (used, available) = (e["comb_used"].as_u64(), e["comb_available"].as_u64());
            assert!(
                used.is_some() && used > available,
                "{design} {variant}: \"fits\": false with {used:?} of {available:?} cells"
            );
        } else if !e.is_null() {
            let fmax = e["fmax_mhz"].as_f64().unwrap_or(0.0);
            assert!(fmax > 0.0, "{design} {variant}: no routed Fmax");
            routed += 1;
        }
    }
    eprintln!("{} row(s), {routed} placed and routed", rows.len());
    assert!(
        stale.is_empty(),
        "rows made from other Verilog than today's: {}; re-run them with skeinhw explore and skeinhw explore table (see README.md)",
        stale.join(", ")
    );
}

/// The full core's Virtex-5 netlist numbers: its row, or the estimator's checked-in netlist
/// summary of the same Verilog (`estimator/data/netlists`, its hash checked here too).
fn full_xc5v(rows: &[serde_json::Value], design: &str) -> Option<serde_json::Value> {
    if let Some(r) = rows
        .iter()
        .find(|r| r["variant"] == "full" && r["design"] == design)
    {
        return Some(r["xc5v"].clone());
    }
    let path = root().join(format!("estimator/data/netlists/{design}.json"));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let verilog = std::fs::read(
        root()
            .join("crates/rtl/generated")
            .join(design)
            .join("skeinhw.v"),
    )
    .ok()?;
    (summary["verilog_fnv1a64"].as_str() == Some(fnv1a64(&verilog).as_str())).then_some(summary)
}

#[test]
fn a_lean_netlist_has_fewer_flip_flops_and_luts_than_the_full_one() {
    let rows = rows();
    let mut compared = 0;
    for lean in rows.iter().filter(|r| r["variant"] == "lean") {
        let design = lean["design"].as_str().expect("design");
        let Some(full) = full_xc5v(&rows, design) else {
            continue;
        };
        // Without the trace-only registers, with the select-then-add subkey words and (Long's
        // cores) the rotating key, LUTs and FFs are below the full core's for all; the
        // Position register at the load replaces the stream's position, not adds to it.
        let fields = ["ffs", "luts"];
        for field in fields {
            let (l, f) = (lean["xc5v"][field].as_u64(), full[field].as_u64());
            assert!(
                l.is_some() && f.is_some() && l < f,
                "{design}: lean {field} {l:?} not below the full core's {f:?}"
            );
            compared += 1;
        }
        let full_row = rows
            .iter()
            .find(|r| r["variant"] == "full" && r["design"] == design);
        if let Some(full_row) = full_row.filter(|r| !r["ecp5"].is_null() && !lean["ecp5"].is_null())
        {
            let (l, f) = (
                lean["ecp5"]["ffs"].as_u64(),
                full_row["ecp5"]["ffs"].as_u64(),
            );
            assert!(l < f, "{design}: lean ECP5 FFs {l:?} not below {f:?}");
        }
    }
    assert!(compared > 0, "no lean row to compare with a full netlist");
}

/// The Python that has `skeinhw[explore]`: `SKEINHW_PYTHON`, else the test venv's, else python3.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("SKEINHW_PYTHON") {
        return p.into();
    }
    let venv = root().join("target/venv/bin/python");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

#[test]
fn explore_reproduces_the_checked_in_row_of_long_iter_256() {
    if std::env::var_os("SKEINHW_SLOW").is_none_or(|v| v != "1") {
        eprintln!("skipped: SKEINHW_SLOW=1 re-runs Yosys and nextpnr (minutes)");
        return;
    }
    let store = std::env::temp_dir().join(format!("skeinhw-ecp5-check-{}", std::process::id()));
    let explore = |args: &[&str]| {
        let status = std::process::Command::new(python())
            .args(["-m", "skeinhw.explore"])
            .args(args)
            .current_dir(root())
            .status()
            .expect("python with skeinhw[explore]");
        assert!(
            status.success(),
            "skeinhw explore {}: {status}",
            args.join(" ")
        );
    };
    let out = store.to_str().expect("a UTF-8 temporary directory");
    // Debian's Yosys made the checked-in rows (their tools.yosys), YoWASP's nextpnr-ecp5.
    explore(&[
        "--schedule",
        "long-iter-256",
        "--core",
        "lean",
        "--flow",
        "v5-netlist,ecp5",
        "--yosys",
        "system",
        "--serial",
        "--no-progress",
        "--out",
        out,
    ]);
    explore(&["table", "--check", "--store", out]);
    std::fs::remove_dir_all(&store).ok();
}
