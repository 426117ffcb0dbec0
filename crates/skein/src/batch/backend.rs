//! The lane backends and the run-time choice among them.

/// How the lanes are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// One lane, the scalar unrolled Threefish of [`crate::fast`]; runs everywhere.
    Scalar,
    /// Eight lanes as plain `[u64; 8]` arrays: the AVX-512 backend's logic on any CPU (for
    /// tests; not faster than [`Backend::Scalar`]).
    Portable8,
    /// Four lanes in 256-bit AVX2 registers (x86-64 only, detected at run time).
    Avx2,
    /// Eight lanes in 512-bit AVX-512 registers with the native 64-bit rotate (x86-64 with
    /// AVX-512F only, detected at run time).
    Avx512,
}

impl Backend {
    /// Every backend.
    pub const ALL: [Backend; 4] = [
        Backend::Scalar,
        Backend::Portable8,
        Backend::Avx2,
        Backend::Avx512,
    ];

    /// Number of blocks in flight.
    pub const fn lanes(self) -> usize {
        match self {
            Backend::Scalar => 1,
            Backend::Avx2 => 4,
            Backend::Portable8 | Backend::Avx512 => 8,
        }
    }

    /// The instruction set's name, for reports (and for `SKEINHW_LANES`).
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Portable8 => "portable8",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }

    /// The backend named `name` (as [`Backend::name`] gives it).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether this machine (and this build) can run the backend. Without the `std` feature
    /// there is no run-time detection: AVX2 and AVX-512 count only when the build enables them
    /// statically.
    pub fn is_available(self) -> bool {
        match self {
            Backend::Scalar | Backend::Portable8 => true,
            Backend::Avx2 => avx2_available(),
            Backend::Avx512 => avx512_available(),
        }
    }
}

impl core::fmt::Display for Backend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend forced through `SKEINHW_LANES` that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The name is not one of [`Backend::ALL`]'s.
    #[error("SKEINHW_LANES={0:?}: unknown backend (expected scalar, portable8, avx2 or avx512)")]
    Unknown(alloc::string::String),
    /// This CPU lacks the instruction set.
    #[error("SKEINHW_LANES={0}: this CPU does not have that instruction set")]
    Unavailable(Backend),
}

/// The backend the environment variable `SKEINHW_LANES` forces (`None` when unset or empty).
///
/// # Errors
/// An unknown name, or a backend this machine cannot run.
#[cfg(feature = "std")]
pub fn forced() -> Result<Option<Backend>, BackendError> {
    let Ok(name) = std::env::var("SKEINHW_LANES") else {
        return Ok(None);
    };
    let name = name.trim();
    if name.is_empty() {
        return Ok(None);
    }
    let b = Backend::from_name(name).ok_or_else(|| BackendError::Unknown(name.into()))?;
    if !b.is_available() {
        return Err(BackendError::Unavailable(b));
    }
    Ok(Some(b))
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) fn avx2_available() -> bool {
    std::is_x86_feature_detected!("avx2")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
pub(crate) fn avx2_available() -> bool {
    cfg!(target_feature = "avx2")
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn avx2_available() -> bool {
    false
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) fn avx512_available() -> bool {
    std::is_x86_feature_detected!("avx512f")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
pub(crate) fn avx512_available() -> bool {
    cfg!(target_feature = "avx512f")
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn avx512_available() -> bool {
    false
}

/// The fastest backend this machine supports (AVX-512, then AVX2, then scalar), unless
/// `SKEINHW_LANES` forces a usable one ([`forced`]; a bad value is ignored here, and reported
/// by [`forced`]).
pub fn detected() -> Backend {
    #[cfg(feature = "std")]
    if let Ok(Some(b)) = forced() {
        return b;
    }
    [Backend::Avx512, Backend::Avx2]
        .into_iter()
        .find(|b| b.is_available())
        .unwrap_or(Backend::Scalar)
}
