//! The hand-formatted VCD writer writes the bytes the `vcd` crate's writer wrote before it:
//! against digests of `skeinhw trace -o t.vcd` output taken before the change, and against
//! that writer itself (kept here as `reference`) on more schedules.

use std::io::{self, Write};

use skeinhw_sched::preset;
use skeinhw_sched::shabal::{self as shabal_sched, sim as shabal_sim};
use skeinhw_sched::sim::{CycleRecord, Job, TraceHeader, TraceSink, simulate};
use skeinhw_skein::Params;
use skeinhw_trace::shabal::ShabalVcdWriter;
use skeinhw_trace::{VcdWriter, names};

fn skein512(bytes: &[u8]) -> String {
    let d = skeinhw_skein::hash(512, 512, bytes, bytes.len() as u64 * 8, &Params::default());
    hex::encode(d.unwrap())
}

fn skein_vcd(schedule: &str, jobs: &[Job<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    simulate(
        &preset(schedule).unwrap(),
        jobs,
        &mut VcdWriter::new(&mut out),
    )
    .unwrap();
    out
}

/// `skeinhw hash` of `skeinhw trace ... -o t.vcd` as the binary wrote them before the new
/// writer (commit b85cb20): (command, bytes, Skein-512-512 digest).
#[test]
fn bytes_equal_the_old_binary_output() {
    let abc = skein_vcd("ath-1r", &[Job::bytes(b"abc", 512, Params::default())]);
    let two = skein_vcd(
        "ath-8r-2fp-3sp",
        &[
            Job::bytes(b"abc", 512, Params::default()),
            Job::bytes(b"defg", 512, Params::default()),
        ],
    );
    let key = [1u8, 2];
    let keyed = Params {
        key: &key,
        ..Params::default()
    };
    let msg = hex::decode("00112233445566778899").unwrap();
    let long = skein_vcd("long-split-256", &[Job::bytes(&msg, 256, keyed)]);
    let mut shabal = Vec::new();
    shabal_sim::simulate(
        &shabal_sched::preset("shabal-unfold-8").unwrap(),
        &[shabal_sim::ShabalJob::bytes(b"abc")],
        &mut ShabalVcdWriter::new(&mut shabal),
    )
    .unwrap();
    let cases = [
        (
            "trace --schedule ath-1r --hex 616263",
            abc,
            136_481,
            "3eec2e0e82065bbb38fc28c172d15182f45c14ff5c97cd97c2fd48fa478305d2\
             88f5dbca7458835960315abfd5405a86f50d8dbd1ddbc12168ab65d9e215a673",
        ),
        (
            "trace --schedule ath-8r-2fp-3sp --hex 616263 --more 64656667",
            two,
            108_338,
            "ab47404b868d33ba71e7c648c9d922c66e238ad35d267e47c1059fc3f6cc5064\
             47035946d3193a052cecfe6e5a697d14087bd37261843fbe16f33132f949c62f",
        ),
        (
            "trace --schedule long-split-256 --hex 00112233445566778899 --key 0102",
            long,
            163_600,
            "875561b7d97b075bc5050bfb7e13a7af6d5a3adf51b902c24a7e456bc26d07f2\
             43c9dce2a71cbff508facdf0165e460033a5feebce2899415b74c2c9bf6c507e",
        ),
        (
            "trace --schedule shabal-unfold-8 --hex 616263",
            shabal,
            26_763,
            "2d0df780aa455654831a491559c67cc42019f6771974d9e756934e1a85a5c64a\
             669614452ef692a93a1b345798322c06b0b01dfa217ff31f3a63693b48a155af",
        ),
    ];
    for (command, bytes, len, digest) in cases {
        assert_eq!(bytes.len(), len, "{command}: length");
        assert_eq!(skein512(&bytes), digest, "{command}: bytes");
    }
}

/// The writer as it was (the `vcd` crate's writer under the same change-only rule).
mod reference {
    use super::*;
    use vcd::{IdCode, TimescaleUnit, Value};

    pub struct OldVcd<W: Write> {
        vcd: vcd::Writer<W>,
        ids: Vec<IdCode>,
        widths: Vec<u32>,
        prev: Vec<u64>,
        values: Vec<u64>,
        port: bool,
    }

    impl<W: Write> OldVcd<W> {
        pub fn new(out: W) -> Self {
            OldVcd {
                vcd: vcd::Writer::new(out),
                ids: Vec::new(),
                widths: Vec::new(),
                prev: Vec::new(),
                values: Vec::new(),
                port: false,
            }
        }

        fn change(&mut self, i: usize, v: u64) -> io::Result<()> {
            let bit = |b: u32| {
                if (v >> b) & 1 == 1 {
                    Value::V1
                } else {
                    Value::V0
                }
            };
            if self.widths[i] == 1 {
                self.vcd.change_scalar(self.ids[i], bit(0))
            } else {
                self.vcd
                    .change_vector(self.ids[i], (0..self.widths[i]).rev().map(bit))
            }
        }
    }

    impl<W: Write> TraceSink for OldVcd<W> {
        fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
            let json = serde_json::to_string(header).map_err(io::Error::other)?;
            let mut signals = names::trace_signals(header);
            self.port = (1..=64).contains(&header.in_ready);
            if self.port {
                signals.push(names::Signal::new(
                    names::IN_READY_PORT,
                    header.in_ready as u32,
                ));
            }
            self.vcd.comment(&format!("skeinhw-trace {json}"))?;
            self.vcd.timescale(1, TimescaleUnit::NS)?;
            self.vcd.add_module(names::SCOPE)?;
            for sig in &signals {
                self.ids.push(self.vcd.add_wire(sig.width, &sig.name)?);
                self.widths.push(sig.width);
            }
            self.vcd.upscope()?;
            self.vcd.enddefinitions()?;
            self.vcd.timestamp(0)?;
            self.prev = vec![0; self.ids.len()];
            for i in 0..self.ids.len() {
                self.change(i, 0)?;
            }
            Ok(())
        }

        fn cycle(&mut self, r: &CycleRecord<'_>) -> io::Result<()> {
            let mut values = std::mem::take(&mut self.values);
            names::values(r, &mut values);
            if self.port {
                let packed = r
                    .in_ready
                    .iter()
                    .enumerate()
                    .fold(0u64, |v, (k, &b)| v | (u64::from(b) << k));
                values.push(packed);
            }
            let out_lines = 3..5 + r.words;
            let idle = r.out.is_none();
            self.vcd.timestamp(r.cycle * 10)?;
            for (i, &v) in values.iter().enumerate() {
                if (idle && out_lines.contains(&i)) || self.prev[i] == v {
                    continue;
                }
                self.change(i, v)?;
                self.prev[i] = v;
            }
            self.vcd.timestamp(r.cycle * 10 + 5)?;
            self.change(0, 0)?;
            self.prev[0] = 0;
            self.values = values;
            Ok(())
        }

        fn finish(&mut self) -> io::Result<()> {
            self.vcd.flush()
        }
    }
}

