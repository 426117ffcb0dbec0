//! Errors of the Skein API: every one names the argument and what is allowed.

/// What went wrong with the arguments of a Skein computation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An output length of zero bits was requested.
    #[error("output length must be at least 1 bit")]
    ZeroOutputLength,
    /// The state size is not one of Skein's three.
    #[error("state size {0} is not a Skein size; allowed: 256, 512, 1024")]
    UnknownSize(usize),
    /// A tree parameter is out of range.
    #[error(
        "tree parameters leaf={leaf}, fan-out={fan_out}, max height={max_height} are impossible: \
         Skein 1.3 section 3.5.6 needs leaf >= 1, fan-out >= 1, max height >= 2"
    )]
    TreeParams {
        /// Yl
        leaf: u8,
        /// Yf
        fan_out: u8,
        /// Ym
        max_height: u8,
    },
    /// More bits were requested than the data holds.
    #[error("{bits} message bits requested but only {available} given")]
    NotEnoughBits {
        /// Bits asked for.
        bits: u64,
        /// Bits the data holds.
        available: u64,
    },
    /// Data was added after a message whose length is not a whole number of bytes.
    #[error("a message that ends in a partial byte cannot be extended")]
    UpdateAfterPartialByte,
    /// The output buffer does not have ceil(out_bits / 8) bytes.
    #[error("output buffer has {got} bytes; {out_bits} output bits need {expected}")]
    OutputBufferLength {
        /// Output length in bits.
        out_bits: u64,
        /// Bytes needed.
        expected: usize,
        /// Bytes given.
        got: usize,
    },
    /// Tree parameters given to a path that hashes plain Skein only.
    #[error("tree hashing is not done here: stream the input through stream_tree instead")]
    TreeNotStreamed,
}
