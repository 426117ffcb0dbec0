//! The 128-bit UBI tweak (Skein 1.3, section 3.5.2, Figure 4 and Table 5).
//!
//! | bits      | field      |
//! |-----------|------------|
//! | 0..96     | Position: bytes processed so far, including this block |
//! | 112..119  | TreeLevel  |
//! | 119       | BitPad     |
//! | 120..126  | Type       |
//! | 126       | First      |
//! | 127       | Final      |

use crate::constants::BlockType;

/// Bit position of the tree level field in the 128-bit tweak.
pub const TREE_LEVEL_SHIFT: u32 = 112;
/// Bit position of the BitPad flag in the 128-bit tweak.
pub const BIT_PAD_BIT: u32 = 119;
/// Bit position of the Type field in the 128-bit tweak.
pub const TYPE_SHIFT: u32 = 120;
/// Bit position of the First flag in the 128-bit tweak.
pub const FIRST_BIT: u32 = 126;
/// Bit position of the Final flag in the 128-bit tweak.
pub const FINAL_BIT: u32 = 127;
/// Width of the Position field in bits.
pub const POSITION_BITS: u32 = 96;
/// Mask of the Position field.
pub const POSITION_MASK: u128 = (1u128 << POSITION_BITS) - 1;

/// A UBI tweak, field by field, in the spec's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tweak {
    /// Position: the number of bytes processed so far, including this block (96 bits).
    pub position: u128,
    /// Tree level (0 outside tree hashing; 7 bits).
    pub tree_level: u8,
    /// The last block was bit-padded.
    pub bit_pad: bool,
    /// Block type.
    pub block_type: BlockType,
    /// First block of a UBI call.
    pub first: bool,
    /// Last block of a UBI call.
    pub last: bool,
}

impl Tweak {
    /// The starting tweak of a UBI call: position offset, level and type, no flags.
    pub const fn start(block_type: BlockType, tree_level: u8, position: u128) -> Self {
        Tweak {
            position,
            tree_level,
            bit_pad: false,
            block_type,
            first: false,
            last: false,
        }
    }

    /// Packs the fields into the 128-bit value of the spec.
    pub const fn to_u128(self) -> u128 {
        (self.position & POSITION_MASK)
            | ((self.tree_level as u128 & 0x7f) << TREE_LEVEL_SHIFT)
            | ((self.bit_pad as u128) << BIT_PAD_BIT)
            | ((self.block_type.value() as u128) << TYPE_SHIFT)
            | ((self.first as u128) << FIRST_BIT)
            | ((self.last as u128) << FINAL_BIT)
    }

    /// The two 64-bit tweak words t0, t1 that Threefish takes.
    pub const fn words(self) -> [u64; 2] {
        let v = self.to_u128();
        [v as u64, (v >> 64) as u64]
    }

    /// Reads the fields back from the two tweak words; `None` for a type value the spec does not
    /// define.
    pub fn from_words(words: [u64; 2]) -> Option<Self> {
        let v = (words[0] as u128) | ((words[1] as u128) << 64);
        let block_type = match ((v >> TYPE_SHIFT) & 0x3f) as u8 {
            0 => BlockType::Key,
            4 => BlockType::Config,
            8 => BlockType::Personalization,
            12 => BlockType::PublicKey,
            16 => BlockType::KeyIdentifier,
            20 => BlockType::Nonce,
            48 => BlockType::Message,
            63 => BlockType::Output,
            _ => return None,
        };
        Some(Tweak {
            position: v & POSITION_MASK,
            tree_level: ((v >> TREE_LEVEL_SHIFT) & 0x7f) as u8,
            bit_pad: (v >> BIT_PAD_BIT) & 1 == 1,
            block_type,
            first: (v >> FIRST_BIT) & 1 == 1,
            last: (v >> FINAL_BIT) & 1 == 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_tweak_matches_reference_code() {
        // The reference code's first config block tweak for a 32-byte config string:
        // T0 = 0x20, T1 = 0xC4 << 56 (First | Final | type 4), as in skein_golden_kat_internals.
        let t = Tweak {
            position: 32,
            first: true,
            last: true,
            ..Tweak::start(BlockType::Config, 0, 0)
        };
        assert_eq!(t.words(), [0x20, 0xC400_0000_0000_0000]);
        assert_eq!(Tweak::from_words(t.words()), Some(t));
    }
}
