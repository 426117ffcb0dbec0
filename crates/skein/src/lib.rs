#![doc = include_str!("../README.md")]
#![no_std]
#![deny(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod batch;
pub mod constants;
mod digest_impl;
mod error;
pub mod fast;
mod hasher;
pub mod iv;
#[cfg(feature = "kat")]
pub mod kat;
pub mod lanes;
pub mod output;
pub mod par_tree;
pub mod reference;
#[cfg(feature = "std")]
pub mod stream_lanes;
pub mod stream_tree;
pub mod threefish;
pub mod tweak;
pub mod ubi;

pub use constants::BlockType;
pub use digest_impl::rustcrypto;
pub use error::Error;
pub use hasher::{
    Params, Skein, TreeParams, config_string, initial_chain, output, pad_partial_byte,
};
pub use output::{DynOutputReader, OutputReader};
pub use tweak::Tweak;

/// Skein-256: 256-bit state, any output length.
pub type Skein256 = Skein<4>;
/// Skein-512: 512-bit state, any output length.
pub type Skein512 = Skein<8>;
/// Skein-1024: 1024-bit state, any output length.
pub type Skein1024 = Skein<16>;

/// Skein with the state size chosen at run time (256, 512 or 1024 bits).
///
/// ```
/// use skeinhw_skein::{DynSkein, Params};
/// let mut h = DynSkein::new(1024, 384, &Params::default()).unwrap();
/// h.update(b"abc");
/// assert_eq!(h.finalize().len(), 48);
/// ```
#[derive(Clone)]
pub enum DynSkein {
    /// Skein-256.
    Skein256(Skein256),
    /// Skein-512.
    Skein512(Skein512),
    /// Skein-1024.
    Skein1024(Skein1024),
}

impl DynSkein {
    /// A hasher of `state_bits` (256, 512, 1024) with `out_bits` output bits.
    pub fn new(state_bits: usize, out_bits: u64, params: &Params<'_>) -> Result<Self, Error> {
        Ok(match state_bits {
            256 => DynSkein::Skein256(Skein::with_params(out_bits, params)?),
            512 => DynSkein::Skein512(Skein::with_params(out_bits, params)?),
            1024 => DynSkein::Skein1024(Skein::with_params(out_bits, params)?),
            other => return Err(Error::UnknownSize(other)),
        })
    }

    /// Appends message bytes (see [`Skein::try_update`]).
    pub fn try_update(&mut self, data: &[u8]) -> Result<(), Error> {
        match self {
            DynSkein::Skein256(h) => h.try_update(data),
            DynSkein::Skein512(h) => h.try_update(data),
            DynSkein::Skein1024(h) => h.try_update(data),
        }
    }

    /// Appends message bytes (see [`Skein::update`]).
    pub fn update(&mut self, data: &[u8]) {
        self.try_update(data)
            .expect("a message that ends in a partial byte cannot be extended");
    }

    /// Appends the first `bits` bits of `data` (see [`Skein::update_bits`]).
    pub fn update_bits(&mut self, data: &[u8], bits: u64) -> Result<(), Error> {
        match self {
            DynSkein::Skein256(h) => h.update_bits(data, bits),
            DynSkein::Skein512(h) => h.update_bits(data, bits),
            DynSkein::Skein1024(h) => h.update_bits(data, bits),
        }
    }

    /// Finishes into ceil(out_bits / 8) bytes.
    pub fn finalize(self) -> alloc::vec::Vec<u8> {
        match self {
            DynSkein::Skein256(h) => h.finalize(),
            DynSkein::Skein512(h) => h.finalize(),
            DynSkein::Skein1024(h) => h.finalize(),
        }
    }
}

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
    let mut h = DynSkein::new(state_bits, out_bits, params)?;
    h.update_bits(message, msg_bits)?;
    Ok(h.finalize())
}

/// The workspace README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
