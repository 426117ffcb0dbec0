//! Named schedules for every design of the seed papers, each citing its figure or table.
//!
//! A preset is a starting point: take its [`ScheduleSpec`] with [`preset_spec`], change any
//! field ([`ScheduleSpec::set`]) and validate again ([`ScheduleSpec::build`]).

use crate::error::ScheduleError;
use crate::schedule::Schedule;
use crate::spec::{RoundDatapath, ScheduleSpec};
use crate::validate::join;

/// One preset as constant data.
struct Preset {
    name: &'static str,
    source: &'static str,
    size: u32,
    k: u32,
    p: u32,
    s: u32,
    round_pipeline: bool,
    round_datapath: RoundDatapath,
    shared_key_schedule_adder: bool,
    first_subkey_cycle: bool,
    config_precomputed: bool,
}

/// Long 2009's designs: UBI only, Config UBI precomputed (4.2: "we exclude the first UBI
/// operation on the configuration value"), subkey 0 without a cycle of its own (72 cycles).
const fn long(
    name: &'static str,
    source: &'static str,
    size: u32,
    k: u32,
    round_datapath: RoundDatapath,
) -> Preset {
    Preset {
        name,
        source,
        size,
        k,
        p: 1,
        s: 1,
        round_pipeline: false,
        round_datapath,
        shared_key_schedule_adder: false,
        first_subkey_cycle: false,
        config_precomputed: true,
    }
}

/// Athanasiou 2013's Skein-512 designs: full Hash/MAC with a Config UBI state (3.1.1), one
/// cycle for subkey 0 unless a structural pipeline forms it in Key Generation 0 (3.2.2).
const fn ath(name: &'static str, source: &'static str, k: u32, p: u32, s: u32) -> Preset {
    Preset {
        name,
        source,
        size: 512,
        k,
        p,
        s,
        round_pipeline: false,
        round_datapath: RoundDatapath::Baseline,
        shared_key_schedule_adder: false,
        first_subkey_cycle: s == 1,
        config_precomputed: false,
    }
}

