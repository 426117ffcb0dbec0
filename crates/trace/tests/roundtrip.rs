//! What the writers write, the readers read back: the same records as the in-memory sink, for
//! an iterative and a pipelined schedule; bad files are one-line errors; an uncommitted output
//! file leaves nothing behind.

use std::io::{BufReader, Write};

use skeinhw_sched::preset;
use skeinhw_sched::sim::{Job, MemorySink, TraceSink, simulate};
use skeinhw_skein::Params;
use skeinhw_trace::{AtomicFile, JsonlReader, JsonlWriter, VcdWriter, read_vcd};

fn run(name: &str, sink: &mut dyn TraceSink) {
    let schedule = preset(name).unwrap();
    let params = Params {
        key: b"key",
        ..Params::default()
    };
    let jobs = [
        Job::bytes(b"first message", 300, params),
        Job::bytes(&[9u8; 200], 512, Params::default()),
    ];
    simulate(&schedule, &jobs, sink).unwrap();
}

#[test]
fn jsonl_and_vcd_read_back_what_the_simulator_wrote() {
    for name in ["ath-1r", "ath-8r-2fp-3sp", "long-split-256"] {
        let mut memory = MemorySink::new();
        run(name, &mut memory);

        let mut jsonl = JsonlWriter::new(Vec::new());
        run(name, &mut jsonl);
        let bytes = jsonl.into_inner();
        let reader = JsonlReader::new(&bytes[..]).unwrap();
        assert_eq!(Some(reader.header()), memory.header.as_ref());
        let records: Vec<_> = reader.map(Result::unwrap).collect();
        assert_eq!(records, memory.records, "{name} jsonl");

        let mut bytes = Vec::new();
        run(name, &mut VcdWriter::new(&mut bytes));
        let (header, records) = read_vcd(BufReader::new(&bytes[..])).unwrap();
        assert_eq!(Some(&header), memory.header.as_ref());
        assert_eq!(records.len(), memory.records.len(), "{name} vcd");
        for (got, want) in records.iter().zip(&memory.records) {
            // out_* data lines hold their last value in a VCD; compare them only when valid.
            assert_eq!(got, want, "{name} vcd cycle {}", want.cycle);
        }
    }
}

#[test]
fn in_ready_round_trips_and_an_old_trace_without_it_still_reads() {
    let mut memory = MemorySink::new();
    run("ath-8r-2fp-3sp", &mut memory);
    let header = memory.header.as_ref().unwrap();
    // Six streams in the design (2 x 3 slots), two fed: the bits of 2..6 stay 1.
    assert_eq!(header.in_ready, 6);
    assert!(memory.records.iter().all(|r| r.in_ready.len() == 6));
    assert!(
        memory
            .records
            .iter()
            .all(|r| r.in_ready[2..].iter().all(|&b| b))
    );
    assert!(memory.records.iter().any(|r| !r.in_ready[0]));

    let mut jsonl = JsonlWriter::new(Vec::new());
    run("ath-8r-2fp-3sp", &mut jsonl);
    let text = String::from_utf8(jsonl.into_inner()).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert_eq!(first["in_ready"].as_array().unwrap().len(), 6);
    let records: Vec<_> = JsonlReader::new(text.as_bytes())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(records, memory.records);

    // The VCD has the bits as fields and as the core's 6-bit port (what signal_map.json maps).
    let mut vcd = Vec::new();
    run("ath-8r-2fp-3sp", &mut VcdWriter::new(&mut vcd));
    let vcd = String::from_utf8(vcd).unwrap();
    assert!(
        vcd.contains(" 6 ") && vcd.contains(" in_ready $end"),
        "no port"
    );
    assert!(
        vcd.contains(" 1 ") && vcd.contains(" in_ready_5 $end"),
        "no field"
    );

    // The same trace as written before the field: no `in_ready` in the header or a record.
    let mut old = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let removed = v.as_object_mut().unwrap().remove("in_ready");
        assert!(removed.is_some(), "line {} has in_ready", i + 1);
        old.push_str(&v.to_string());
        old.push('\n');
    }
    let reader = JsonlReader::new(old.as_bytes()).unwrap();
    assert_eq!(reader.header().in_ready, 0);
    let records: Vec<_> = reader.map(Result::unwrap).collect();
    assert_eq!(records.len(), memory.records.len());
    for (got, want) in records.iter().zip(&memory.records) {
        assert!(got.in_ready.is_empty());
        assert_eq!(got.slots, want.slots);
        assert_eq!(got.out, want.out);
    }

    // A record whose bits disagree with the header is a one-line error naming the line.
    let bad = text.replacen("\"in_ready\":[false,", "\"in_ready\":[", 1);
    let err = JsonlReader::new(bad.as_bytes())
        .unwrap()
        .find_map(Result::err)
        .unwrap()
        .to_string();
    assert!(
        err.contains("in_ready has 5 bits; the header says 6"),
        "{err}"
    );
}

