//! The FST writer writes what the VCD writer writes: read back through wellen, both files have
//! the same scopes, names, widths, time stamps, and every signal the same value at every time.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use skeinhw_sched::preset;
use skeinhw_sched::shabal::{self as shabal_sched, sim as shabal_sim};
use skeinhw_sched::sim::{Job, TraceSink, simulate};
use skeinhw_skein::Params;
use skeinhw_trace::shabal::{ShabalFstWriter, ShabalVcdWriter};
use skeinhw_trace::{FstWriter, VcdWriter};

/// Every variable of a waveform: full name -> (width, [(time, bits)] at each change).
type Changes = BTreeMap<String, (u32, Vec<(u64, String)>)>;

fn changes(path: &Path) -> (Vec<u64>, Changes) {
    let mut wave = wellen::simple::read(path).unwrap();
    let h = wave.hierarchy();
    let vars: Vec<_> = h
        .all_vars()
        .map(|r| {
            let v = &h[r];
            (v.full_name(h), v.length(h).unwrap(), v.signal_ref())
        })
        .collect();
    let refs: Vec<_> = vars.iter().map(|v| v.2).collect();
    wave.load_signals(&refs);
    let times = wave.time_table().to_vec();
    let mut out = Changes::new();
    for (name, width, r) in vars {
        let signal = wave.get_signal(r).unwrap();
        let list = signal
            .iter_changes()
            .map(|(t, v)| (times[t as usize], v.to_bit_string().unwrap()))
            .collect();
        assert!(out.insert(name, (width, list)).is_none(), "one name each");
    }
    (times, out)
}

fn assert_same_waves(vcd: &Path, fst: &Path, what: &str) {
    let (vcd_times, vcd) = changes(vcd);
    let (fst_times, fst) = changes(fst);
    assert_eq!(fst_times, vcd_times, "{what}: time stamps");
    assert_eq!(
        fst.keys().collect::<Vec<_>>(),
        vcd.keys().collect::<Vec<_>>(),
        "{what}: names"
    );
    assert!(vcd.contains_key("skeinhw.clk"), "{what}: scope");
    for (name, v) in &vcd {
        assert_eq!(&fst[name], v, "{what}: {name}");
    }
}

fn write_both(dir: &Path, name: &str, run: impl Fn(&mut dyn TraceSink)) {
    let vcd = dir.join(format!("{name}.vcd"));
    let fst = dir.join(format!("{name}.fst"));
    let mut w = VcdWriter::new(BufWriter::new(File::create(&vcd).unwrap()));
    run(&mut w);
    let mut w = FstWriter::new(BufWriter::new(File::create(&fst).unwrap()));
    run(&mut w);
    assert!(w.into_inner().is_some(), "finished");
    assert_same_waves(&vcd, &fst, name);
}

#[test]
fn fst_holds_the_vcd_signals_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let msg = vec![0xa5u8; 700];
    for name in [
        "ath-1r",
        "ath-8r-2fp-3sp",
        "long-split-256",
        "long-iter-1024",
    ] {
        let s = preset(name).unwrap();
        let bits = u64::from(s.size().bits());
        let key = [3u8; 5];
        let jobs = [
            Job::bytes(&msg, bits, Params::default()),
            Job::bytes(
                b"x",
                2 * bits,
                Params {
                    key: &key,
                    ..Params::default()
                },
            ),
        ];
        write_both(dir.path(), name, |sink| {
            simulate(&s, &jobs, sink).unwrap();
        });
    }
}

#[test]
fn shabal_fst_holds_the_vcd_signals_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let s = shabal_sched::preset("shabal-unfold-4").unwrap();
    let jobs = [shabal_sim::ShabalJob::bytes(&[1u8; 150])];
    let vcd = dir.path().join("s.vcd");
    let fst = dir.path().join("s.fst");
    let mut w = ShabalVcdWriter::new(BufWriter::new(File::create(&vcd).unwrap()));
    shabal_sim::simulate(&s, &jobs, &mut w).unwrap();
    let mut w = ShabalFstWriter::new(BufWriter::new(File::create(&fst).unwrap()));
    shabal_sim::simulate(&s, &jobs, &mut w).unwrap();
    assert!(w.into_inner().is_some());
    assert_same_waves(&vcd, &fst, "shabal-unfold-4");
}

/// A trace long enough that the writer compresses several blocks (32 MiB of buffered changes
/// each) reads back whole: the time stamps of every block, the values across block borders.
#[test]
#[ignore = "writes about 100 MB of VCD; run with --ignored"]
fn a_long_fst_spans_several_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let msg = vec![0x3cu8; 256 << 10];
    let s = preset("ath-1r").unwrap();
    write_both(dir.path(), "long", |sink| {
        simulate(&s, &[Job::bytes(&msg, 512, Params::default())], sink).unwrap();
    });
}
