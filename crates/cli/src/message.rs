//! The message options shared by `hash`, `trace`, `sim` and `diff`: state size, output length,
//! the message as hex with an optional bit length, and Skein's optional arguments.

use anyhow::{Context, Result, bail};
use clap::Args;
use skeinhw_skein::{Params, TreeParams};
use skeinhw_trace::args::{self, parse_size, parse_tree};

/// Skein parameters and a message given on the command line.
#[derive(Args, Clone, Debug, Default)]
pub struct MessageArgs {
    /// State size in bits: 256, 512 or 1024 [default: 512, or the schedule's size].
    #[arg(long, value_parser = parse_size)]
    pub size: Option<usize>,
    /// Output length in bits (default: the state size).
    #[arg(long, value_name = "N")]
    pub out_bits: Option<u64>,
    /// Hash this hex message instead of files.
    #[arg(long, value_name = "HEX")]
    pub hex: Option<String>,
    /// Use only the first N bits of the message given with --hex (or --msg-file).
    #[arg(long, value_name = "N")]
    pub msg_bits: Option<u64>,
    /// Read the message from this file (raw bytes) instead of --hex (trace, sim, diff).
    #[arg(long, value_name = "FILE", conflicts_with = "hex")]
    pub msg_file: Option<std::path::PathBuf>,
    /// Key for Skein-MAC (hex).
    #[arg(long, value_name = "HEX")]
    pub key: Option<String>,
    /// Personalization string (hex).
    #[arg(long, value_name = "HEX")]
    pub personalization: Option<String>,
    /// Public key (hex).
    #[arg(long, value_name = "HEX")]
    pub public_key: Option<String>,
    /// Key identifier for KDF (hex).
    #[arg(long, value_name = "HEX")]
    pub key_id: Option<String>,
    /// Nonce (hex).
    #[arg(long, value_name = "HEX")]
    pub nonce: Option<String>,
    /// Tree hashing: leaf size, fan-out and maximum height encodings (Yl,Yf,Ym).
    #[arg(long, value_name = "LEAF,FANOUT,MAXHEIGHT", value_parser = parse_tree)]
    pub tree: Option<TreeParams>,
}

/// The optional arguments decoded from hex, owned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedParams {
    /// Key (empty: none).
    pub key: Vec<u8>,
    /// Personalization.
    pub personalization: Option<Vec<u8>>,
    /// Public key.
    pub public_key: Option<Vec<u8>>,
    /// Key identifier.
    pub key_id: Option<Vec<u8>>,
    /// Nonce.
    pub nonce: Option<Vec<u8>>,
    /// Tree parameters.
    pub tree: Option<TreeParams>,
}

impl OwnedParams {
    /// Borrowed view for the library.
    pub fn params(&self) -> Params<'_> {
        Params {
            key: &self.key,
            personalization: self.personalization.as_deref(),
            public_key: self.public_key.as_deref(),
            key_id: self.key_id.as_deref(),
            nonce: self.nonce.as_deref(),
            tree: self.tree,
        }
    }
}

/// Skein's default state size when neither `--size` nor a schedule says otherwise.
pub const DEFAULT_SIZE: usize = 512;

impl MessageArgs {
    /// The state size: `--size`, or 512.
    pub fn size(&self) -> usize {
        self.size.unwrap_or(DEFAULT_SIZE)
    }

    /// Output length in bits (default: the state size); an error for 0.
    pub fn out_bits(&self) -> Result<u64> {
        let bits = self.out_bits.unwrap_or(self.size() as u64);
        if bits == 0 {
            bail!("--out-bits 0: the output length must be at least 1 bit");
        }
        Ok(bits)
    }

