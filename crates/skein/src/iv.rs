//! Precomputed initial chaining values (Skein 1.3, Appendix C "precomputed IVs"): the Config
//! UBI result of every standard configuration (no key, no optional arguments, sequential
//! hashing) for the common output sizes of each state size. With them a plain hasher starts
//! without a Threefish call, so a one-block message costs two blocks (message and output)
//! instead of three. Any other configuration is computed once per hasher by
//! [`crate::initial_chain`] and kept for `clone` and `reset`.
//!
//! The values are those printed in Appendix C; a test recomputes every entry through the
//! Config UBI.

/// Skein-256 IVs: (output bits, chaining value).
pub const SKEIN_256: [(u64, [u64; 4]); 4] = [
    (
        128,
        [
            0xE111_1906_964D_7260,
            0x883D_AAA7_7C8D_811C,
            0x1008_0DF4_9196_0F7A,
            0xCCF7_DDE5_B45B_C1C2,
        ],
    ),
    (
        160,
        [
            0x1420_2314_7282_5E98,
            0x2AC4_E9A2_5A77_E590,
            0xD47A_5856_8838_D63E,
            0x2DD2_E496_8586_AB7D,
        ],
    ),
    (
        224,
        [
            0xC609_8A8C_9AE5_EA0B,
            0x876D_5686_08C5_191C,
            0x99CB_88D7_D7F5_3884,
            0x384B_DDB1_AEDD_B5DE,
        ],
    ),
    (
        256,
        [
            0xFC9D_A860_D048_B449,
            0x2FCA_6647_9FA7_D833,
            0xB33B_C389_6656_840F,
            0x6A54_E920_FDE8_DA69,
        ],
    ),
];

/// Skein-512 IVs: (output bits, chaining value).
pub const SKEIN_512: [(u64, [u64; 8]); 6] = [
    (
        128,
        [
            0xA8BC_7BF3_6FBF_9F52,
            0x1E98_72CE_BD1A_F0AA,
            0x309B_1790_B321_90D3,
            0xBCFB_B854_3F94_805C,
            0x0DA6_1BCD_6E31_B11B,
            0x1A18_EBEA_D46A_32E3,
            0xA2CC_5B18_CE84_AA82,
            0x6982_AB28_9D46_982D,
        ],
    ),
    (
        160,
        [
            0x28B8_1A2A_E013_BD91,
            0xC2F1_1668_B5BD_F78F,
            0x1760_D8F3_F6A5_6F12,
            0x4FB7_4758_8239_904F,
            0x21ED_E07F_7EAF_5056,
            0xD908_922E_63ED_70B8,
            0xB8EC_76FF_ECCB_52FA,
            0x01A4_7BB8_A3F2_7A6E,
        ],
    ),
    (
        224,
        [
            0xCCD0_6162_4867_7224,
            0xCBA6_5CF3_A923_39EF,
            0x8CCD_69D6_52FF_4B64,
            0x398A_ED7B_3AB8_90B4,
            0x0F59_D1B1_457D_2BD0,
            0x6776_FE65_75D4_EB3D,
            0x99FB_C70E_9974_13E9,
            0x9E2C_FCCF_E1C4_1EF7,
        ],
    ),
    (
        256,
        [
            0xCCD0_44A1_2FDB_3E13,
            0xE835_9030_1A79_A9EB,
            0x55AE_A061_4F81_6E6F,
            0x2A27_67A4_AE9B_94DB,
            0xEC06_025E_74DD_7683,
            0xE7A4_36CD_C474_6251,
            0xC36F_BAF9_393A_D185,
            0x3EED_BA18_33ED_FC13,
        ],
    ),
    (
        384,
        [
            0xA3F6_C6BF_3A75_EF5F,
            0xB0FE_F9CC_FD84_FAA4,
            0x9D77_DD66_3D77_0CFE,
            0xD798_CBF3_B468_FDDA,
            0x1BC4_A666_8A0E_4465,
            0x7ED7_D434_E580_7407,
            0x548F_C1AC_D4EC_44D6,
            0x266E_1754_6AA1_8FF8,
        ],
    ),
    (
        512,
        [
            0x4903_ADFF_749C_51CE,
            0x0D95_DE39_9746_DF03,
            0x8FD1_9341_27C7_9BCE,
            0x9A25_5629_FF35_2CB1,
            0x5DB6_2599_DF6C_A7B0,
            0xEABE_394C_A9D5_C3F4,
            0x9911_12C7_1A75_B523,
            0xAE18_A40B_660F_CC33,
        ],
    ),
];

