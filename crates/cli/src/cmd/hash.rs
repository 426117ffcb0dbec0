//! `skeinhw hash`: Skein digests of files, standard input or a hex message, printed like
//! `b2sum` (`<hex digest>  <name>`), with `--check` to verify such a list.
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
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use skeinhw_shabal::Shabal;
use skeinhw_skein::batch::Backend;
use skeinhw_skein::batch::{self, Request};
use skeinhw_skein::stream_lanes;
use skeinhw_skein::stream_tree::{self, TreeHasher};
use skeinhw_skein::{DynOutputReader, DynSkein};

use crate::Status;
use crate::message::{MessageArgs, OwnedParams};

mod check;

/// Inputs larger than this show a progress bar when standard error is a terminal.
const PROGRESS_THRESHOLD: u64 = 64 << 20;
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

/// Arguments of `hash`.
#[derive(Args, Debug)]
pub struct HashArgs {
    /// Files to hash; none or `-` reads standard input. Any name the system allows.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,
    #[command(flatten)]
    pub message: MessageArgs,
    /// Hash function: skein (sizes by --size/--out-bits) or shabal-192, shabal-224, shabal-256,
    /// shabal-384, shabal-512.
    #[arg(long, default_value = "skein", value_parser = parse_alg)]
    pub alg: Alg,
    /// Verify the digests listed in FILE (`-` for standard input), GNU or --tag lines, as
    /// `b2sum -c` does. Exit 1 if any digest differs or any listed file cannot be read.
    #[arg(short = 'c', long, value_name = "FILE", conflicts_with = "hex")]
    pub check: Option<OsString>,
    /// --check: print nothing for files that verify.
    #[arg(long, overrides_with_all = ["status", "warn"])]
    pub quiet: bool,
    /// --check: print nothing; the exit status tells.
    #[arg(long, overrides_with_all = ["quiet", "warn"])]
    pub status: bool,
    /// --check: exit 1 if any line of the list is improperly formatted.
    #[arg(long)]
    pub strict: bool,
    /// --check: warn about each improperly formatted line.
    #[arg(short = 'w', long, overrides_with_all = ["quiet", "status"])]
    pub warn: bool,
    /// --check: a listed file that does not exist is neither reported nor a failure.
    #[arg(long)]
    pub ignore_missing: bool,
    /// BSD-style lines: `SKEIN-512-512 (FILE) = <hex>` (SKEIN-<size>-<out bits>,
    /// SHABAL-<out bits>); --check reads them back.
    #[arg(long, conflicts_with_all = ["check", "json", "raw"])]
    pub tag: bool,
    /// End each output line with NUL instead of newline, and never escape names (as b2sum -z).
    #[arg(short = 'z', long, conflicts_with_all = ["check", "json", "raw"])]
    pub zero: bool,
    /// Write the digest of one input as raw bytes (no hex, no name): with --out-bits, a Skein
    /// output stream of any length (`skeinhw hash --out-bits 8000000000000 --raw > FILE`).
    #[arg(long, conflicts_with_all = ["check", "json"])]
    pub raw: bool,
    /// Print one JSON object per input (with --check: per listed file) instead of text lines.
    #[arg(long)]
    pub json: bool,
    /// Threads for batches of files and for --tree (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// Read files with read(2) instead of mapping them into memory. --tree maps regular
    /// files: faster (no copy out of the page cache), but a file that another program
    /// shrinks meanwhile ends the run with an error (exit 1), where reading would hash it as
    /// far as it got.
    #[arg(long)]
    pub no_mmap: bool,
}

/// The hash function of `--alg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// Skein with the state size of `--size`.
    Skein,
    /// Shabal with this many output bits.
    Shabal(u64),
}

fn parse_alg(s: &str) -> Result<Alg, String> {
    match s {
        "skein" => Ok(Alg::Skein),
        "shabal-192" => Ok(Alg::Shabal(192)),
        "shabal-224" => Ok(Alg::Shabal(224)),
        "shabal-256" => Ok(Alg::Shabal(256)),
        "shabal-384" => Ok(Alg::Shabal(384)),
        "shabal-512" => Ok(Alg::Shabal(512)),
        _ => Err(format!(
            "'{s}' is not a hash function; allowed: skein, shabal-192, shabal-224, shabal-256, \
             shabal-384, shabal-512"
        )),
    }
}

