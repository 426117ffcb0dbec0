//! `hash --check`: verifies a checksum list (GNU and BSD-tag lines, mixed) as `b2sum -c`
//! does: the same per-file lines (`NAME: OK`, `NAME: FAILED`, `NAME: FAILED open or read`),
//! the same closing warnings and the same exit statuses.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::{MAX_LIST_OUT_BITS, Setup, TreeRun, digest_of, hash_hex_name};
use crate::Status;

/// The longest list line read: a digest of MAX_LIST_OUT_BITS in hex and a long name. A longer
/// line is reported as improperly formatted, and never held in memory whole.
const MAX_LINE: usize = (MAX_LIST_OUT_BITS / 4) as usize + (64 << 10);

/// The `--check` options.
pub(crate) struct Options {
    pub quiet: bool,
    pub status: bool,
    pub strict: bool,
    pub warn: bool,
    pub ignore_missing: bool,
    pub json: bool,
}

/// One listed file's result as `--json` prints it.
#[derive(Serialize)]
struct JsonResult<'a> {
    name: &'a str,
    line: u64,
    /// "OK", "FAILED" or "FAILED open or read", as the text lines say.
    result: &'a str,
}

/// What became of one listed file.
enum Outcome {
    Ok,
    Failed,
    Unreadable,
    /// Missing and `--ignore-missing`: not reported.
    Skipped,
}

/// Runs `hash --check [LIST]...` as coreutils does: each list in turn (none: standard input),
/// each with its own closing warnings; a list that cannot be opened is reported and the next
/// one checked. Exit 1 if any list failed. With `--tree`, each file goes through the parallel
/// tree as `hash` hashes it (`trees`).
pub(crate) fn run(
    setup: &Setup,
    lists: &[OsString],
    opts: &Options,
    trees: &TreeRun,
) -> Result<Status> {
    if setup.out_bits() > MAX_LIST_OUT_BITS {
        bail!(
            "--out-bits {}: --check lists hold digests of at most {MAX_LIST_OUT_BITS} bits",
            setup.out_bits()
        );
    }
    let stdin = [OsString::from("-")];
    let lists = if lists.is_empty() { &stdin[..] } else { lists };
    let mut status = 0;
    for list in lists {
        let one = match open_list(list) {
            Ok(reader) => check_list(setup, list, reader, opts, trees)?,
            Err(e) => {
                eprintln!("skeinhw: {}", crate::one_line(&e));
                1
            }
        };
        status = status.max(one);
    }
    Ok(status)
}

/// A list to read: standard input for `-`.
fn open_list(list: &OsStr) -> Result<Box<dyn BufRead>> {
    Ok(if list == "-" {
        Box::new(BufReader::new(io::stdin()))
    } else {
        let shown = Path::new(list).display();
        Box::new(BufReader::new(
            File::open(list).with_context(|| format!("{shown}: cannot open"))?,
        ))
    })
}

/// Checks one list (`list` names it in messages) and prints its closing warnings.
fn check_list(
    setup: &Setup,
    list: &OsStr,
    mut reader: Box<dyn BufRead>,
    opts: &Options,
    trees: &TreeRun,
) -> Result<Status> {
    // Standard input is named as coreutils names it.
    let shown = if list == "-" {
        Cow::Borrowed("'standard input'")
    } else {
        Path::new(list).to_string_lossy()
    };
    let (mut failed, mut unreadable, mut malformed, mut proper, mut verified) = (0, 0, 0, 0, 0);
    let mut out = io::stdout().lock();
    let mut line = Vec::new();
    let mut number = 0u64;
    while read_line(&mut reader, &mut line).with_context(|| format!("{shown}: read error"))? {
        number += 1;
        if skeinhw_sumfile::is_blank_or_comment(&line) {
            continue;
        }
        let (entry_setup, entry) = match parse(setup, &line) {
            Ok(v) => v,
            Err(why) => {
                malformed += 1;
                if opts.warn {
                    eprintln!(
                        "skeinhw: {shown}: {number}: improperly formatted checksum line ({why})"
                    );
                }
                continue;
            }
        };
        proper += 1;
        let name = entry.name.as_ref();
        let outcome = verify(
            &entry_setup,
            name,
            &entry.digest,
            opts.ignore_missing,
            trees,
        );
        let result = match outcome {
            Outcome::Skipped => continue,
            Outcome::Ok => "OK",
            Outcome::Failed => "FAILED",
            Outcome::Unreadable => "FAILED open or read",
        };
        verified += 1;
        match outcome {
            Outcome::Failed => failed += 1,
            Outcome::Unreadable => unreadable += 1,
            _ => {}
        }
        let ok = matches!(outcome, Outcome::Ok);
        if opts.status || (ok && opts.quiet) {
            continue;
        }
        if opts.json {
            let record = JsonResult {
                name: &String::from_utf8_lossy(name),
                line: number,
                result,
            };
            writeln!(out, "{}", serde_json::to_string(&record)?)?;
        } else {
            // coreutils escapes a result line's name only when it holds a newline.
            if name.contains(&b'\n') {
                out.write_all(b"\\")?;
                out.write_all(&skeinhw_sumfile::escape_name(name))?;
            } else {
                out.write_all(name)?;
            }
            writeln!(out, ": {result}")?;
        }
    }
    out.flush()?;
    if proper == 0 {
        eprintln!("skeinhw: {shown}: no properly formatted checksum lines found");
        return Ok(1);
    }
    if !opts.status {
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        if malformed > 0 {
            eprintln!(
                "skeinhw: WARNING: {} improperly formatted",
                plural(malformed, "line is", "lines are")
            );
        }
        if unreadable > 0 {
            eprintln!(
                "skeinhw: WARNING: {} not be read",
                plural(unreadable, "listed file could", "listed files could")
            );
        }
        if failed > 0 {
            eprintln!(
                "skeinhw: WARNING: {} NOT match",
                plural(failed, "computed checksum did", "computed checksums did")
            );
        }
    }
    if opts.ignore_missing && verified == 0 {
        eprintln!("skeinhw: {shown}: no file was verified");
        return Ok(1);
    }
    let bad = failed + unreadable > 0 || (opts.strict && malformed > 0);
    Ok(u8::from(bad))
}

