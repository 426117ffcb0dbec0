//! `skeinhw hash`: Skein digests of files, standard input or a hex message, printed like
//! `b2sum` (`<hex digest>  <name>`), with `--check` to verify such a list.
//!
//! Exit status: 0 all good; 1 a file could not be read or a digest did not match; 2 a usage
//! error or a malformed `--check` line.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use skeinhw_shabal::Shabal;
use skeinhw_skein::DynSkein;
use skeinhw_skein::batch::{self, Request};
use skeinhw_skein::par_tree;

use crate::Status;
use crate::message::{MessageArgs, OwnedParams};

/// Inputs larger than this show a progress bar when standard error is a terminal.
const PROGRESS_THRESHOLD: u64 = 64 << 20;
/// Read buffer: large enough to amortize system calls, small enough to stay in cache.
const READ_CHUNK: usize = 1 << 20;
/// Files up to this size are read whole and hashed together in SIMD lanes
/// (`skeinhw_skein::batch`) when several are given; larger ones are streamed one at a time,
/// where a single message gains nothing from lanes.
const BATCH_FILE_LIMIT: u64 = 16 << 20;
/// Bytes read ahead for one batch: bounds the memory the batch path holds at once.
const BATCH_BYTES: u64 = 256 << 20;
/// With `--tree`, files up to this size are read whole and hashed by the parallel tree
/// (`skeinhw_skein::par_tree`); larger ones, and standard input, stream through the
/// sequential tree in constant memory.
const TREE_MEMORY_LIMIT: u64 = 1 << 30;

/// Arguments of `hash`.
#[derive(Args, Debug)]
pub struct HashArgs {
    /// Files to hash; none or `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub message: MessageArgs,
    /// Hash function: skein (sizes by --size/--out-bits) or shabal-192, shabal-224, shabal-256,
    /// shabal-384, shabal-512.
    #[arg(long, default_value = "skein", value_parser = parse_alg)]
    pub alg: Alg,
    /// Verify the digests listed in FILE (as printed by `skeinhw hash`) with these options.
    #[arg(long, value_name = "FILE", conflicts_with = "hex")]
    pub check: Option<String>,
    /// Print one JSON object per input instead of `<digest>  <name>`.
    #[arg(long)]
    pub json: bool,
    /// Threads for batches of files and for --tree (default: one per CPU).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
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