const PRESETS: [Preset; 20] = [
    long(
        "long-iter-256",
        "Long 2009, Fig. 7 (iterative round), Table 1",
        256,
        1,
        RoundDatapath::Baseline,
    ),
    long(
        "long-iter-512",
        "Long 2009, Fig. 7 (iterative round), Tables 1 and 3",
        512,
        1,
        RoundDatapath::Baseline,
    ),
    long(
        "long-iter-1024",
        "Long 2009, Fig. 7 (iterative round), Table 1",
        1024,
        1,
        RoundDatapath::Baseline,
    ),
    long(
        "long-unroll4-512",
        "Long 2009, Fig. 8 (4 rounds unrolled, 18 iterations), Table 3",
        512,
        4,
        RoundDatapath::Baseline,
    ),
    Preset {
        // Fig. 9 draws registers between consecutive rounds of the whole cipher, as in a
        // pipelined AES counter mode: all 72 rounds unrolled, one register after each.
        round_pipeline: true,
        p: 72,
        ..long(
            "long-pipe-512",
            "Long 2009, Fig. 9 (register between rounds, for tree hashing)",
            512,
            72,
            RoundDatapath::Baseline,
        )
    },
    Preset {
        shared_key_schedule_adder: true,
        ..long(
            "long-ks1-256",
            "Long 2009, section 3.4.1, Fig. 12 (one key-schedule adder)",
            256,
            1,
            RoundDatapath::Baseline,
        )
    },
    long(
        "long-outshare-256",
        "Long 2009, section 3.4.2, Fig. 13 (half the subkey adders)",
        256,
        1,
        RoundDatapath::HalfSubkeyAdders,
    ),
    long(
        "long-inshare-256",
        "Long 2009, section 3.4.3, Fig. 14(a) (half the MIX adders)",
        256,
        1,
        RoundDatapath::HalfMixAdders,
    ),
    long(
        "long-split-256",
        "Long 2009, section 3.4.3, Fig. 14(b) (register inside the round)",
        256,
        1,
        RoundDatapath::SplitRound,
    ),
    long(
        "long-overlap-256",
        "Long 2009, section 3.4.4, Fig. 15 (MIX/key-addition overlap)",
        256,
        1,
        RoundDatapath::MixKeyOverlap,
    ),
    ath(
        "ath-1r",
        "Athanasiou et al. 2013, section 3.1.1, Figs. 1-3, Fig. 6",
        1,
        1,
        1,
    ),
    ath(
        "ath-4r",
        "Athanasiou et al. 2013, section 3.1.2, Fig. 6",
        4,
        1,
        1,
    ),
    ath(
        "ath-8r",
        "Athanasiou et al. 2013, section 3.1.3, Fig. 6",
        8,
        1,
        1,
    ),
    ath(
        "ath-8r-2fp",
        "Athanasiou et al. 2013, section 3.2.1, Fig. 4, Fig. 7 (8r_2Fp)",
        8,
        2,
        1,
    ),
    ath(
        "ath-8r-4fp",
        "Athanasiou et al. 2013, section 3.2.1, Fig. 4, Fig. 7 (8r_4Fp)",
        8,
        4,
        1,
    ),
    ath(
        "ath-8r-8fp",
        "Athanasiou et al. 2013, section 3.2.1, Fig. 4, Fig. 7 (8r_8Fp)",
        8,
        8,
        1,
    ),
    ath(
        "ath-8r-3sp",
        "Athanasiou et al. 2013, section 3.2.2, Fig. 5, Fig. 8 (8r_nFp_3Sp)",
        8,
        1,
        3,
    ),
    ath(
        "ath-8r-2fp-3sp",
        "Athanasiou et al. 2013, section 3.2.3, Fig. 8 (8r_2Fp_3Sp)",
        8,
        2,
        3,
    ),
    ath(
        "ath-8r-4fp-3sp",
        "Athanasiou et al. 2013, section 3.2.3, Fig. 8 (8r_4Fp_3Sp)",
        8,
        4,
        3,
    ),
    ath(
        "ath-8r-8fp-3sp",
        "Athanasiou et al. 2013, section 3.2.3, Fig. 8 (8r_8Fp_3Sp)",
        8,
        8,
        3,
    ),
];

impl Preset {
    fn spec(&self) -> ScheduleSpec {
        ScheduleSpec {
            name: self.name.to_owned(),
            source: self.source.to_owned(),
            size: self.size,
            rounds_per_cycle: self.k,
            functional_stages: self.p,
            structural_stages: self.s,
            round_pipeline: self.round_pipeline,
            round_datapath: self.round_datapath,
            shared_key_schedule_adder: self.shared_key_schedule_adder,
            first_subkey_cycle: self.first_subkey_cycle,
            config_precomputed: self.config_precomputed,
        }
    }
}

/// The preset names, in the order of the papers.
pub fn preset_names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|p| p.name)
}

/// The editable spec of a preset, to override fields and validate again.
pub fn preset_spec(name: &str) -> Result<ScheduleSpec, ScheduleError> {
    PRESETS
        .iter()
        .find(|p| p.name == name)
        .map(Preset::spec)
        .ok_or_else(|| ScheduleError::UnknownPreset {
            name: name.to_owned(),
            known: join(preset_names()),
        })
}

/// A preset, validated.
pub fn preset(name: &str) -> Result<Schedule, ScheduleError> {
    preset_spec(name)?.build()
}

/// Every preset, validated, in the order of the papers.
pub fn presets() -> Vec<Schedule> {
    PRESETS
        .iter()
        .map(|p| {
            p.spec()
                .build()
                .unwrap_or_else(|e| panic!("preset {} is invalid: {e}", p.name))
        })
        .collect()
}
