//! Readers for the official test-vector files in `vectors/skein/`, shared by the library's tests
//! and the command line's tests (feature `kat`).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::TreeParams;

/// One entry of `skein_golden_kat.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoldenEntry {
    /// Line of the entry's header, for messages.
    pub line: usize,
    /// State size in bits.
    pub state_bits: usize,
    /// Output length in bits.
    pub out_bits: u64,
    /// Message length in bits.
    pub msg_bits: u64,
    /// Message bytes (ceil(msg_bits/8) of them).
    pub message: Vec<u8>,
    /// MAC key, empty for none.
    pub key: Vec<u8>,
    /// Tree parameters.
    pub tree: Option<TreeParams>,
    /// A `random+MAC` entry (its key may be empty: then it equals the plain hash).
    pub mac: bool,
    /// The expected result.
    pub result: Vec<u8>,
}

fn hex_bytes(line: &str) -> impl Iterator<Item = u8> + '_ {
    line.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).expect("golden file byte"))
}

fn number_after(s: &str, key: &str) -> u64 {
    let rest = &s[s.find(key).expect(key) + key.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_hexdigit())
        .collect();
    digits.parse().expect("decimal number")
}

/// Parses the golden KAT file (CRLF or LF line ends).
///
/// # Panics
/// On a malformed file: this reads our own checked-in vectors.
pub fn parse_golden(text: &str) -> Vec<GoldenEntry> {
    let mut entries = Vec::new();
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut i = 0;
    while i < lines.len() {
        let header = lines[i];
        if !header.starts_with(":Skein-") {
            i += 1;
            continue;
        }
        let line = i + 1;
        let state_bits = number_after(header, ":Skein-") as usize;
        let after_size = &header[":Skein-".len()..];
        let out_bits = number_after(
            &after_size[after_size.find(':').expect("second colon")..],
            ":",
        );
        let msg_bits = number_after(header, "msgLen =");
        let tree = header.find("Tree:").map(|p| {
            let t = &header[p..];
            let field = |k: &str| {
                let s = &t[t.find(k).unwrap() + k.len()..];
                u8::from_str_radix(&s[..2], 16).unwrap()
            };
            TreeParams {
                leaf: field("leaf="),
                fan_out: field("node="),
                max_height: field("maxLevels="),
            }
        });
        let mut message = Vec::new();
        let mut key = Vec::new();
        let mut result = Vec::new();
        let mut section = "";
        i += 1;
        while i < lines.len() && !lines[i].starts_with("-----") {
            let l = lines[i];
            if l.starts_with("Message data:") {
                section = "msg";
            } else if l.starts_with("MAC key") {
                section = "key";
            } else if l.starts_with("Result:") {
                section = "result";
            } else if !l.trim().is_empty() && !l.contains("(none)") {
                match section {
                    "msg" => message.extend(hex_bytes(l)),
                    "key" => key.extend(hex_bytes(l)),
                    "result" => result.extend(hex_bytes(l)),
                    _ => {}
                }
            }
            i += 1;
        }
        entries.push(GoldenEntry {
            line,
            state_bits,
            out_bits,
            msg_bits,
            message,
            key,
            tree,
            mac: header.contains("MAC"),
            result,
        });
    }
    entries
}

/// One entry of a NIST-format `ShortMsgKAT_*.txt` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NistEntry {
    /// Message length in bits.
    pub len: u64,
    /// Message bytes.
    pub msg: Vec<u8>,
    /// Expected digest.
    pub md: Vec<u8>,
}

/// Parses a NIST SHA-3 API format KAT file (`Len = `, `Msg = `, `MD = `).
pub fn parse_nist(text: &str) -> Vec<NistEntry> {
    let mut out = Vec::new();
    let mut len = None;
    let mut msg = Vec::new();
    for l in text.lines().map(str::trim) {
        if let Some(v) = l.strip_prefix("Len = ") {
            len = Some(v.parse().expect("Len"));
        } else if let Some(v) = l.strip_prefix("Msg = ") {
            msg = decode_hex(v);
        } else if let Some(v) = l.strip_prefix("MD = ") {
            out.push(NistEntry {
                len: len.take().expect("Len before MD"),
                msg: core::mem::take(&mut msg),
                md: decode_hex(v),
            });
        }
    }
    out
}

fn decode_hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// One Threefish vector of `threefish_vectors_from_golden_kat_internals.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreefishEntry {
    /// Name, e.g. `three_512_01`.
    pub name: String,
    /// State size in bits.
    pub state_bits: usize,
    /// Key words.
    pub key: Vec<u64>,
    /// Tweak words.
    pub tweak: Vec<u64>,
    /// Plaintext words.
    pub input: Vec<u64>,
    /// E(P) xor P: the file gives the state after the plaintext feed-forward.
    pub result: Vec<u64>,
}

/// Parses the Java-syntax Threefish vector file.
pub fn parse_threefish(text: &str) -> Vec<ThreefishEntry> {
    let mut out: Vec<ThreefishEntry> = Vec::new();
    let mut rest = text;
    while let Some(p) = rest.find("long[] ") {
        rest = &rest[p + 7..];
        let eq = rest.find('=').unwrap();
        let ident = rest[..eq].trim();
        let open = rest.find('{').unwrap();
        let close = rest.find('}').unwrap();
        let words: Vec<u64> = rest[open + 1..close]
            .split(',')
            .map(|w| w.trim().trim_end_matches('L'))
            .filter(|w| !w.is_empty())
            .map(|w| match w.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).unwrap(),
                None => w.parse().unwrap(),
            })
            .collect();
        rest = &rest[close..];
        let (name, field) = ident.rsplit_once('_').unwrap();
        let state_bits: usize = name.split('_').nth(1).unwrap().parse().unwrap();
        if !out.iter().any(|e| e.name == name) {
            out.push(ThreefishEntry {
                name: name.to_string(),
                state_bits,
                key: Vec::new(),
                tweak: Vec::new(),
                input: Vec::new(),
                result: Vec::new(),
            });
        }
        let e = out.iter_mut().find(|e| e.name == name).unwrap();
        match field {
            "key" => e.key = words,
            "tweak" => e.tweak = words,
            "input" => e.input = words,
            "result" => e.result = words,
            _ => {}
        }
    }
    // The all-zero entries give a 2N-word zero key in the file; keep the state's N words.
    for e in &mut out {
        let n = e.state_bits / 64;
        e.key.truncate(n);
        e.input.truncate(n);
    }
    out
}