    fn finalize(self) -> Vec<u8> {
        match self {
            Hasher::Skein(h) => h.finalize(),
            Hasher::Shabal(h) => h.finalize(),
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

/// What hashing one input needs besides the input.
struct Setup {
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
    if let Some(list) = &args.check {
        return check(&setup, list);
    }
    let mut out = io::stdout().lock();
    if args.message.msg_file.is_some() {
        bail!("--msg-file: hash takes files as arguments (skeinhw hash FILE...)");
    }
    if let Some((bytes, bits)) = args.message.hex_message()? {
        let mut h = setup.hasher()?;
        h.update_bits(&bytes, bits)?;
        let name = hex_name(&bytes, bits);
        print_digest(&mut out, &setup, &name, &h.finalize(), bits, args.json)?;
        return Ok(0);
    }
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.map_or(0, |j| j as usize))
        .build()
        .context("cannot start the worker threads")?;
    let mut status = 0;
    let mut report = |out: &mut io::StdoutLock<'_>, name: &str, r: Result<(Vec<u8>, u64)>| {
        match r {
            Ok((digest, bytes)) => print_digest(out, &setup, name, &digest, bytes * 8, args.json)?,
            Err(e) => {
                // Like sha256sum: report, go on with the other files, fail at the end.
                eprintln!("skeinhw: {}", crate::one_line(&e));
                status = 1;
            }
        }
        anyhow::Ok(())
    };
    let batching = setup.alg == Alg::Skein && setup.params.tree.is_none() && files.len() > 1;
    if !batching {
        for name in &files {
            let r = if setup.alg == Alg::Skein && setup.params.tree.is_some() {
                pool.install(|| hash_tree_input(&setup, name))
            } else {
                hash_input(&setup, name)
            };
            report(&mut out, name, r)?;
        }
        return Ok(status);
    }
    // Several files: small ones are read ahead and hashed together in SIMD lanes and across
    // the threads, in groups of at most BATCH_BYTES; the output keeps the order of the
    // arguments.
    let mut pending: Vec<(&str, Result<Option<Vec<u8>>>)> = Vec::new();
    let mut pending_bytes = 0u64;
    for name in &files {
        let loaded = load_small(name);
        let len = match &loaded {
            Ok(Some(d)) => d.len() as u64,
            _ => 0,
        };
        if pending_bytes + len > BATCH_BYTES {
            flush_batch(&pool, &setup, &mut pending, &mut |n, r| {
                report(&mut out, n, r)
            })?;
            pending_bytes = 0;
        }
        pending_bytes += len;
        pending.push((name, loaded));
    }
    flush_batch(&pool, &setup, &mut pending, &mut |n, r| {
        report(&mut out, n, r)
    })?;
    Ok(status)
}

/// Reads a regular file of at most BATCH_FILE_LIMIT bytes whole; `None` for standard input
/// and larger files, which are streamed instead. Errors read like [`hash_input`]'s.
fn load_small(name: &str) -> Result<Option<Vec<u8>>> {
    if name == "-" {
        return Ok(None);
    }
    read_whole(name, BATCH_FILE_LIMIT)
}

/// Opens `name` and reads it whole if it has at most `limit` bytes, else `None`.
fn read_whole(name: &str, limit: u64) -> Result<Option<Vec<u8>>> {
    let mut file = File::open(name).with_context(|| format!("{name}: cannot open"))?;
    let meta = file
        .metadata()
        .with_context(|| format!("{name}: cannot read"))?;
    if meta.is_dir() {
        bail!("{name}: is a directory");
    }
    if !meta.is_file() || meta.len() > limit {
        return Ok(None);
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut data)
        .with_context(|| format!("{name}: read error"))?;
    Ok(Some(data))
}

/// Prints one input's digest (digest and length in bytes) or its error.
type Report<'r> = dyn FnMut(&str, Result<(Vec<u8>, u64)>) -> Result<()> + 'r;

/// Hashes the files read ahead in one batch, then reports every pending file in order,
/// streaming those that were not read ahead.
fn flush_batch(
    pool: &rayon::ThreadPool,
    setup: &Setup,
    pending: &mut Vec<(&str, Result<Option<Vec<u8>>>)>,
    report: &mut Report<'_>,
) -> Result<()> {
    let params = setup.params.params();
    let requests: Vec<Request<'_>> = pending
        .iter()
        .filter_map(|(_, r)| match r {
            Ok(Some(data)) => Some(Request {
                params,
                ..Request::new(setup.size, setup.out_bits, data)
            }),
            _ => None,
        })
        .collect();
    let backend = batch::detected();
    let mut digests = pool
        .install(|| batch::hash_batch_parallel(backend, &requests))?
        .into_iter();
    for (name, loaded) in pending.drain(..) {
        let r = match loaded {
            Ok(Some(data)) => Ok((
                digests.next().expect("one digest per request"),
                data.len() as u64,
            )),
            Ok(None) => hash_input(setup, name),
            Err(e) => Err(e),
        };
        report(name, r)?;
    }
    Ok(())
}

/// `--tree`: a file of at most TREE_MEMORY_LIMIT bytes is read whole and hashed by the
/// parallel tree (leaves in SIMD lanes, across the current thread pool); anything else
/// streams as [`hash_input`] does.
fn hash_tree_input(setup: &Setup, name: &str) -> Result<(Vec<u8>, u64)> {
    let data = if name == "-" {
        None
    } else {
        read_whole(name, TREE_MEMORY_LIMIT)?
    };
    let Some(data) = data else {
        return hash_input(setup, name);
    };
    let request = Request {
        params: setup.params.params(),
        ..Request::new(setup.size, setup.out_bits, &data)
    };
    let digest = par_tree::hash_with(batch::detected(), true, &request)?;
    Ok((digest, data.len() as u64))
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

fn print_digest(
    out: &mut impl Write,
    setup: &Setup,
    name: &str,
    digest: &[u8],
    msg_bits: u64,
    json: bool,
) -> Result<()> {
    let digest = hex::encode(digest);
    if json {
        let record = JsonDigest {
            name,
            alg: match setup.alg {
                Alg::Skein => "skein",
                Alg::Shabal(192) => "shabal-192",
                Alg::Shabal(224) => "shabal-224",
                Alg::Shabal(256) => "shabal-256",
                Alg::Shabal(384) => "shabal-384",
                _ => "shabal-512",
            },
            digest,
            size: setup.size,
            out_bits: setup.out_bits,
            msg_bits,
        };
        writeln!(out, "{}", serde_json::to_string(&record)?)?;
    } else {
        writeln!(out, "{digest}  {name}")?;
    }
    Ok(())
}

/// Hashes a file (or standard input for `-`) in constant memory; returns digest and length.
fn hash_input(setup: &Setup, name: &str) -> Result<(Vec<u8>, u64)> {
    if name == "-" {
        return hash_reader(setup, io::stdin().lock(), None);
    }
    let path = Path::new(name);
    let file = File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let meta = file
        .metadata()
        .with_context(|| format!("{name}: cannot read"))?;
    if meta.is_dir() {
        bail!("{name}: is a directory");
    }
    let len = meta.len();
    let bar = (len >= PROGRESS_THRESHOLD && io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(len);
        bar.set_style(
            ProgressStyle::with_template("{msg} {wide_bar} {bytes}/{total_bytes} {bytes_per_sec}")
                .expect("valid template"),
        );
        bar.set_message(name.to_string());
        bar
    });
    hash_reader(setup, file, bar.as_ref()).with_context(|| format!("{name}: read error"))
}

fn hash_reader(
    setup: &Setup,
    mut reader: impl Read,
    bar: Option<&ProgressBar>,
) -> Result<(Vec<u8>, u64)> {
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
    Ok((h.finalize(), total))
}

/// One line of a digest list: `<hex>  <name>` (a `*` before the name, binary mode in
/// sha256sum's format, is accepted).
fn parse_check_line(line: &str, hex_digits: usize) -> Result<(Vec<u8>, &str), String> {
    let (digest, rest) = line
        .split_once(' ')
        .ok_or_else(|| "not a digest line (expected '<hex digest>  <name>')".to_string())?;
    let name = rest
        .strip_prefix(' ')
        .or_else(|| rest.strip_prefix('*'))
        .ok_or_else(|| "not a digest line (expected two spaces after the digest)".to_string())?;
    if name.is_empty() {
        return Err("not a digest line (no file name)".to_string());
    }
    if !digest.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("not a digest line ('{digest}' is not hex)"));
    }
    if digest.len() != hex_digits {
        return Err(format!(
            "digest has {} hex digits; these options (--size/--out-bits) give {hex_digits}",
            digest.len()
        ));
    }
    let bytes = hex::decode(digest).map_err(|e| format!("not a digest line ({e})"))?;
    Ok((bytes, name))
}