/// A list line: its entry and the setup that checks it (the line's tag, or the options').
fn parse<'l>(setup: &Setup, line: &'l [u8]) -> Result<(Setup, skeinhw_sumfile::Entry<'l>), String> {
    let entry = skeinhw_sumfile::parse_line(line).map_err(|e| e.to_string())?;
    let entry_setup = match entry.tag {
        Some(tag) => setup.for_tag(tag).ok_or_else(|| {
            format!("'{tag}' is not a skeinhw tag (SKEIN-<size>-<bits>, SHABAL-<bits>)")
        })?,
        None => Setup {
            params: setup.params.clone(),
            ..*setup
        },
    };
    if entry_setup.out_bits() > MAX_LIST_OUT_BITS {
        return Err(format!(
            "{} bits is beyond the {MAX_LIST_OUT_BITS}-bit limit of check lists",
            entry_setup.out_bits()
        ));
    }
    let expected = entry_setup.out_bits().div_ceil(8) as usize;
    if entry.digest.len() != expected {
        return Err(format!(
            "digest has {} hex digits; {} gives {}",
            entry.digest.len() * 2,
            if entry.tag.is_some() {
                "its tag"
            } else {
                "--size/--out-bits/--alg"
            },
            expected * 2
        ));
    }
    Ok((entry_setup, entry))
}

/// Recomputes one listed file's digest (a `hex:` name is a message given in hex) and compares.
fn verify(
    setup: &Setup,
    name: &[u8],
    expected: &[u8],
    ignore_missing: bool,
    trees: &TreeRun,
) -> Outcome {
    let actual = match std::str::from_utf8(name)
        .ok()
        .and_then(|n| n.strip_prefix("hex:"))
    {
        Some(spec) => hash_hex_name(setup, spec),
        None => digest_of(setup, &os_name(name), trees),
    };
    match actual {
        Ok(d) if d == expected => Outcome::Ok,
        Ok(_) => Outcome::Failed,
        Err(e) => {
            let missing = e
                .chain()
                .filter_map(|c| c.downcast_ref::<io::Error>())
                .any(|io| io.kind() == io::ErrorKind::NotFound);
            if missing && ignore_missing {
                return Outcome::Skipped;
            }
            eprintln!("skeinhw: {}", crate::one_line(&e));
            Outcome::Unreadable
        }
    }
}

/// A name read from a list as the system's file name (any bytes on Unix).
fn os_name(name: &[u8]) -> Cow<'_, OsStr> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Cow::Borrowed(OsStr::from_bytes(name))
    }
    #[cfg(not(unix))]
    {
        Cow::Owned(String::from_utf8_lossy(name).into_owned().into())
    }
}

/// Reads one line without its `\n` into `line`; false at the end of the list. A line longer
/// than MAX_LINE is cut there (it then fails to parse) and the rest of it skipped, so a list
/// without newlines never fills memory.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let n = reader
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', line)?;
    if n == 0 {
        return Ok(false);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        return Ok(true);
    }
    if line.len() > MAX_LINE {
        // Skip to the end of this line in bounded pieces.
        loop {
            let buf = reader.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    reader.consume(i + 1);
                    break;
                }
                None => {
                    let len = buf.len();
                    reader.consume(len);
                }
            }
        }
    }
    Ok(true)
}
