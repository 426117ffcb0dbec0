#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

use std::borrow::Cow;

/// One digest line of a checksum list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The BSD tag (`SKEIN-512-256`) of a `--tag` line; `None` for a GNU line.
    pub tag: Option<&'a str>,
    /// The digest, decoded from hex.
    pub digest: Vec<u8>,
    /// The file name, unescaped: any bytes.
    pub name: Cow<'a, [u8]>,
    /// A GNU line in binary mode (`<hex> *<name>`); only a mark, the digest is the same.
    pub binary: bool,
}

/// Why a line is not a digest line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Nothing but white space (callers usually skip it, see [`is_blank_or_comment`]).
    #[error("empty line")]
    Empty,
    /// Neither `<hex>  <name>` nor `<TAG> (<name>) = <hex>`.
    #[error("not a digest line (expected '<hex>  <name>' or '<TAG> (<name>) = <hex>')")]
    Shape,
    /// The digest field holds a byte that is not a hex digit, or an odd number of digits.
    #[error("the digest is not an even number of hex digits")]
    Hex,
    /// No file name after the digest.
    #[error("no file name")]
    NoName,
    /// An escaped line (leading `\`) whose name has a `\` not followed by `\`, `n` or `r`.
    #[error("bad escape in the name (only \\\\, \\n and \\r are allowed)")]
    Escape,
}

/// True for lines a checker skips: empty, white space only, or a `#` comment.
pub fn is_blank_or_comment(line: &[u8]) -> bool {
    let t = trim_start(line);
    t.is_empty() || t[0] == b'#'
}

/// Parses one line of a checksum list (without its terminator; a trailing CR, as in a list
/// written on Windows, is ignored). Leading spaces and tabs are ignored, as coreutils does.
pub fn parse_line(line: &[u8]) -> Result<Entry<'_>, LineError> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = trim_start(line);
    if line.is_empty() {
        return Err(LineError::Empty);
    }
    let (escaped, body) = match line.strip_prefix(b"\\") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (tag, digest_hex, raw_name, binary) = match split_tag(body) {
        Some((tag, name, hex)) => (Some(tag), hex, name, false),
        None => {
            let (hex, name, binary) = split_gnu(body)?;
            (None, hex, name, binary)
        }
    };
    if raw_name.is_empty() {
        return Err(LineError::NoName);
    }
    let digest = decode_hex(digest_hex)?;
    let name = if escaped {
        Cow::Owned(unescape(raw_name)?)
    } else {
        Cow::Borrowed(raw_name)
    };
    Ok(Entry {
        tag,
        digest,
        name,
        binary,
    })
}

/// Formats one line: GNU (`<hex>  <name>`) when `tag` is `None`, else BSD
/// (`<TAG> (<name>) = <hex>`); the terminator is `\n`, or NUL with `zero` (then the name is
/// never escaped, as `b2sum -z`).
pub fn format_line(tag: Option<&str>, digest: &[u8], name: &[u8], zero: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(digest.len() * 2 + name.len() + 32);
    let escape = !zero && needs_escape(name);
    if escape {
        out.push(b'\\');
    }
    let push_name = |out: &mut Vec<u8>| {
        if escape {
            out.extend_from_slice(&escape_name(name));
        } else {
            out.extend_from_slice(name);
        }
    };
    match tag {
        Some(tag) => {
            out.extend_from_slice(tag.as_bytes());
            out.extend_from_slice(b" (");
            push_name(&mut out);
            out.extend_from_slice(b") = ");
            out.extend_from_slice(hex::encode(digest).as_bytes());
        }
        None => {
            out.extend_from_slice(hex::encode(digest).as_bytes());
            out.extend_from_slice(b"  ");
            push_name(&mut out);
        }
    }
    out.push(if zero { 0 } else { b'\n' });
    out
}

/// True if a name must be escaped on a newline-terminated line: it holds `\`, LF or CR.
pub fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// The name with `\\`, `\n` and `\r` in place of backslash, newline and carriage return.
pub fn escape_name(name: &[u8]) -> Cow<'_, [u8]> {
    if !needs_escape(name) {
        return Cow::Borrowed(name);
    }
    let mut out = Vec::with_capacity(name.len() + 8);
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    Cow::Owned(out)
}

/// Reverses [`escape_name`]; an error for any other `\` sequence or a trailing `\`.
pub fn unescape(name: &[u8]) -> Result<Vec<u8>, LineError> {
    let mut out = Vec::with_capacity(name.len());
    let mut bytes = name.iter();
    while let Some(&b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        out.push(match bytes.next() {
            Some(b'\\') => b'\\',
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            _ => return Err(LineError::Escape),
        });
    }
    Ok(out)
}