/// Recomputes a `--hex` entry's digest from its name (`hex:<digits>[/<bits>]`).
fn hash_hex_name(setup: &Setup, spec: &str) -> Result<Vec<u8>> {
    let (digits, bits) = match spec.split_once('/') {
        Some((d, b)) => (d, Some(b.parse::<u64>().context("bit count")?)),
        None => (spec, None),
    };
    let bytes = crate::message::decode_hex("hex", digits)?;
    let mut h = setup.hasher()?;
    h.update_bits(&bytes, bits.unwrap_or(bytes.len() as u64 * 8))?;
    Ok(h.finalize())
}

fn check(setup: &Setup, list: &str) -> Result<Status> {
    let reader: Box<dyn BufRead> = if list == "-" {
        Box::new(BufReader::new(io::stdin()))
    } else {
        Box::new(BufReader::new(
            File::open(list).with_context(|| format!("{list}: cannot open"))?,
        ))
    };
    let hex_digits = 2 * setup.out_bits.div_ceil(8) as usize;
    let (mut failed, mut unreadable, mut malformed, mut checked) = (0, 0, 0, 0);
    let mut out = io::stdout().lock();
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{list}: read error"))?;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let (expected, name) = match parse_check_line(line, hex_digits) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("skeinhw: {list}:{}: {e}", i + 1);
                malformed += 1;
                continue;
            }
        };
        let actual = match name.strip_prefix("hex:") {
            Some(spec) => hash_hex_name(setup, spec),
            None => hash_input(setup, name).map(|(d, _)| d),
        };
        checked += 1;
        match actual {
            Ok(d) if d == expected => writeln!(out, "{name}: OK")?,
            Ok(_) => {
                writeln!(out, "{name}: FAILED")?;
                failed += 1;
            }
            Err(e) => {
                eprintln!("skeinhw: {}", crate::one_line(&e));
                writeln!(out, "{name}: FAILED open or read")?;
                unreadable += 1;
            }
        }
    }
    if failed > 0 {
        eprintln!("skeinhw: WARNING: {failed} computed checksum(s) did NOT match");
    }
    if unreadable > 0 {
        eprintln!("skeinhw: WARNING: {unreadable} listed file(s) could not be read");
    }
    if malformed > 0 {
        eprintln!("skeinhw: WARNING: {malformed} line(s) are improperly formatted");
        return Ok(2);
    }
    if checked == 0 {
        bail!("{list}: no digest lines found");
    }
    Ok(if failed + unreadable > 0 { 1 } else { 0 })
}
