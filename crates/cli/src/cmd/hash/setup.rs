//! What hashing one input needs: the function, its sizes and parameters, and its hasher.

use super::*;

/// A hasher of either function.
pub(super) enum Hasher {
    // Boxed: both hashers are hundreds of bytes of state, of different sizes.
    Skein(Box<DynSkein>),
    Shabal(Box<Shabal>),
}

impl Hasher {
    pub(super) fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Skein(h) => h.update(data),
            Hasher::Shabal(h) => h.update(data),
        }
    }

    pub(super) fn update_bits(&mut self, data: &[u8], bits: u64) -> Result<()> {
        match self {
            Hasher::Skein(h) => h.update_bits(data, bits)?,
            Hasher::Shabal(h) => h.update_bits(data, bits)?,
        }
        Ok(())
    }

    /// The digest in memory, or the output stream when it is longer than STREAM_OUT_BITS.
    pub(super) fn finish(self, out_bits: u64) -> Digest {
        match self {
            Hasher::Skein(h) if out_bits > STREAM_OUT_BITS => {
                Digest::Stream(Box::new(h.finalize_reader()))
            }
            Hasher::Skein(h) => Digest::Bytes(h.finalize()),
            Hasher::Shabal(h) => Digest::Bytes(h.finalize()),
        }
    }
}

/// What hashing one input needs besides the input.
pub(crate) struct Setup {
    pub(super) alg: Alg,
    pub(super) size: usize,
    pub(super) out_bits: u64,
    pub(super) params: OwnedParams,
}

impl Setup {
    pub(super) fn hasher(&self) -> Result<Hasher> {
        Ok(match self.alg {
            Alg::Skein => Hasher::Skein(Box::new(DynSkein::new(
                self.size,
                self.out_bits,
                &self.params.params(),
            )?)),
            Alg::Shabal(bits) => Hasher::Shabal(Box::new(Shabal::new(bits)?)),
        })
    }

    /// The name of `--alg`.
    pub(super) fn alg_name(&self) -> &'static str {
        match self.alg {
            Alg::Skein => "skein",
            Alg::Shabal(192) => "shabal-192",
            Alg::Shabal(224) => "shabal-224",
            Alg::Shabal(256) => "shabal-256",
            Alg::Shabal(384) => "shabal-384",
            _ => "shabal-512",
        }
    }

    /// The BSD tag: `SKEIN-<state bits>-<output bits>` or `SHABAL-<output bits>`.
    pub(crate) fn tag(&self) -> String {
        match self.alg {
            Alg::Skein => format!("SKEIN-{}-{}", self.size, self.out_bits),
            Alg::Shabal(bits) => format!("SHABAL-{bits}"),
        }
    }

    /// The setup a `--check` line's tag names (the tag names the function and its lengths,
    /// as `BLAKE2b-N` does for b2sum), with this setup's key and optional arguments (Skein);
    /// `None` for a tag that is not ours.
    pub(crate) fn for_tag(&self, tag: &str) -> Option<Setup> {
        let number = |s: &str| {
            s.parse::<u64>()
                .ok()
                .filter(|&n| n > 0 && !s.starts_with('0'))
        };
        let (alg, size, out_bits) = if let Some(rest) = tag.strip_prefix("SKEIN-") {
            let (size, out) = rest.split_once('-')?;
            let size = number(size)? as usize;
            if ![256, 512, 1024].contains(&size) {
                return None;
            }
            (Alg::Skein, size, number(out)?)
        } else {
            let bits = number(tag.strip_prefix("SHABAL-")?)?;
            if ![192, 224, 256, 384, 512].contains(&bits) {
                return None;
            }
            (Alg::Shabal(bits), 512, bits)
        };
        let params = match alg {
            Alg::Skein => self.params.clone(),
            Alg::Shabal(_) => OwnedParams::default(),
        };
        Some(Setup {
            alg,
            size,
            out_bits,
            params,
        })
    }

    pub(crate) fn out_bits(&self) -> u64 {
        self.out_bits
    }
}