/// A hasher of either function.
enum Hasher {
    // Boxed: both hashers are hundreds of bytes of state, of different sizes.
    Skein(Box<DynSkein>),
    Shabal(Box<Shabal>),
}

impl Hasher {
    fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Skein(h) => h.update(data),
            Hasher::Shabal(h) => h.update(data),
        }
    }

    fn update_bits(&mut self, data: &[u8], bits: u64) -> Result<()> {
        match self {
            Hasher::Skein(h) => h.update_bits(data, bits)?,
            Hasher::Shabal(h) => h.update_bits(data, bits)?,
        }
        Ok(())
    }

    /// The digest in memory, or the output stream when it is longer than STREAM_OUT_BITS.
    fn finish(self, out_bits: u64) -> Digest {
        match self {
            Hasher::Skein(h) if out_bits > STREAM_OUT_BITS => {
                Digest::Stream(Box::new(h.finalize_reader()))
            }
            Hasher::Skein(h) => Digest::Bytes(h.finalize()),
            Hasher::Shabal(h) => Digest::Bytes(h.finalize()),
        }
    }
}

/// A finished hash: the digest in memory, or Skein's output transform read as a stream.
pub(crate) enum Digest {
    Bytes(Vec<u8>),
    Stream(Box<DynOutputReader>),
}

