//! Errors of the Shabal API: each names the argument and what is allowed.

/// What went wrong with the arguments of a Shabal computation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The output length is not one of the five Shabal sizes.
    #[error("output length {0} bits is not a Shabal size; allowed: 192, 224, 256, 384, 512")]
    UnknownOutputSize(u64),
    /// More message bits were requested than the data holds.
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
    /// The output buffer is not out_bits / 8 bytes long.
    #[error("output buffer has {got} bytes; {out_bits} output bits need {expected}")]
    OutputBufferLength {
        /// Output length in bits.
        out_bits: u64,
        /// Bytes given.
        got: usize,
        /// Bytes needed.
        expected: usize,
    },
}