#[test]
fn jsonl_lines_are_fixed_width_hex() {
    let mut jsonl = JsonlWriter::new(Vec::new());
    run("ath-1r", &mut jsonl);
    let text = String::from_utf8(jsonl.into_inner()).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["schema_version"], 1);
    assert_eq!(header["schedule"]["name"], "ath-1r");
    let first: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(first["cycle"], 1);
    assert_eq!(first["phase"], "key");
    let state = first["slots"][0]["state"].as_array().unwrap();
    assert_eq!(state.len(), 8);
    assert!(state.iter().all(|w| w.as_str().unwrap().len() == 16));
    assert_eq!(first["slots"][0]["key"].as_array().unwrap().len(), 9);
}

#[test]
fn bad_jsonl_is_a_one_line_error_with_the_line_number() {
    let mut jsonl = JsonlWriter::new(Vec::new());
    run("ath-1r", &mut jsonl);
    let text = String::from_utf8(jsonl.into_inner()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[3] = lines[3].replacen("\"state\":[\"", "\"state\":[\"zz", 1);
    let bad = lines.join("\n");
    let err = JsonlReader::new(bad.as_bytes())
        .unwrap()
        .find_map(Result::err)
        .unwrap()
        .to_string();
    assert!(err.starts_with("line 4: slots[0].state[0]"), "{err}");
    assert!(!err.contains('\n'));
    // A word short: named with its count; a word spelled with a JSON escape: the same word.
    let mut short = text.lines().map(str::to_owned).collect::<Vec<_>>();
    short[2] = short[2].replacen("\"key\":[\"0000000000000000\",", "\"key\":[", 1);
    let err = JsonlReader::new(short.join("\n").as_bytes())
        .unwrap()
        .find_map(Result::err)
        .unwrap()
        .to_string();
    assert_eq!(err, "line 3: slots[0].key has 8 words; expected 9");
    let mut long = text.lines().map(str::to_owned).collect::<Vec<_>>();
    let extra = "\"0000000000000000\",".repeat(20);
    long[2] = long[2].replacen("\"key\":[", &format!("\"key\":[{extra}"), 1);
    let err = JsonlReader::new(long.join("\n").as_bytes())
        .unwrap()
        .find_map(Result::err)
        .unwrap()
        .to_string();
    assert_eq!(err, "line 3: slots[0].key has 29 words; expected 9");
    let escaped = text.replacen("\"0000000000000000\"", "\"\\u0030000000000000000\"", 1);
    assert_ne!(escaped, text);
    let read = |t: &str| -> Vec<_> {
        JsonlReader::new(t.as_bytes())
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(read(&escaped), read(&text));

    let err = JsonlReader::new(&b"{\"schema_version\":9}\n"[..]).unwrap_err();
    assert!(
        err.to_string().starts_with("line 1: not a trace header"),
        "{err}"
    );
    let err = JsonlReader::new(&b""[..]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 1: empty file: expected the header line"
    );
    let err = read_vcd(&b"$enddefinitions $end\n"[..]).unwrap_err();
    assert!(err.to_string().contains("not a skeinhw trace"), "{err}");
}

#[test]
fn an_uncommitted_file_leaves_nothing_and_a_committed_one_replaces_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, "what the user had\n").unwrap();
    {
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"half").unwrap();
        // dropped: an error happened
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "what the user had\n"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    let mut f = AtomicFile::create(&path).unwrap();
    f.write_all(b"new\n").unwrap();
    f.commit().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