impl Digest {
    /// The whole digest in memory; callers bound the length first (MAX_LIST_OUT_BITS).
    fn into_bytes(self) -> Vec<u8> {
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
    fn write(self, out: &mut impl Write, raw: bool) -> io::Result<()> {
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
enum Style {
    /// `<hex>  <name>`, or BSD `<TAG> (<name>) = <hex>` with `tag`; NUL-ended with `zero`.
    Line { tag: bool, zero: bool },
    /// One JSON object per line.
    Json,
    /// The digest bytes alone.
    Raw,
}

/// What hashing one input needs besides the input.
pub(crate) struct Setup {
    alg: Alg,
    size: usize,
    out_bits: u64,
    params: OwnedParams,
}

impl Setup {
    fn hasher(&self) -> Result<Hasher> {
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
    fn alg_name(&self) -> &'static str {
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
    if let (None, Some((opt, _))) = (&args.check, check_only.iter().find(|(_, on)| *on)) {
        bail!("{opt} is meaningful only when verifying digests (--check LIST)");
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
    if let Some(list) = &args.check {
        if let Some(first) = args.files.first() {
            bail!(
                "--check {}: the files to verify come from the list; '{}' given as well \
                 (hash files without --check)",
                Path::new(list).display(),
                Path::new(first).display()
            );
        }
        let options = check::Options {
            quiet: args.quiet,
            status: args.status,
            strict: args.strict,
            warn: args.warn,
            ignore_missing: args.ignore_missing,
            json: args.json,
        };
        return check::run(&setup, list, &options, &trees);
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

/// Prints one input's digest (digest and length in bytes) or its error.
type Report<'r> = dyn FnMut(&OsStr, Result<(Digest, u64)>) -> Result<()> + 'r;

/// One input's result, sent from the hashing threads to the printing one.
type Done = (usize, Result<(Digest, u64)>);

/// Several files at once, printed in argument order as they become ready. Regular files up to
/// BATCH_FILE_LIMIT are read whole in groups of BATCH_BYTES and hashed in SIMD lanes across the
/// threads (`batch`); the others (and standard input) stream through the lanes at the same
/// time (`stream_lanes`: one block of each of several files per lane step, constant memory per
/// file), one lane worker per thread.
fn hash_many(
    pool: &rayon::ThreadPool,
    setup: &Setup,
    backend: Backend,
    files: &[OsString],
    report: &mut Report<'_>,
) -> Result<()> {
    let small: Vec<bool> = files
        .iter()
        .map(|name| {
            name != "-"
                && std::fs::metadata(name).is_ok_and(|m| m.is_file() && m.len() <= BATCH_FILE_LIMIT)
        })
        .collect();
    let (tx, rx) = std::sync::mpsc::channel::<Done>();
    let small = &small;
    std::thread::scope(|s| {
        s.spawn(move || {
            let tx2 = tx.clone();
            pool.install(|| {
                rayon::join(
                    || hash_small(setup, backend, files, small, &tx),
                    || hash_streamed(setup, backend, files, small, &tx2),
                )
            })
        });
        // The printing side: results wait here until every earlier one is printed.
        let mut ready: Vec<Option<Result<(Digest, u64)>>> = files.iter().map(|_| None).collect();
        let mut next = 0;
        for (i, r) in rx {
            ready[i] = Some(r);
            while let Some(r) = ready.get_mut(next).and_then(Option::take) {
                // An output error drops `rx`: the hashing threads stop at their next result.
                report(&files[next], r)?;
                next += 1;
            }
        }
        anyhow::ensure!(next == files.len(), "a file's result went missing");
        Ok(())
    })
}

/// The small files, read whole in groups of at most BATCH_BYTES, each group one batch in SIMD
/// lanes across the threads. A file that grew past the limit since it was listed is streamed
/// on its own.
fn hash_small(
    setup: &Setup,
    backend: Backend,
    files: &[OsString],
    small: &[bool],
    tx: &std::sync::mpsc::Sender<Done>,
) {
    let params = setup.params.params();
    let flush = |group: &mut Vec<(usize, Vec<u8>)>| -> bool {
        let requests: Vec<Request<'_>> = group
            .iter()
            .map(|(_, data)| Request {
                params,
                ..Request::new(setup.size, setup.out_bits, data)
            })
            .collect();
        match batch::hash_batch_parallel(backend, &requests) {
            Ok(digests) => group.drain(..).zip(digests).all(|((i, data), d)| {
                tx.send((i, Ok((Digest::Bytes(d), data.len() as u64))))
                    .is_ok()
            }),
            // Parameters are checked before any input is read: not reached.
            Err(e) => group
                .drain(..)
                .all(|(i, _)| tx.send((i, Err(anyhow::anyhow!("{e}")))).is_ok()),
        }
    };
    let mut group: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut bytes = 0u64;
    for (i, name) in files.iter().enumerate() {
        if !small[i] {
            continue;
        }
        let r = match read_whole(name, BATCH_FILE_LIMIT) {
            Ok(Some(data)) => {
                if bytes + data.len() as u64 > BATCH_BYTES {
                    if !flush(&mut group) {
                        return;
                    }
                    bytes = 0;
                }
                bytes += data.len() as u64;
                group.push((i, data));
                continue;
            }
            Ok(None) => hash_input(setup, name),
            Err(e) => Err(e),
        };
        if tx.send((i, r)).is_err() {
            return;
        }
    }
    flush(&mut group);
}

/// A file that could not be opened, told apart from a read error in `stream_lanes`' report.
#[derive(Debug)]
struct OpenFailed(anyhow::Error);

impl std::fmt::Display for OpenFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for OpenFailed {}

/// The files that are not small (and standard input) through `stream_lanes`, over the pool.
fn hash_streamed(
    setup: &Setup,
    backend: Backend,
    files: &[OsString],
    small: &[bool],
    tx: &std::sync::mpsc::Sender<Done>,
) {
    let which: Vec<usize> = (0..files.len()).filter(|&i| !small[i]).collect();
    if which.is_empty() {
        return;
    }
    let tx = std::sync::Mutex::new(tx.clone());
    let open = |k: usize| -> io::Result<Box<dyn Read>> {
        let name = &files[which[k]];
        if name == "-" {
            return Ok(Box::new(io::stdin().lock()));
        }
        open_file(name)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|e| io::Error::other(OpenFailed(e)))
    };
    let done = |k: usize, r: io::Result<(Vec<u8>, u64)>| {
        let i = which[k];
        let r = r.map(|(d, len)| (Digest::Bytes(d), len)).map_err(|e| {
            match e.into_inner().map(|inner| inner.downcast::<OpenFailed>()) {
                Some(Ok(open)) => open.0,
                Some(Err(other)) => read_error(&files[i], &other.to_string()),
                None => read_error(&files[i], "unknown error"),
            }
        });
        tx.lock()
            .expect("no panic while sending")
            .send((i, r))
            .is_ok()
    };
    let r = stream_lanes::hash_streams(
        backend,
        true,
        setup.size,
        setup.out_bits,
        &setup.params.params(),
        which.len(),
        open,
        done,
    );
    if let Err(e) = r {
        // Parameters are checked before any input is read: not reached.
        let tx = tx.lock().expect("no panic while sending");
        for &i in &which {
            let _ = tx.send((i, Err(anyhow::anyhow!("{e}"))));
        }
    }
}

/// A read error as [`hash_input`] words it.
fn read_error(name: &OsStr, e: &str) -> anyhow::Error {
    if name == "-" {
        anyhow::anyhow!("standard input: read error: {e}")
    } else {
        anyhow::anyhow!("{}: read error: {e}", Path::new(name).display())
    }
}

/// Opens `name` and reads it whole if it has at most `limit` bytes, else `None`.
fn read_whole(name: &OsStr, limit: u64) -> Result<Option<Vec<u8>>> {
    let shown = Path::new(name).display();
    let mut file = File::open(name).with_context(|| format!("{shown}: cannot open"))?;
    let meta = file
        .metadata()
        .with_context(|| format!("{shown}: cannot read"))?;
    if meta.is_dir() {
        bail!("{shown}: is a directory");
    }
    if !meta.is_file() || meta.len() > limit {
        return Ok(None);
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    // A file that grew since `metadata` is read up to the limit, then streamed.
    (&mut file)
        .take(limit + 1)
        .read_to_end(&mut data)
        .with_context(|| format!("{shown}: read error"))?;
    if data.len() as u64 > limit {
        return Ok(None);
    }
    Ok(Some(data))
}

/// How `--tree` inputs are hashed: on these threads and lanes, a regular file mapped or read.
pub(crate) struct TreeRun<'p> {
    pub pool: &'p rayon::ThreadPool,
    pub backend: Backend,
    pub map: bool,
}

/// One input (`-` for standard input) as `hash` hashes it alone: through the parallel tree
/// with `--tree` (when the digest is held in memory), else streamed through one hasher.
pub(crate) fn hash_any_input(
    setup: &Setup,
    name: &OsStr,
    trees: &TreeRun,
) -> Result<(Digest, u64)> {
    let in_memory = setup.out_bits <= STREAM_OUT_BITS;
    if setup.alg == Alg::Skein && setup.params.tree.is_some() && in_memory {
        trees
            .pool
            .install(|| hash_tree_input(setup, trees.backend, name, trees.map))
    } else {
        hash_input(setup, name)
    }
}

/// `--tree`: a file or standard input streams through the parallel tree
/// (`skeinhw_skein::stream_tree`: leaves in SIMD lanes, across the current thread pool; a
/// regular file read window by window by the hashing threads themselves, other input read
/// ahead on a thread of its own) in memory bounded by the tree height, whatever its size.
/// With `map`, a regular file's windows are mapped rather than read (Unix).
fn hash_tree_input(
    setup: &Setup,
    backend: Backend,
    name: &OsStr,
    map: bool,
) -> Result<(Digest, u64)> {
    let tree = TreeHasher::new(
        backend,
        true,
        setup.size,
        setup.out_bits,
        &setup.params.params(),
    )?;
    let (digest, len) = if name == "-" {
        stream_tree::hash_reader(tree, io::stdin()).context("standard input: read error")?
    } else {
        let shown = Path::new(name).display();
        let file = open_file(name)?;
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        if regular && map && cfg!(unix) {
            hash_file_mapped(tree, &file, &shown.to_string())
        } else if regular {
            stream_tree::hash_file(tree, &file)
        } else {
            stream_tree::hash_reader(tree, file)
        }
        .with_context(|| format!("{shown}: read error"))?
    };
    Ok((Digest::Bytes(digest), len))
}

/// [`stream_tree::hash_file_mapped`] under a [`crate::sigbus::Guard`] naming the file.
#[cfg(unix)]
fn hash_file_mapped(tree: TreeHasher, file: &File, shown: &str) -> io::Result<(Vec<u8>, u64)> {
    let _guard = crate::sigbus::Guard::new(shown);
    // SAFETY: a file that shrinks meanwhile raises SIGBUS, which the guard turns into a
    // one-line error and exit 1; one that is written meanwhile gives a digest of a mix of old
    // and new bytes, as reading would (`--no-mmap` for files that change).
    #[allow(unsafe_code)]
    unsafe {
        stream_tree::hash_file_mapped(tree, file)
    }
}

#[cfg(not(unix))]
fn hash_file_mapped(tree: TreeHasher, file: &File, _shown: &str) -> io::Result<(Vec<u8>, u64)> {
    stream_tree::hash_file(tree, file)
}

/// Opens a file to hash: an error names it; a directory is refused.
fn open_file(name: &OsStr) -> Result<File> {
    let shown = Path::new(name).display();
    let file = File::open(name).with_context(|| format!("{shown}: cannot open"))?;
    let meta = file
        .metadata()
        .with_context(|| format!("{shown}: cannot read"))?;
    if meta.is_dir() {
        bail!("{shown}: is a directory");
    }
    Ok(file)
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

/// Prints one digest in `style`; `name` is the file name's bytes (any bytes).
fn print_digest(
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

/// Hashes a file (or standard input for `-`) in constant memory; returns digest and length.
pub(crate) fn hash_input(setup: &Setup, name: &OsStr) -> Result<(Digest, u64)> {
    if name == "-" {
        return hash_reader(setup, io::stdin().lock(), None);
    }
    let path = Path::new(name);
    let shown = path.display();
    let file = File::open(path).with_context(|| format!("{shown}: cannot open"))?;
    let meta = file
        .metadata()
        .with_context(|| format!("{shown}: cannot read"))?;
    if meta.is_dir() {
        bail!("{shown}: is a directory");
    }
    let len = meta.len();
    let bar = (len >= PROGRESS_THRESHOLD && io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(len);
        bar.set_style(
            ProgressStyle::with_template("{msg} {wide_bar} {bytes}/{total_bytes} {bytes_per_sec}")
                .expect("valid template"),
        );
        bar.set_message(shown.to_string());
        bar
    });
    hash_reader(setup, file, bar.as_ref()).with_context(|| format!("{shown}: read error"))
}

fn hash_reader(
    setup: &Setup,
    mut reader: impl Read,
    bar: Option<&ProgressBar>,
) -> Result<(Digest, u64)> {
    let mut h = setup.hasher()?;
    let mut buf = vec![0u8; READ_CHUNK];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        h.update(&buf[..n]);
        total += n as u64;
        if let Some(bar) = bar {
            bar.set_position(total);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok((h.finish(setup.out_bits), total))
}

/// Recomputes a `--hex` entry's digest from its name (`hex:<digits>[/<bits>]`).
pub(crate) fn hash_hex_name(setup: &Setup, spec: &str) -> Result<Vec<u8>> {
    let (digits, bits) = match spec.split_once('/') {
        Some((d, b)) => (d, Some(b.parse::<u64>().context("bit count")?)),
        None => (spec, None),
    };
    let bytes = crate::message::decode_hex("hex", digits)?;
    let mut h = setup.hasher()?;
    h.update_bits(&bytes, bits.unwrap_or(bytes.len() as u64 * 8))?;
    Ok(h.finish(setup.out_bits).into_bytes())
}

/// The digest of a listed file, bounded by MAX_LIST_OUT_BITS by the caller.
pub(crate) fn digest_of(setup: &Setup, name: &OsStr, trees: &TreeRun) -> Result<Vec<u8>> {
    Ok(hash_any_input(setup, name, trees)?.0.into_bytes())
}
