//! The command line's hex and numeric arguments (`--hex`, `--key`, `--size`, `--tree`), parsed
//! by pure functions: the binary calls them, and the fuzz targets reach them without a process.

use skeinhw_skein::TreeParams;

/// Decodes a hex string (an optional `0x` prefix, upper or lower case, no separators); the
/// error names `option` and the place of the first bad digit.
pub fn decode_hex(option: &str, text: &str) -> Result<Vec<u8>, String> {
    let t = text.strip_prefix("0x").unwrap_or(text);
    if !t.len().is_multiple_of(2) {
        return Err(format!(
            "{option}: hex string has an odd number of digits ({})",
            t.len()
        ));
    }
    if let Some((i, c)) = t.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(format!(
            "{option}: '{c}' at position {i} is not a hex digit"
        ));
    }
    hex::decode(t).map_err(|e| format!("{option}: malformed hex ({e})"))
}

/// A Skein state size in bits: 256, 512 or 1024.
pub fn parse_size(s: &str) -> Result<usize, String> {
    match s {
        "256" => Ok(256),
        "512" => Ok(512),
        "1024" => Ok(1024),
        _ => Err(format!(
            "'{s}' is not a Skein state size; allowed: 256, 512, 1024"
        )),
    }
}

/// Tree parameters `LEAF,FANOUT,MAXHEIGHT` (Skein's Yl, Yf, Ym), checked by [`TreeParams::new`].
pub fn parse_tree(s: &str) -> Result<TreeParams, String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != 3 {
        return Err(format!(
            "'{s}' is not LEAF,FANOUT,MAXHEIGHT (three numbers such as 2,2,2)"
        ));
    }
    let num = |name: &str, p: &str| -> Result<u8, String> {
        p.trim()
            .parse::<u8>()
            .map_err(|_| format!("{name} '{p}' is not a number from 0 to 255"))
    };
    let (l, f, m) = (
        num("leaf", parts[0])?,
        num("fan-out", parts[1])?,
        num("max height", parts[2])?,
    );
    TreeParams::new(l, f, m).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex() {
        assert_eq!(
            decode_hex("--hex", "0x00fFa1").unwrap(),
            vec![0, 0xff, 0xa1]
        );
        assert_eq!(decode_hex("--hex", "").unwrap(), Vec::<u8>::new());
        assert!(
            decode_hex("--hex", "abc")
                .unwrap_err()
                .contains("odd number")
        );
        // Issue 16: a multi-byte character is named, not split (no panic on a char boundary).
        let e = decode_hex("--key", "0é0").unwrap_err();
        assert_eq!(e, "--key: 'é' at position 1 is not a hex digit");
    }

    #[test]
    fn size_and_tree() {
        assert_eq!(parse_size("1024"), Ok(1024));
        assert!(parse_size("1023").is_err());
        assert!(parse_tree("1,2").is_err());
        assert!(parse_tree("1,2,300").unwrap_err().contains("max height"));
        assert!(parse_tree("2,2,2").is_ok());
    }
}
