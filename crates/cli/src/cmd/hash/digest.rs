//! A finished digest and the ways `hash` prints it.

use super::*;

/// A finished hash: the digest in memory, or Skein's output transform read as a stream.
pub(crate) enum Digest {
    Bytes(Vec<u8>),
    Stream(Box<DynOutputReader>),
}

impl Digest {
    /// The whole digest in memory; callers bound the length first (MAX_LIST_OUT_BITS).
    pub(super) fn into_bytes(self) -> Vec<u8> {
        match self {
            Digest::Bytes(b) => b,
            Digest::Stream(mut r) => {
                let mut out = vec![0u8; r.remaining_bytes() as usize];
                r.fill(&mut out);
                out
            }
        }
    }

    /// Writes the digest as hex (or raw bytes) in pieces of at most READ_CHUNK bytes.
    pub(super) fn write(self, out: &mut impl Write, raw: bool) -> io::Result<()> {
        match self {
            Digest::Bytes(b) if raw => out.write_all(&b),
            Digest::Bytes(b) => out.write_all(hex::encode(b).as_bytes()),
            Digest::Stream(mut r) => {
                let mut buf = vec![0u8; READ_CHUNK / 2];
                let mut text = vec![0u8; READ_CHUNK];
                loop {
                    let n = r.fill(&mut buf);
                    if n == 0 {
                        return Ok(());
                    }
                    if raw {
                        out.write_all(&buf[..n])?;
                    } else {
                        hex::encode_to_slice(&buf[..n], &mut text[..2 * n])
                            .expect("two hex digits per byte");
                        out.write_all(&text[..2 * n])?;
                    }
                }
            }
        }
    }
}

/// One digest as `--json` prints it.
#[derive(Serialize)]
struct JsonDigest<'a> {
    name: &'a str,
    alg: &'static str,
    digest: String,
    size: usize,
    out_bits: u64,
    msg_bits: u64,
}

/// How each digest is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    /// `<hex>  <name>`, or BSD `<TAG> (<name>) = <hex>` with `tag`; NUL-ended with `zero`.
    Line { tag: bool, zero: bool },
    /// One JSON object per line.
    Json,
    /// The digest bytes alone.
    Raw,
}

/// Prints one digest in `style`; `name` is the file name's bytes (any bytes).
pub(super) fn print_digest(
    out: &mut impl Write,
    setup: &Setup,
    name: &[u8],
    digest: Digest,
    msg_bits: u64,
    style: Style,
) -> Result<()> {
    match style {
        Style::Json => {
            let record = JsonDigest {
                name: &String::from_utf8_lossy(name),
                alg: setup.alg_name(),
                digest: hex::encode(digest.into_bytes()),
                size: setup.size,
                out_bits: setup.out_bits,
                msg_bits,
            };
            writeln!(out, "{}", serde_json::to_string(&record)?)?;
        }
        Style::Raw => digest.write(out, true)?,
        Style::Line { tag, zero } => match digest {
            Digest::Bytes(d) => {
                let tag = tag.then(|| setup.tag());
                out.write_all(&skeinhw_sumfile::format_line(
                    tag.as_deref(),
                    &d,
                    name,
                    zero,
                ))?;
            }
            // Longer than STREAM_OUT_BITS (so not --tag): the line is written as it is
            // computed, escaped exactly as format_line does.
            stream => {
                let escape = !zero && skeinhw_sumfile::needs_escape(name);
                if escape {
                    out.write_all(b"\\")?;
                }
                stream.write(out, false)?;
                out.write_all(b"  ")?;
                if escape {
                    out.write_all(&skeinhw_sumfile::escape_name(name))?;
                } else {
                    out.write_all(name)?;
                }
                out.write_all(if zero { b"\0" } else { b"\n" })?;
            }
        },
    }
    Ok(())
}