    /// The optional arguments, decoded.
    pub fn params(&self) -> Result<OwnedParams> {
        let opt = |name: &str, v: &Option<String>| -> Result<Option<Vec<u8>>> {
            v.as_deref().map(|h| decode_hex(name, h)).transpose()
        };
        Ok(OwnedParams {
            key: opt("--key", &self.key)?.unwrap_or_default(),
            personalization: opt("--personalization", &self.personalization)?,
            public_key: opt("--public-key", &self.public_key)?,
            key_id: opt("--key-id", &self.key_id)?,
            nonce: opt("--nonce", &self.nonce)?,
            tree: self.tree,
        })
    }

    /// The first of Skein's optional arguments that was given (they have no meaning for
    /// Shabal), if any.
    pub fn skein_argument_given(&self) -> Option<&'static str> {
        [
            ("--key", self.key.is_some()),
            ("--personalization", self.personalization.is_some()),
            ("--public-key", self.public_key.is_some()),
            ("--key-id", self.key_id.is_some()),
            ("--nonce", self.nonce.is_some()),
            ("--tree", self.tree.is_some()),
        ]
        .into_iter()
        .find_map(|(opt, on)| on.then_some(opt))
    }

    /// The message for a Shabal core of `output_bits`: the `--hex`/`--msg-file` message (empty
    /// if none); Skein's optional arguments and a disagreeing `--out-bits` are errors.
    pub fn shabal_message(&self, output_bits: u32) -> Result<(Vec<u8>, u64)> {
        if let Some(opt) = self.skein_argument_given() {
            bail!("{opt} is a Skein option; a Shabal schedule does not take it");
        }
        if let Some(o) = self.out_bits.filter(|&o| o != u64::from(output_bits)) {
            bail!(
                "--out-bits {o} disagrees with the Shabal schedule's output_bits = {output_bits}"
            );
        }
        Ok(self.hex_message()?.unwrap_or((Vec::new(), 0)))
    }

    /// The `--hex` (or `--msg-file`) message and its length in bits, if given.
    pub fn hex_message(&self) -> Result<Option<(Vec<u8>, u64)>> {
        let bytes = match (&self.hex, &self.msg_file) {
            (Some(hex), _) => decode_hex("--hex", hex)?,
            (None, Some(path)) => read_msg_file(path)?,
            (None, None) => {
                if let Some(bits) = self.msg_bits {
                    bail!("--msg-bits {bits} needs a message: --hex HEX or --msg-file FILE");
                }
                return Ok(None);
            }
        };
        let available = bytes.len() as u64 * 8;
        let bits = self.msg_bits.unwrap_or(available);
        if bits > available {
            bail!(
                "--msg-bits {bits} is beyond the {available} bits of the message ({} bytes)",
                bytes.len()
            );
        }
        Ok(Some((bytes, bits)))
    }
}

/// The most `--msg-file` reads: 16 MiB. The message is held in memory (and every block of it
/// is traced by `trace`, `sim` and `diff`), so a longer file, or an endless one such as
/// `/dev/zero`, is refused after reading this much instead of filling memory.
pub const MAX_MSG_FILE_BYTES: u64 = 16 << 20;

/// Reads a `--msg-file` whole, up to MAX_MSG_FILE_BYTES.
fn read_msg_file(path: &std::path::Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let shown = path.display();
    let file =
        std::fs::File::open(path).with_context(|| format!("--msg-file {shown}: cannot read"))?;
    let mut bytes = Vec::new();
    file.take(MAX_MSG_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("--msg-file {shown}: cannot read"))?;
    if bytes.len() as u64 > MAX_MSG_FILE_BYTES {
        bail!(
            "--msg-file {shown}: longer than the limit of {MAX_MSG_FILE_BYTES} bytes (16 MiB) \
             for a message held in memory and traced block by block"
        );
    }
    Ok(bytes)
}

/// Decodes a hex string (an optional `0x` prefix, upper or lower case, no separators).
pub fn decode_hex(option: &str, text: &str) -> Result<Vec<u8>> {
    args::decode_hex(option, text).map_err(anyhow::Error::msg)
}
