//! For every row of the seed papers' result tables (`estimator/data/seed-tables.csv`) whose
//! design is a preset, `block_bits x blocks_in_flight x f / cycles_per_block` reproduces the
//! published throughput within the rounding of the table: half a unit in the last printed
//! digit of the throughput, plus what half a unit in the last digit of the printed frequency
//! (or clock period) moves it.

use std::path::Path;

use skeinhw_sched::{preset, preset_names};

/// Columns of `seed-tables.csv`.
const COLUMNS: [&str; 14] = [
    "source",
    "where",
    "device",
    "design",
    "size",
    "role",
    "ffs",
    "luts",
    "lut_ff_pairs",
    "slices",
    "period_ns",
    "freq_mhz",
    "throughput_mbps",
    "note",
];

/// Half a unit in the last significant printed digit: 0.05 for "408.7"; for an integer,
/// trailing zeros are taken as not significant ("1100", Long's "1.1 Gbps", gives 50).
fn half_unit(printed: &str) -> f64 {
    match printed.split_once('.') {
        Some((_, decimals)) => 0.5 * 10f64.powi(-(decimals.len() as i32)),
        None => {
            let zeros = printed.len() - printed.trim_end_matches('0').len();
            0.5 * 10f64.powi(zeros as i32)
        }
    }
}

fn number(printed: &str, what: &str, line: usize) -> f64 {
    printed
        .parse()
        .unwrap_or_else(|_| panic!("seed-tables.csv line {line}: {what} = {printed:?}"))
}

/// The fields of one CSV line: split on commas outside double quotes, quotes removed (two
/// quotes inside quotes are one).
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().expect("a field").push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().expect("a field").push(c),
        }
    }
    out
}

#[test]
fn a_quoted_comma_stays_in_its_field() {
    assert_eq!(fields(r#"a,"b, c",d"#), ["a", "b, c", "d"]);
    assert_eq!(fields(r#"x,"say ""hi""""#), ["x", r#"say "hi""#]);
}

#[test]
fn throughput_of_every_preset_row_reproduces_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../estimator/data/seed-tables.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = lines.next().expect("header").1.split(',').collect();
    assert_eq!(
        header, COLUMNS,
        "the CSV's columns changed: update this test"
    );
    let col = |name: &str| COLUMNS.iter().position(|c| *c == name).unwrap();

    let mut checked = 0;
    let mut designs_seen = std::collections::BTreeSet::new();
    for (i, line) in lines {
        let line_no = i + 1;
        // Fields split on commas outside double quotes (a note may quote a comma: row [22]),
        // with a field count check.
        let row = fields(line);
        let row: Vec<&str> = row.iter().map(String::as_str).collect();
        assert_eq!(
            row.len(),
            COLUMNS.len(),
            "seed-tables.csv line {line_no}: {line}"
        );
        let design = row[col("design")];
        let Ok(schedule) = preset(design) else {
            continue;
        };
        assert_eq!(
            row[col("size")],
            schedule.block_bits().to_string(),
            "line {line_no}"
        );
        let printed_tp = row[col("throughput_mbps")];
        let table_tp = number(printed_tp, "throughput_mbps", line_no);
        let bits_per_cycle = f64::from(schedule.block_bits() * schedule.blocks_in_flight())
            / f64::from(schedule.cycles_per_block());
        let (model_tp, input_slack) = match (row[col("freq_mhz")], row[col("period_ns")]) {
            (f, _) if !f.is_empty() => (
                schedule.throughput_mbps(number(f, "freq_mhz", line_no)),
                bits_per_cycle * half_unit(f),
            ),
            (_, t) if !t.is_empty() => {
                let period = number(t, "period_ns", line_no);
                let tp = schedule.throughput_mbps(1000.0 / period);
                (tp, tp / period * half_unit(t))
            }
            _ => panic!("line {line_no}: {design} has neither freq_mhz nor period_ns"),
        };
        let tolerance = half_unit(printed_tp) + input_slack;
        assert!(
            (model_tp - table_tp).abs() <= tolerance,
            "seed-tables.csv line {line_no} ({design}, {}): model {model_tp:.2} Mbit/s, \
             table {table_tp}, tolerance {tolerance:.3}",
            row[col("device")]
        );
        checked += 1;
        designs_seen.insert(design.to_owned());
    }
    // 4 Long rows, 10 Athanasiou designs on each of Virtex-4, -5 and -6.
    assert_eq!(checked, 34);
    // Every preset with a published throughput was checked (Fig. 9 and section 3.4 have none).
    let unpublished = [
        "long-pipe-512",
        "long-ks1-256",
        "long-outshare-256",
        "long-inshare-256",
        "long-split-256",
        "long-overlap-256",
    ];
    for name in preset_names().filter(|n| !unpublished.contains(n)) {
        assert!(designs_seen.contains(name), "{name} has no seed-table row");
    }
}

#[test]
fn half_unit_of_printed_numbers() {
    for (printed, half) in [
        ("408.7", 0.05),
        ("1161", 0.5),
        ("1100", 50.0),
        ("3204.82", 0.005),
    ] {
        assert!((half_unit(printed) - half).abs() < 1e-12, "{printed}");
    }
}
