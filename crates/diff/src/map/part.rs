//! The parts of the Shabal state as the trace names their words (`a_<i>`, `b_<i>`, `c_<i>`):
//! the map's vocabulary for a Shabal design, shared by its check, the event diff and the search.

use skeinhw_shabal::constants::{A_WORDS, BLOCK_WORDS};

/// A part of the Shabal state a register view holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// A, 12 words (`a_<i>`).
    A,
    /// B, 16 words (`b_<i>`).
    B,
    /// C, 16 words (`c_<i>`).
    C,
}

impl Part {
    /// A, B, C.
    pub const ALL: [Part; 3] = [Part::A, Part::B, Part::C];

    /// The trace's prefix of the part's words.
    pub fn prefix(self) -> &'static str {
        match self {
            Part::A => "a",
            Part::B => "b",
            Part::C => "c",
        }
    }

    /// Words of the part.
    pub fn words(self) -> usize {
        match self {
            Part::A => A_WORDS,
            Part::B | Part::C => BLOCK_WORDS,
        }
    }

    /// `a_3` -> (A, 3); `None` for any other name.
    pub fn field(name: &str) -> Option<(Part, usize)> {
        let (p, w) = name.split_once('_')?;
        let part = Part::ALL.into_iter().find(|x| x.prefix() == p)?;
        Some((part, w.parse().ok()?))
    }
}
