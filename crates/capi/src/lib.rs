#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
// Every exported function is `unsafe extern "C"` with one contract, stated once in the README
// ("Safety"): pointers are NULL or valid for the lengths given, handles come from this library
// and are used by one thread at a time.
#![allow(clippy::missing_safety_doc)]
// The C names (`skeinhw_params`) are the header's names; the handles are renamed `skeinhw_skein`, ... by cbindgen.
#![allow(non_camel_case_types)]

mod error;
pub mod golden;
pub mod hash;
pub mod params;
pub mod round;
pub mod shabal;
mod version;

pub use error::{
    SKEINHW_END, SKEINHW_ERR_ARGUMENT, SKEINHW_ERR_BUFFER, SKEINHW_ERR_FIELD, SKEINHW_ERR_NULL,
    SKEINHW_ERR_PANIC, SKEINHW_ERR_SCHEDULE, SKEINHW_ERR_STATE, SKEINHW_OK, skeinhw_last_error,
};
pub use version::skeinhw_version;