#[test]
fn bytes_equal_the_vcd_crate_writer_on_every_kind_of_schedule() {
    let key = [7u8; 40];
    let keyed = Params {
        key: &key,
        ..Params::default()
    };
    let long = vec![0x5au8; 3000];
    for schedule in [
        "ath-1r",
        "ath-8r",
        "long-iter-1024",
        "long-pipe-512",
        "ath-8r-8fp-3sp",
        "long-overlap-256",
    ] {
        let s = preset(schedule).unwrap();
        let bits = u64::from(s.size().bits());
        let jobs = [
            Job::bytes(&long, bits, keyed),
            Job::bytes(b"", 3 * bits + 8, Params::default()),
            Job::bytes(b"second", 100, Params::default()),
        ];
        let mut old = Vec::new();
        simulate(&s, &jobs, &mut reference::OldVcd::new(&mut old)).unwrap();
        let new = skein_vcd(schedule, &jobs);
        assert!(old.len() > 10_000, "{schedule}: a real trace");
        if old != new {
            let at = old.iter().zip(&new).position(|(a, b)| a != b).unwrap_or(0);
            let show = |v: &[u8]| {
                String::from_utf8_lossy(&v[at.saturating_sub(80)..(at + 80).min(v.len())])
                    .into_owned()
            };
            panic!(
                "{schedule}: differs at byte {at}:\nold {}\nnew {}",
                show(&old),
                show(&new)
            );
        }
    }
}
