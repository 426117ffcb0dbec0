#![doc = include_str!("../README.md")]
#![no_std]
#![deny(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod constants;
mod digest_impl;
mod error;
pub mod fast;
mod hasher;
#[cfg(feature = "kat")]
pub mod kat;
pub mod reference;
pub mod threefish;
pub mod tweak;
pub mod ubi;

pub use constants::BlockType;
pub use digest_impl::rustcrypto;
pub use error::Error;
pub use hasher::{
    Params, Skein, TreeParams, config_string, initial_chain, output, pad_partial_byte,
};
pub use tweak::Tweak;

/// Skein-256: 256-bit state, any output length.
pub type Skein256 = Skein<4>;
/// Skein-512: 512-bit state, any output length.
pub type Skein512 = Skein<8>;
/// Skein-1024: 1024-bit state, any output length.
pub type Skein1024 = Skein<16>;

/// One-shot Skein of a message of `msg_bits` bits (the first bits of `message`) with state size
/// `state_bits` (256, 512 or 1024), `out_bits` output bits and the optional arguments.
///
/// ```
/// let d = skeinhw_skein::hash(512, 512, b"", 0, &Default::default()).unwrap();
/// assert_eq!(d[..4], [0xbc, 0x5b, 0x4c, 0x50]);
/// ```
pub fn hash(
    state_bits: usize,
    out_bits: u64,
    message: &[u8],
    msg_bits: u64,
    params: &Params<'_>,
) -> Result<alloc::vec::Vec<u8>, Error> {
    fn run<const N: usize>(
        out_bits: u64,
        message: &[u8],
        msg_bits: u64,
        params: &Params<'_>,
    ) -> Result<alloc::vec::Vec<u8>, Error> {
        let mut h = Skein::<N>::with_params(out_bits, params)?;
        h.update_bits(message, msg_bits)?;
        Ok(h.finalize())
    }
    match state_bits {
        256 => run::<4>(out_bits, message, msg_bits, params),
        512 => run::<8>(out_bits, message, msg_bits, params),
        1024 => run::<16>(out_bits, message, msg_bits, params),
        other => Err(Error::UnknownSize(other)),
    }
}
