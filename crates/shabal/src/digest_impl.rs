//! The RustCrypto `digest` 0.11 traits, so that these types drop in where RustCrypto's `shabal`
//! crate is used (`Shabal192` ... `Shabal512`, same names).

use core::fmt;

use digest::consts::{U24, U28, U32, U48, U64};
use digest::{FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update};

use crate::Shabal;

macro_rules! fixed_size {
    ($(#[$doc:meta])* $name:ident, $bits:literal, $size:ty) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name(Shabal);

        impl Default for $name {
            fn default() -> Self {
                $name(Shabal::new($bits).expect("a Shabal output size"))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), " { ... }"))
            }
        }

        impl HashMarker for $name {}

        impl OutputSizeUser for $name {
            type OutputSize = $size;
        }

        impl Update for $name {
            #[inline]
            fn update(&mut self, data: &[u8]) {
                self.0.update(data);
            }
        }

        impl FixedOutput for $name {
            fn finalize_into(mut self, out: &mut Output<Self>) {
                FixedOutputReset::finalize_into_reset(&mut self, out);
            }
        }

        impl Reset for $name {
            fn reset(&mut self) {
                self.0.reset();
            }
        }

        impl FixedOutputReset for $name {
            fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
                self.0
                    .finalize_into_reset(out)
                    .expect("the array has the output length");
            }
        }
    };
}

fixed_size!(
    /// Shabal-192 behind the `digest` traits.
    ///
    /// ```
    /// use digest::Digest;
    /// let d = skeinhw_shabal::Shabal192::digest(b"abc");
    /// assert_eq!(d.len(), 24);
    /// ```
    Shabal192, 192, U24
);
fixed_size!(
    /// Shabal-224 behind the `digest` traits.
    Shabal224, 224, U28
);
fixed_size!(
    /// Shabal-256 behind the `digest` traits.
    Shabal256, 256, U32
);
fixed_size!(
    /// Shabal-384 behind the `digest` traits.
    Shabal384, 384, U48
);
fixed_size!(
    /// Shabal-512 behind the `digest` traits.
    Shabal512, 512, U64
);
