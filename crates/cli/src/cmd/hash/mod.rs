//! `skeinhw hash`: Skein digests of files, standard input or a hex message, printed like
//! `b2sum` (`<hex digest>  <name>`), with `-c/--check` to verify such lists.
//!
//! Names are bytes (any name the system allows), escaped as coreutils does
//! (`skeinhw_sumfile`); `--tag`, `-z`, and `--check` with `--quiet`, `--status`, `--strict`,
//! `--warn` and `--ignore-missing` behave as `b2sum`'s.
//!
//! Exit status (as coreutils): 0 all good; 1 a file could not be read, a digest did not match,
//! or (`--check`) the list had no usable line or, with `--strict`, a malformed one; 2 a usage
//! or input error (one line on standard error).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::ProgressBar;
use serde::Serialize;
use skeinhw_shabal::Shabal;
use skeinhw_skein::batch::Backend;
use skeinhw_skein::batch::{self, Request};
use skeinhw_skein::stream_lanes;
use skeinhw_skein::stream_tree::{self, TreeHasher};
use skeinhw_skein::{DynOutputReader, DynSkein};

use crate::Status;
use crate::message::{MessageArgs, OwnedParams};

mod args;
mod check;
mod digest;
mod input;
mod many;
mod read_ahead;
mod setup;

pub use args::{Alg, HashArgs};
pub(crate) use digest::Digest;
use digest::{Style, print_digest};
use input::open_file;
pub(crate) use input::{TreeRun, digest_of, hash_any_input, hash_hex_name, hash_input};
use many::hash_many;
pub(crate) use setup::Setup;

/// Read buffer: large enough to amortize system calls, small enough to stay in cache.
const READ_CHUNK: usize = 1 << 20;
/// Files up to this size are read whole and hashed together in SIMD lanes
/// (`skeinhw_skein::batch`) when several are given; larger ones, and standard input, are
/// streamed in constant memory, each on a thread of the pool.
const BATCH_FILE_LIMIT: u64 = 1 << 20;
/// Bytes read ahead for one batch: bounds the memory the batch path holds at once.
const BATCH_BYTES: u64 = 64 << 20;

/// Output lengths up to this many bits (the largest state) are computed in memory, in SIMD
/// batches; longer ones stream from Skein's output transform (`skeinhw_skein::output`) straight
/// to standard output, in constant memory.
pub const STREAM_OUT_BITS: u64 = 1024;
/// The longest output (in bits) a line that must be read back or parsed whole can hold:
/// `--tag`, `--json` and `--check` lists (a 2^20-bit digest is a 256 KiB hex line). Plain
/// lines and `--raw` have no limit but Skein's own (2^64 - 1 bits).
pub const MAX_LIST_OUT_BITS: u64 = 1 << 20;