/// Skein-1024 IVs: (output bits, chaining value).
pub const SKEIN_1024: [(u64, [u64; 16]); 3] = [
    (
        384,
        [
            0x5102_B6B8_C189_4A35,
            0xFEEB_C9E3_FE8A_F11A,
            0x0C80_7F06_E32B_ED71,
            0x60C1_3A52_B41A_91F6,
            0x9716_D35D_D491_7C38,
            0xE780_DF12_6FD3_1D3A,
            0x7978_46B6_C898_303A,
            0xB172_C2A8_B357_2A3B,
            0xC9BC_8203_A610_4A6C,
            0x6590_9338_D756_24F4,
            0x94BC_C568_4B3F_81A0,
            0x3EBB_F51E_10EC_FD46,
            0x2DF5_0F0B_EEB0_8542,
            0x3B5A_6530_0DBC_6516,
            0x484B_9CD2_167B_BCE1,
            0x2D13_6947_D4CB_AFEA,
        ],
    ),
    (
        512,
        [
            0xCAEC_0E5D_7C1B_1B18,
            0xA01B_0E04_5F03_E802,
            0x3384_0451_ED91_2885,
            0x374A_FB04_EAEC_2E1C,
            0xDF25_A0E2_8135_81F7,
            0xE400_4093_8B12_F9D2,
            0xA662_D539_C2ED_39B6,
            0xFA8B_85CF_45D8_C75A,
            0x8316_ED8E_29ED_E796,
            0x0532_89C0_2E9F_91B8,
            0xC3F8_EF1D_6D51_8B73,
            0xBDCE_C3C4_D5EF_332E,
            0x549A_7E52_2297_4487,
            0x6707_0872_5B74_9816,
            0xB9CD_28FB_F058_1BD1,
            0x0E29_40B8_1580_4974,
        ],
    ),
    (
        1024,
        [
            0xD593_DA07_41E7_2355,
            0x15B5_E511_AC73_E00C,
            0x5180_E5AE_BAF2_C4F0,
            0x03BD_41D3_FCBC_AFAF,
            0x1CAE_C6FD_1983_A898,
            0x6E51_0B8B_CDD0_589F,
            0x77E2_BDFD_C639_4ADA,
            0xC11E_1DB5_24DC_B0A3,
            0xD6D1_4AF9_C632_9AB5,
            0x6A9B_0BFC_6EB6_7E0D,
            0x9243_C60D_CCFF_1332,
            0x1A1F_1DDE_743F_02D4,
            0x0996_753C_10ED_0BB8,
            0x6572_DD22_F2B4_969A,
            0x61FD_3062_D00A_579A,
            0x1DE0_536E_8682_E539,
        ],
    ),
];

/// The precomputed IV of plain Skein with `N` words and `out_bits` output bits, if the table
/// has it.
#[inline]
pub fn precomputed<const N: usize>(out_bits: u64) -> Option<[u64; N]> {
    fn find<const M: usize, const N: usize>(
        table: &[(u64, [u64; M])],
        out_bits: u64,
    ) -> Option<[u64; N]> {
        let (_, iv) = table.iter().find(|(bits, _)| *bits == out_bits)?;
        iv.as_slice().try_into().ok()
    }
    match N {
        4 => find(&SKEIN_256, out_bits),
        8 => find(&SKEIN_512, out_bits),
        16 => find(&SKEIN_1024, out_bits),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::BlockType;
    use crate::hasher::{Params, config_string};

    /// Every entry equals the Config UBI of its configuration string, computed twice: by the
    /// fast UBI and by the spec-shaped reference (which never reads this table).
    fn recompute<const N: usize>(table: &[(u64, [u64; N])]) {
        for (out_bits, iv) in table {
            let fast = crate::ubi::ubi(
                [0u64; N],
                &config_string(*out_bits, None),
                BlockType::Config,
            );
            assert_eq!(&fast, iv, "Skein-{}-{out_bits}: fast Config UBI", N * 64);
            let reference = crate::reference::initial_chain::<N>(*out_bits, &Params::default());
            assert_eq!(
                &reference,
                iv,
                "Skein-{}-{out_bits}: reference Config UBI",
                N * 64
            );
            assert_eq!(precomputed::<N>(*out_bits).as_ref(), Some(iv));
        }
    }

    #[test]
    fn every_entry_is_the_config_ubi() {
        recompute(&SKEIN_256);
        recompute(&SKEIN_512);
        recompute(&SKEIN_1024);
    }

    #[test]
    fn other_configurations_are_not_in_the_table() {
        assert_eq!(precomputed::<8>(511), None);
        assert_eq!(precomputed::<4>(512), None);
        assert_eq!(precomputed::<16>(256), None);
    }
}
