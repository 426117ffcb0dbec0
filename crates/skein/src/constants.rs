//! The constant tables of Threefish and Skein, transcribed from the Skein 1.3 specification
//! (1 Oct 2010). Every other module, the schedule simulator, the Verilog generator and the
//! estimator read these tables; nothing else in the workspace spells a rotation constant or a
//! permutation index.

/// Key-schedule parity constant C240 (Skein 1.3, section 3.3.2): the AES-256 encryption of
/// 240, chosen so that the extended key word is never all zero.
pub const C240: u64 = 0x1BD1_1BDA_A9FC_1A22;

/// Rounds of Threefish-256 (Skein 1.3, Table 2).
pub const ROUNDS_256: usize = 72;
/// Rounds of Threefish-512 (Skein 1.3, Table 2).
pub const ROUNDS_512: usize = 72;
/// Rounds of Threefish-1024 (Skein 1.3, Table 2).
pub const ROUNDS_1024: usize = 80;

/// A subkey is injected before round 0 and after every 4 rounds (Skein 1.3, section 3.3).
pub const ROUNDS_PER_SUBKEY: usize = 4;

/// MIX rotation constants R_{d mod 8, j} of Threefish-256 (Skein 1.3, Table 4).
pub const ROTATION_256: [[u32; 2]; 8] = [
    [14, 16],
    [52, 57],
    [23, 40],
    [5, 37],
    [25, 33],
    [46, 12],
    [58, 22],
    [32, 32],
];

/// MIX rotation constants R_{d mod 8, j} of Threefish-512 (Skein 1.3, Table 4).
pub const ROTATION_512: [[u32; 4]; 8] = [
    [46, 36, 19, 37],
    [33, 27, 14, 42],
    [17, 49, 36, 39],
    [44, 9, 54, 56],
    [39, 30, 34, 24],
    [13, 50, 10, 17],
    [25, 29, 39, 43],
    [8, 35, 56, 22],
];

/// MIX rotation constants R_{d mod 8, j} of Threefish-1024 (Skein 1.3, Table 4).
pub const ROTATION_1024: [[u32; 8]; 8] = [
    [24, 13, 8, 47, 8, 17, 22, 37],
    [38, 19, 10, 55, 49, 18, 23, 52],
    [33, 4, 51, 13, 34, 41, 59, 17],
    [5, 20, 48, 41, 47, 28, 16, 25],
    [41, 9, 37, 31, 12, 47, 44, 30],
    [16, 34, 56, 51, 4, 53, 42, 41],
    [31, 44, 47, 46, 19, 42, 44, 25],
    [9, 48, 35, 52, 23, 31, 37, 20],
];

/// Word permutation pi of Threefish-256: after a round, word i is the old word `PERMUTATION_256[i]`
/// (Skein 1.3, Table 3).
pub const PERMUTATION_256: [usize; 4] = [0, 3, 2, 1];
/// Word permutation pi of Threefish-512 (Skein 1.3, Table 3).
pub const PERMUTATION_512: [usize; 8] = [2, 1, 4, 7, 6, 5, 0, 3];
/// Word permutation pi of Threefish-1024 (Skein 1.3, Table 3).
pub const PERMUTATION_1024: [usize; 16] = [0, 9, 2, 13, 6, 11, 4, 15, 10, 7, 12, 3, 14, 5, 8, 1];

/// Number of Threefish rounds for a state of `words` 64-bit words (4, 8 or 16).
pub const fn rounds(words: usize) -> usize {
    match words {
        16 => ROUNDS_1024,
        8 => ROUNDS_512,
        _ => ROUNDS_256,
    }
}

/// Number of subkeys injected in one encryption: Nr/4 + 1.
pub const fn subkeys(words: usize) -> usize {
    rounds(words) / ROUNDS_PER_SUBKEY + 1
}

/// Rotation constant R_{d mod 8, j} for round `d` and MIX `j` of a `words`-word state.
///
/// # Panics
/// If `words` is not 4, 8 or 16 or `j >= words / 2`.
pub const fn rotation(words: usize, d: usize, j: usize) -> u32 {
    match words {
        4 => ROTATION_256[d % 8][j],
        8 => ROTATION_512[d % 8][j],
        16 => ROTATION_1024[d % 8][j],
        _ => panic!("Threefish has 4, 8 or 16 words"),
    }
}

/// The word permutation pi of a `words`-word state.
///
/// # Panics
/// If `words` is not 4, 8 or 16.
pub const fn permutation(words: usize) -> &'static [usize] {
    match words {
        4 => &PERMUTATION_256,
        8 => &PERMUTATION_512,
        16 => &PERMUTATION_1024,
        _ => panic!("Threefish has 4, 8 or 16 words"),
    }
}

/// Type values of the UBI tweak, processed in increasing order (Skein 1.3, Table 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum BlockType {
    /// Key (for MAC and KDF).
    Key = 0,
    /// Configuration block.
    Config = 4,
    /// Personalization string.
    Personalization = 8,
    /// Public key (for digital signature hashing).
    PublicKey = 12,
    /// Key identifier (for KDF).
    KeyIdentifier = 16,
    /// Nonce (for stream cipher or randomized hashing).
    Nonce = 20,
    /// Message.
    Message = 48,
    /// Output.
    Output = 63,
}

impl BlockType {
    /// The 6-bit type value.
    pub const fn value(self) -> u8 {
        self as u8
    }

    /// The short name used in the reference code's debug output and in traces.
    pub const fn name(self) -> &'static str {
        match self {
            BlockType::Key => "KEY",
            BlockType::Config => "CFG",
            BlockType::Personalization => "PRS",
            BlockType::PublicKey => "PK",
            BlockType::KeyIdentifier => "KDF",
            BlockType::Nonce => "NON",
            BlockType::Message => "MSG",
            BlockType::Output => "OUT",
        }
    }
}

/// Schema identifier of the configuration string: the ASCII string "SHA3" (Skein 1.3, Table 7).
pub const CONFIG_SCHEMA: [u8; 4] = *b"SHA3";
/// Version number of the configuration string (Skein 1.3, Table 7).
pub const CONFIG_VERSION: u16 = 1;
/// Length of the configuration string in bytes (Skein 1.3, Table 7).
pub const CONFIG_LEN: usize = 32;
