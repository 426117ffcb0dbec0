//! The RustCrypto `digest` 0.11 traits, so that this crate drops in where RustCrypto's `skein`
//! crate is used: the module [`rustcrypto`] has the same type names (`Skein512<U64>`,
//! `Skein512_512`, ...) and re-exports `Digest` and `consts`, and adds Skein-MAC through the
//! `Mac` trait.

/// Drop-in replacement for RustCrypto's `skein` crate: `use skeinhw_skein::rustcrypto as skein;`.
///
/// ```
/// use skeinhw_skein::rustcrypto::{Digest, Skein512, consts::U32};
/// let d = Skein512::<U32>::digest(b"abc");
/// assert_eq!(d.len(), 32);
/// ```
pub mod rustcrypto {
    use core::fmt;
    use core::marker::PhantomData;

    use digest::array::ArraySize;
    use digest::common::KeySizeUser;
    pub use digest::consts;
    pub use digest::{Digest, FixedOutput, FixedOutputReset, KeyInit, Mac, Output, Update};
    use digest::{HashMarker, InvalidLength, Key, MacMarker, OutputSizeUser, Reset};

    use crate::Skein;

    /// Skein with an `N`-word state and an output of `O` bytes, behind the `digest` traits.
    #[derive(Clone)]
    pub struct SkeinHasher<const N: usize, O: ArraySize> {
        inner: Skein<N>,
        _output: PhantomData<O>,
    }

    /// Skein-256 generic over output size.
    pub type Skein256<O> = SkeinHasher<4, O>;
    /// Skein-512 generic over output size.
    pub type Skein512<O> = SkeinHasher<8, O>;
    /// Skein-1024 generic over output size.
    pub type Skein1024<O> = SkeinHasher<16, O>;
    /// Skein-256-256.
    pub type Skein256_256 = Skein256<consts::U32>;
    /// Skein-256-512.
    pub type Skein256_512 = Skein256<consts::U64>;
    /// Skein-512-256.
    pub type Skein512_256 = Skein512<consts::U32>;
    /// Skein-512-512.
    pub type Skein512_512 = Skein512<consts::U64>;
    /// Skein-1024-256.
    pub type Skein1024_256 = Skein1024<consts::U32>;
    /// Skein-1024-512.
    pub type Skein1024_512 = Skein1024<consts::U64>;
    /// Skein-1024-1024.
    pub type Skein1024_1024 = Skein1024<consts::U128>;

    impl<const N: usize, O: ArraySize> SkeinHasher<N, O> {
        fn with_key(key: &[u8]) -> Self {
            SkeinHasher {
                inner: Skein::new_mac(O::USIZE as u64 * 8, key)
                    .expect("a typenum output size is at least one byte"),
                _output: PhantomData,
            }
        }
    }

    impl<const N: usize, O: ArraySize> Default for SkeinHasher<N, O> {
        fn default() -> Self {
            Self::with_key(&[])
        }
    }

    impl<const N: usize, O: ArraySize> fmt::Debug for SkeinHasher<N, O> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "Skein{}<{}> {{ ... }}", N * 64, O::USIZE)
        }
    }

    impl<const N: usize, O: ArraySize> HashMarker for SkeinHasher<N, O> {}

    impl<const N: usize, O: ArraySize> OutputSizeUser for SkeinHasher<N, O> {
        type OutputSize = O;
    }

    impl<const N: usize, O: ArraySize> Update for SkeinHasher<N, O> {
        #[inline]
        fn update(&mut self, data: &[u8]) {
            self.inner.update(data);
        }
    }

    impl<const N: usize, O: ArraySize> FixedOutput for SkeinHasher<N, O> {
        fn finalize_into(mut self, out: &mut Output<Self>) {
            FixedOutputReset::finalize_into_reset(&mut self, out);
        }
    }

    impl<const N: usize, O: ArraySize> Reset for SkeinHasher<N, O> {
        fn reset(&mut self) {
            self.inner.reset();
        }
    }

    impl<const N: usize, O: ArraySize> FixedOutputReset for SkeinHasher<N, O> {
        fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
            self.inner
                .finalize_into_reset(out)
                .expect("the array has the output length");
        }
    }

    /// Skein-MAC with an `N`-word state and an output of `O` bytes, behind the `Mac` trait.
    /// Keys of any length are accepted through [`KeyInit::new_from_slice`]; `KeyInit::new`
    /// takes a key of the state size.
    ///
    /// ```
    /// use skeinhw_skein::rustcrypto::{KeyInit, Mac, Skein512Mac, consts::U64};
    /// let mut mac = Skein512Mac::<U64>::new_from_slice(b"secret").unwrap();
    /// mac.update(b"message");
    /// let tag = mac.finalize().into_bytes();
    /// assert_eq!(tag.len(), 64);
    /// ```
    #[derive(Clone)]
    pub struct SkeinMac<const N: usize, O: ArraySize>(SkeinHasher<N, O>);

    /// Skein-256-MAC generic over output size.
    pub type Skein256Mac<O> = SkeinMac<4, O>;
    /// Skein-512-MAC generic over output size.
    pub type Skein512Mac<O> = SkeinMac<8, O>;
    /// Skein-1024-MAC generic over output size.
    pub type Skein1024Mac<O> = SkeinMac<16, O>;

    impl<const N: usize, O: ArraySize> fmt::Debug for SkeinMac<N, O> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "Skein{}Mac<{}> {{ ... }}", N * 64, O::USIZE)
        }
    }

    impl<O: ArraySize> KeySizeUser for SkeinMac<4, O> {
        type KeySize = consts::U32;
    }
    impl<O: ArraySize> KeySizeUser for SkeinMac<8, O> {
        type KeySize = consts::U64;
    }
    impl<O: ArraySize> KeySizeUser for SkeinMac<16, O> {
        type KeySize = consts::U128;
    }

    macro_rules! mac_key_init {
        ($n:literal) => {
            impl<O: ArraySize> KeyInit for SkeinMac<$n, O> {
                fn new(key: &Key<Self>) -> Self {
                    SkeinMac(SkeinHasher::with_key(key))
                }

                fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
                    Ok(SkeinMac(SkeinHasher::with_key(key)))
                }
            }
        };
    }
    mac_key_init!(4);
    mac_key_init!(8);
    mac_key_init!(16);

    impl<const N: usize, O: ArraySize> MacMarker for SkeinMac<N, O> {}

    impl<const N: usize, O: ArraySize> OutputSizeUser for SkeinMac<N, O> {
        type OutputSize = O;
    }

    impl<const N: usize, O: ArraySize> Update for SkeinMac<N, O> {
        #[inline]
        fn update(&mut self, data: &[u8]) {
            Update::update(&mut self.0, data);
        }
    }

    impl<const N: usize, O: ArraySize> FixedOutput for SkeinMac<N, O> {
        fn finalize_into(self, out: &mut Output<Self>) {
            FixedOutput::finalize_into(self.0, out);
        }
    }
}