fn trim_start(line: &[u8]) -> &[u8] {
    let n = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &line[n..]
}

/// `<TAG> (<name>) = <hex>`: the tag is the text before the first ` (`, the digest the text
/// after the last `) = ` (a name may itself hold `) = `).
fn split_tag(body: &[u8]) -> Option<(&str, &[u8], &[u8])> {
    let open = find(body, b" (")?;
    let tag = std::str::from_utf8(&body[..open]).ok()?;
    if tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_graphic() && b != b'(') {
        return None;
    }
    let rest = &body[open + 2..];
    let close = rfind(rest, b") = ")?;
    Some((tag, &rest[..close], &rest[close + 4..]))
}

/// `<hex>  <name>` or `<hex> *<name>`.
fn split_gnu(body: &[u8]) -> Result<(&[u8], &[u8], bool), LineError> {
    let space = body
        .iter()
        .position(|&b| b == b' ')
        .ok_or(LineError::Shape)?;
    let (hex, rest) = (&body[..space], &body[space + 1..]);
    if hex.is_empty() {
        return Err(LineError::Shape);
    }
    match rest.first() {
        Some(b' ') => Ok((hex, &rest[1..], false)),
        Some(b'*') => Ok((hex, &rest[1..], true)),
        _ => Err(LineError::Shape),
    }
}

fn decode_hex(text: &[u8]) -> Result<Vec<u8>, LineError> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_hexdigit) {
        return Err(LineError::Hex);
    }
    hex::decode(text).map_err(|_| LineError::Hex)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_b2sum_wrote() {
        // Lines written by `b2sum -l 64` (GNU coreutils 9.1) for the names plain, x\y and n<LF>l.
        let e = parse_line(b"b5a5e556bca88c7b  plain").unwrap();
        assert_eq!((e.tag, &*e.name, e.binary), (None, &b"plain"[..], false));
        assert_eq!(e.digest, [0xb5, 0xa5, 0xe5, 0x56, 0xbc, 0xa8, 0x8c, 0x7b]);
        assert_eq!(
            &*parse_line(b"\\40f89e395b66422f  x\\\\y").unwrap().name,
            b"x\\y"
        );
        assert_eq!(
            &*parse_line(b"\\8472c2e34d854f75  n\\nl").unwrap().name,
            b"n\nl"
        );
        let t = parse_line(b"\\BLAKE2b-64 (c\\rr) = 373f6364cd072c1b").unwrap();
        assert_eq!((t.tag, &*t.name), (Some("BLAKE2b-64"), &b"c\rr"[..]));
        assert!(parse_line(b"b5a5e556bca88c7b *bin").unwrap().binary);
    }

    #[test]
    fn formats_as_b2sum_does() {
        let d = [0x40, 0xf8];
        assert_eq!(format_line(None, &d, b"x\\y", false), b"\\40f8  x\\\\y\n");
        assert_eq!(format_line(None, &d, b"x\\y", true), b"40f8  x\\y\0");
        assert_eq!(
            format_line(Some("SKEIN-512-16"), &d, b"a\nb", false),
            b"\\SKEIN-512-16 (a\\nb) = 40f8\n"
        );
    }

    #[test]
    fn malformed_lines_are_typed_errors() {
        assert_eq!(parse_line(b"  \t"), Err(LineError::Empty));
        assert_eq!(parse_line(b"garbage"), Err(LineError::Shape));
        assert_eq!(parse_line(b"abc  name"), Err(LineError::Hex));
        assert_eq!(parse_line(b"zz  name"), Err(LineError::Hex));
        assert_eq!(parse_line(b"ab  "), Err(LineError::NoName));
        assert_eq!(parse_line(b"\\ab  a\\qb"), Err(LineError::Escape));
        assert_eq!(parse_line(b"\\ab  a\\"), Err(LineError::Escape));
        assert_eq!(parse_line(b"T () = ab"), Err(LineError::NoName));
        assert!(is_blank_or_comment(b"  # comment"));
    }

    #[test]
    fn a_name_holding_the_tag_separator() {
        let line = format_line(Some("SKEIN-256-8"), &[1], b"a) = b", false);
        let e = parse_line(line.strip_suffix(b"\n").unwrap()).unwrap();
        assert_eq!(&*e.name, b"a) = b");
    }
}
