#![doc = include_str!("../README.md")]
#![no_std]
#![deny(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

pub mod constants;
mod digest_impl;
mod error;
mod hasher;
pub mod perm;

pub use digest;
pub use digest::Digest;
pub use digest_impl::{Shabal192, Shabal224, Shabal256, Shabal384, Shabal512};
pub use error::Error;
pub use hasher::{Shabal, hash, pad_last_block, padded_blocks};
pub use perm::State;
