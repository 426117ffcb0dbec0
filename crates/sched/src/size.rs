//! The Threefish state sizes and the per-size numbers every schedule is built from.
//!
//! Nr, Nw and the 4 rounds between subkeys come from the library's tables
//! (`skeinhw_skein::constants`), so that the schedules, the simulator and the cipher can never
//! disagree about them.

use std::fmt;

use skeinhw_skein::constants;

use serde::{Deserialize, Serialize};

use crate::error::ScheduleError;

/// Bits in one Threefish word (Skein 1.3, section 3.3: all arithmetic is on 64-bit words).
pub const WORD_BITS: u32 = 64;

/// Rounds of Threefish-256 and Threefish-512 (Skein 1.3, Table 2), from the library.
pub const ROUNDS_256_512: u32 = {
    assert!(constants::ROUNDS_256 == constants::ROUNDS_512);
    constants::ROUNDS_256 as u32
};

/// Rounds of Threefish-1024 (Skein 1.3, Table 2), from the library.
pub const ROUNDS_1024: u32 = constants::ROUNDS_1024 as u32;

/// A subkey is injected before round 0 and after every 4 rounds (Skein 1.3, section 3.3), so
/// there are Nr/4 + 1 subkeys. From the library.
pub const ROUNDS_PER_SUBKEY: u32 = constants::ROUNDS_PER_SUBKEY as u32;

/// The state sizes a schedule may have, as written in JSON.
pub const ALLOWED_SIZES: [u32; 3] = [256, 512, 1024];

/// A Threefish state (block and key) size. In JSON it is the plain number of bits: `512`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub enum StateSize {
    /// Skein-256 / Threefish-256: 4 words, 72 rounds.
    S256,
    /// Skein-512 / Threefish-512: 8 words, 72 rounds.
    S512,
    /// Skein-1024 / Threefish-1024: 16 words, 80 rounds.
    S1024,
}

impl StateSize {
    /// All sizes, smallest first.
    pub const ALL: [StateSize; 3] = [StateSize::S256, StateSize::S512, StateSize::S1024];

    /// The size for a number of state bits, or the error that names the `size` field.
    pub fn from_bits(bits: u32) -> Result<Self, ScheduleError> {
        match bits {
            256 => Ok(StateSize::S256),
            512 => Ok(StateSize::S512),
            1024 => Ok(StateSize::S1024),
            _ => Err(ScheduleError::invalid(
                "size",
                bits,
                "is not a Skein state size",
                crate::validate::join(ALLOWED_SIZES),
            )),
        }
    }

    /// State (= block = key) bits: 256, 512 or 1024.
    pub const fn bits(self) -> u32 {
        self.words() * WORD_BITS
    }

    /// Words Nw of the state: 4, 8 or 16 (the length of the library's permutation table).
    pub const fn words(self) -> u32 {
        match self {
            StateSize::S256 => constants::PERMUTATION_256.len() as u32,
            StateSize::S512 => constants::PERMUTATION_512.len() as u32,
            StateSize::S1024 => constants::PERMUTATION_1024.len() as u32,
        }
    }

    /// Rounds Nr: 72, 72 or 80 (the library's `constants::rounds`).
    pub const fn rounds(self) -> u32 {
        constants::rounds(self.words() as usize) as u32
    }

    /// Subkeys injected in one encryption: Nr/4 + 1 (19, 19, 21).
    pub const fn subkeys(self) -> u32 {
        self.rounds() / ROUNDS_PER_SUBKEY + 1
    }

    /// MIX functions in one round: Nw/2, one 64-bit adder each.
    pub const fn mix_per_round(self) -> u32 {
        self.words() / 2
    }
}

impl fmt::Display for StateSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Skein-{}", self.bits())
    }
}

impl TryFrom<u32> for StateSize {
    type Error = ScheduleError;

    fn try_from(bits: u32) -> Result<Self, Self::Error> {
        StateSize::from_bits(bits)
    }
}

impl From<StateSize> for u32 {
    fn from(size: StateSize) -> u32 {
        size.bits()
    }
}

/// The subkey injected right after round `round` (0-based), if any: subkey s follows round
/// 4s - 1 (Skein 1.3, section 3.3). Subkey 0 precedes round 0 and is not returned here.
pub const fn subkey_after_round(round: u32) -> Option<u32> {
    if (round + 1).is_multiple_of(ROUNDS_PER_SUBKEY) {
        Some((round + 1) / ROUNDS_PER_SUBKEY)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_size_numbers_follow_the_spec() {
        let table: Vec<_> = StateSize::ALL
            .iter()
            .map(|s| (s.bits(), s.words(), s.rounds(), s.subkeys()))
            .collect();
        assert_eq!(
            table,
            [(256, 4, 72, 19), (512, 8, 72, 19), (1024, 16, 80, 21)]
        );
    }

    #[test]
    fn numbers_are_the_librarys() {
        use skeinhw_skein::{Skein256, Skein512, Skein1024};
        let bits = [
            Skein256::STATE_BITS,
            Skein512::STATE_BITS,
            Skein1024::STATE_BITS,
        ];
        for (size, bits) in StateSize::ALL.iter().zip(bits) {
            assert_eq!(size.bits() as usize, bits);
            let nw = size.words() as usize;
            assert_eq!(size.rounds() as usize, constants::rounds(nw));
            assert_eq!(size.subkeys() as usize, constants::subkeys(nw));
            assert_eq!(
                size.mix_per_round() as usize,
                constants::permutation(nw).len() / 2
            );
        }
        assert_eq!(ROUNDS_PER_SUBKEY as usize, constants::ROUNDS_PER_SUBKEY);
    }

    #[test]
    fn subkeys_follow_every_fourth_round() {
        assert_eq!(subkey_after_round(0), None);
        assert_eq!(subkey_after_round(3), Some(1));
        assert_eq!(subkey_after_round(71), Some(18));
        let injections = (0..72).filter_map(subkey_after_round).count();
        assert_eq!(injections, 18, "Long 3.4.2: 18 of 72 rounds add a key");
    }

    #[test]
    fn unknown_size_names_the_field() {
        let err = StateSize::from_bits(384).unwrap_err();
        assert_eq!(
            err.to_string(),
            "size = 384 is not a Skein state size; allowed: 256, 512, 1024"
        );
    }
}
