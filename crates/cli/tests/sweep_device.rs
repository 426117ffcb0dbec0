//! `sweep`: designs larger than the device are flagged in the text, the CSV and the JSON.

use assert_cmd::Command;

#[test]
fn designs_larger_than_the_device_are_flagged_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("skeinhw")
        .unwrap()
        .args(["sweep", "--sizes", "1024", "--out-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("sweep.json")).unwrap())
            .unwrap();
    let over: Vec<&serde_json::Value> = json["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["exceeds_device"] == true)
        .collect();
    assert!(!over.is_empty());
    for p in &over {
        assert!(p["estimate"]["slices"].as_u64().unwrap() > 51_840);
    }
    assert!(
        text.contains(&format!(
            "{} of them larger than the largest Xilinx Virtex-5, xc5vlx330 (51,840 slices)",
            over.len()
        )),
        "{text}"
    );
    // The front's designs beyond the device are marked in the table.
    for p in over.iter().filter(|p| p["pareto"] == true) {
        let name = p["spec"]["name"].as_str().unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap();
        assert!(line.ends_with("> device"), "{line}");
    }
    let csv = std::fs::read_to_string(dir.path().join("sweep.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "exceeds_device").unwrap();
    let flagged = csv
        .lines()
        .skip(1)
        .filter(|l| l.split(',').nth(col) == Some("true"))
        .count();
    assert_eq!(flagged, over.len());
}
