//! Shabal schedules: validation, Table I's cycle counts, and the digest out of the simulated
//! datapath against the library for every unfolding factor and output size.

use proptest::prelude::*;
use skeinhw_sched::shabal::{self, ShabalSchedule, ShabalSpec, sim};
use skeinhw_sched::{AnySchedule, ScheduleError};

fn schedule(output_bits: u32, unfolding: u32) -> Result<ShabalSchedule, ScheduleError> {
    ShabalSpec {
        algorithm: "shabal".into(),
        name: "t".into(),
        source: String::new(),
        output_bits,
        unfolding,
    }
    .build()
}

/// Table I of the Shabal paper: cycles per 512-bit block for each unfolding factor.
const TABLE_I_CYCLES: [(u32, u32); 6] = [(1, 48), (2, 24), (3, 16), (4, 12), (6, 8), (8, 6)];

#[test]
fn presets_have_table_i_cycle_counts_in_the_trace() {
    for (f, cycles) in TABLE_I_CYCLES {
        let s = shabal::preset(&format!("shabal-unfold-{f}")).unwrap();
        assert_eq!(s.cycles_per_block(), cycles);
        // Measured from a simulated trace, not taken from the schedule: 3 blocks + 3 final.
        let message = [0x5a_u8; 130];
        let mut sink = sim::ShabalMemorySink::default();
        let report = sim::simulate(&s, &[sim::ShabalJob::bytes(&message)], &mut sink).unwrap();
        assert_eq!(report.passes, 6);
        assert_eq!(report.cycles_per_block(), Some(u64::from(cycles)));
        let ends: Vec<u64> = sink
            .records
            .iter()
            .filter(|r| r.iteration == 48)
            .map(|r| r.cycle)
            .collect();
        let expected: Vec<u64> = (1..=6).map(|p| p * u64::from(cycles)).collect();
        assert_eq!(ends, expected, "f = {f}");
        assert_eq!(
            sink.records.iter().filter(|r| r.out.is_some()).count(),
            1,
            "one digest"
        );
    }
}

#[test]
fn the_cycles_before_the_run_are_what_the_run_takes() {
    // Lengths around the block boundary (the padding's 1 bit adds a block to a whole one),
    // several messages back to back, each unfolding factor.
    let message = [0xa5_u8; 200];
    for (f, _) in TABLE_I_CYCLES {
        let s = shabal::preset(&format!("shabal-unfold-{f}")).unwrap();
        for lens in [&[0u64][..], &[511, 512, 513], &[1, 1023, 1024, 1025, 1600]] {
            let jobs: Vec<sim::ShabalJob> = lens
                .iter()
                .map(|&bits| sim::ShabalJob {
                    message: &message,
                    msg_bits: bits,
                })
                .collect();
            let report = sim::simulate(&s, &jobs, &mut sim::ShabalMemorySink::default()).unwrap();
            let counted: u64 = jobs.iter().map(|j| j.cycles(&s)).sum();
            assert_eq!(counted, report.cycles, "f = {f}, bits {lens:?}");
        }
    }
}

#[test]
fn bad_schedules_name_the_field() {
    let e = schedule(512, 5).unwrap_err().to_string();
    assert!(e.starts_with("unfolding = 5 does not divide"), "{e}");
    assert!(e.contains("1, 2, 3, 4, 6, 8, 12, 16, 24, 48"), "{e}");
    let e = schedule(500, 4).unwrap_err().to_string();
    assert!(e.starts_with("output_bits = 500"), "{e}");
    assert!(schedule(512, 0).is_err());
    let e = AnySchedule::from_json_str(
        r#"{"algorithm":"shabal","name":"x","output_bits":512,"unfolding":4,"size":512}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("unknown field `size`"), "{e}");
    let e = AnySchedule::from_json_str(r#"{"algorithm":"sha3","name":"x"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("algorithm = sha3 is not an algorithm"), "{e}");
    let e = AnySchedule::from_name_or_file("shabal-unfold-5")
        .unwrap_err()
        .to_string();
    assert!(e.contains("shabal-unfold-8") && e.contains("ath-1r"), "{e}");
}

#[test]
fn files_of_both_algorithms_round_trip() {
    for s in AnySchedule::presets() {
        let json = s.to_json_pretty();
        assert_eq!(AnySchedule::from_json_str(&json).unwrap(), s, "{json}");
    }
    let skein = AnySchedule::preset("ath-1r").unwrap();
    let AnySchedule::Skein(inner) = &skein else {
        panic!("ath-1r is Skein")
    };
    let mut value: serde_json::Value = serde_json::from_str(&inner.to_json_pretty()).unwrap();
    value["algorithm"] = "skein".into();
    assert_eq!(
        AnySchedule::from_json_str(&value.to_string()).unwrap(),
        skein
    );
}

#[test]
fn too_few_bits_is_the_librarys_error() {
    let s = shabal::preset("shabal-unfold-1").unwrap();
    let job = sim::ShabalJob {
        message: b"ab",
        msg_bits: 17,
    };
    let e = sim::simulate(&s, &[job], &mut sim::ShabalMemorySink::default()).unwrap_err();
    assert!(e.to_string().starts_with("message 0:"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn datapath_digest_is_the_librarys(
        unfolding in prop::sample::select(vec![1u32, 2, 3, 4, 6, 8, 12, 16, 24, 48]),
        output_bits in prop::sample::select(vec![192u32, 224, 256, 384, 512]),
        messages in prop::collection::vec(
            (prop::collection::vec(any::<u8>(), 0..200), 0u64..8), 1..4),
    ) {
        let s = schedule(output_bits, unfolding).unwrap();
        let jobs: Vec<sim::ShabalJob<'_>> = messages
            .iter()
            .map(|(m, cut)| sim::ShabalJob {
                message: m,
                msg_bits: (m.len() as u64 * 8).saturating_sub(*cut),
            })
            .collect();
        let mut sink = sim::ShabalMemorySink::default();
        let report = sim::simulate(&s, &jobs, &mut sink).unwrap();
        let mut cycles = 0;
        for (job, digest) in jobs.iter().zip(&report.digests) {
            let expected =
                skeinhw_shabal::hash(u64::from(output_bits), job.message, job.msg_bits).unwrap();
            prop_assert_eq!(digest, &expected);
            let blocks = job.msg_bits / 512 + 1;
            cycles += s.cycles_per_message(blocks);
        }
        prop_assert_eq!(report.cycles, cycles);
        prop_assert_eq!(sink.records.len() as u64, cycles);
        // The digest on the output lines is the library's, word by word.
        let outs: Vec<_> = sink.records.iter().filter_map(|r| r.out).collect();
        prop_assert_eq!(outs.len(), jobs.len());
        for (o, digest) in outs.iter().zip(&report.digests) {
            let bytes: Vec<u8> = o.data[..s.output_words()]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            prop_assert_eq!(&bytes, digest);
        }
    }
}
