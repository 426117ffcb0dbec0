//! One input hashed alone: streamed, through the parallel tree, or mapped.

use super::*;
use crate::progress::Follow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
        let meta = file.metadata().ok();
        let regular = meta.as_ref().is_some_and(|m| m.is_file());
        let len = meta.map_or(0, |m| m.len());
        // A bar over the bytes the tree has taken in (a long file, on a terminal).
        let taken = Arc::new(AtomicU64::new(0));
        let tree = tree.with_progress(Arc::clone(&taken));
        let _meter = crate::progress::bytes(len, &shown.to_string())
            .map(|bar| Follow::new(bar, move || taken.load(Ordering::Relaxed)));
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
pub(super) fn open_file(name: &OsStr) -> Result<File> {
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

/// Hashes a file (or standard input for `-`) in constant memory; returns digest and length.
pub(crate) fn hash_input(setup: &Setup, name: &OsStr) -> Result<(Digest, u64)> {
    if name == "-" {
        return hash_reader(setup, io::stdin(), None);
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
    let bar = crate::progress::bytes(len, &shown.to_string());
    hash_reader(setup, file, bar.as_ref()).with_context(|| format!("{shown}: read error"))
}

fn hash_reader(
    setup: &Setup,
    reader: impl Read + Send,
    bar: Option<&ProgressBar>,
) -> Result<(Digest, u64)> {
    let mut h = setup.hasher()?;
    let mut total = 0u64;
    super::read_ahead::read_ahead(reader, |chunk| {
        h.update(chunk);
        total += chunk.len() as u64;
        if let Some(bar) = bar {
            bar.set_position(total);
        }
    })?;
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