/// Runs `skeinhw hash`.
pub fn run(args: HashArgs) -> Result<Status> {
    let setup = match args.alg {
        Alg::Skein => Setup {
            alg: Alg::Skein,
            size: args.message.size(),
            out_bits: args.message.out_bits()?,
            params: args.message.params()?,
        },
        Alg::Shabal(bits) => {
            reject_skein_options(&args.message, bits)?;
            Setup {
                alg: args.alg,
                size: 512,
                out_bits: bits,
                params: OwnedParams::default(),
            }
        }
    };
    // Reject impossible parameters once, before any input is read.
    setup.hasher()?;
    // A bad SKEINHW_LANES is a usage error, not a silent fallback.
    let backend = batch::forced()?.unwrap_or_else(batch::detected);
    let check_only = [
        ("--quiet", args.quiet),
        ("--status", args.status),
        ("--strict", args.strict),
        ("--warn", args.warn),
        ("--ignore-missing", args.ignore_missing),
    ];
    if let (false, Some((opt, _))) = (args.check, check_only.iter().find(|(_, on)| *on)) {
        bail!("{opt} is meaningful only when verifying digests (-c/--check)");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.map_or(0, |j| j as usize))
        .build()
        .context("cannot start the worker threads")?;
    let trees = TreeRun {
        pool: &pool,
        backend,
        map: !args.no_mmap,
    };
    if args.check {
        let options = check::Options {
            quiet: args.quiet,
            status: args.status,
            strict: args.strict,
            warn: args.warn,
            ignore_missing: args.ignore_missing,
            json: args.json,
        };
        return check::run(&setup, &args.files, &options, &trees);
    }
    let style = if args.json {
        Style::Json
    } else if args.raw {
        Style::Raw
    } else {
        Style::Line {
            tag: args.tag,
            zero: args.zero,
        }
    };
    if (args.tag || args.json) && setup.out_bits > MAX_LIST_OUT_BITS {
        bail!(
            "--out-bits {}: --tag and --json lines hold at most {MAX_LIST_OUT_BITS} bits; \
             plain lines and --raw stream any length",
            setup.out_bits
        );
    }
    if args.message.msg_file.is_some() {
        bail!("--msg-file: hash takes files as arguments (skeinhw hash FILE...)");
    }
    let mut out = io::stdout().lock();
    if let Some((bytes, bits)) = args.message.hex_message()? {
        if let Some(first) = args.files.first() {
            bail!(
                "--hex hashes the hex message; the file '{}' given as well would be ignored \
                 (give one or the other)",
                Path::new(first).display()
            );
        }
        let mut h = setup.hasher()?;
        h.update_bits(&bytes, bits)?;
        let name = hex_name(&bytes, bits);
        let digest = h.finish(setup.out_bits);
        print_digest(&mut out, &setup, name.as_bytes(), digest, bits, style)?;
        return Ok(0);
    }
    let files = if args.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        args.files.clone()
    };
    if style == Style::Raw && files.len() > 1 {
        bail!(
            "--raw writes the digest of one input; {} files given",
            files.len()
        );
    }
    let mut status = 0;
    let mut report = |out: &mut io::StdoutLock<'_>, name: &OsStr, r: Result<(Digest, u64)>| {
        match r {
            Ok((digest, bytes)) => print_digest(
                out,
                &setup,
                name.as_encoded_bytes(),
                digest,
                bytes * 8,
                style,
            )?,
            Err(e) => {
                // Like sha256sum: report, go on with the other files, fail at the end.
                eprintln!("skeinhw: {}", crate::one_line(&e));
                status = 1;
            }
        }
        anyhow::Ok(())
    };
    let in_memory = setup.out_bits <= STREAM_OUT_BITS;
    let batching =
        setup.alg == Alg::Skein && setup.params.tree.is_none() && files.len() > 1 && in_memory;
    if !batching {
        for name in &files {
            // Flushed now: a mapped file that shrinks ends the process (`sigbus`).
            out.flush()?;
            let r = hash_any_input(&setup, name, &trees);
            report(&mut out, name, r)?;
        }
        return Ok(status);
    }
    hash_many(&pool, &setup, backend, &files, &mut |n, r| {
        report(&mut out, n, r)
    })?;
    Ok(status)
}

/// Shabal has no state-size choice, key, optional arguments or tree mode: say so instead of
/// silently ignoring the option.
fn reject_skein_options(m: &MessageArgs, bits: u64) -> Result<()> {
    let size = m.size.is_some().then_some("--size");
    if let Some(opt) = m.skein_argument_given().or(size) {
        bail!("{opt} is a Skein option; --alg shabal-{bits} does not take it");
    }
    if let Some(o) = m.out_bits.filter(|&o| o != bits) {
        bail!("--out-bits {o} disagrees with --alg shabal-{bits}");
    }
    Ok(())
}

/// The name printed for a `--hex` message: `hex:<digits>`, with `/<bits>` when the length is
/// not a whole number of bytes' worth of the digits given.
fn hex_name(bytes: &[u8], bits: u64) -> String {
    if bits == bytes.len() as u64 * 8 {
        format!("hex:{}", hex::encode(bytes))
    } else {
        format!("hex:{}/{bits}", hex::encode(bytes))
    }
}
