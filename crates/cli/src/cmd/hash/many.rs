//! Several files at once: small ones batched in SIMD lanes, the others streamed through lanes.

use super::*;

/// Prints one input's digest (digest and length in bytes) or its error.
type Report<'r> = dyn FnMut(&OsStr, Result<(Digest, u64)>) -> Result<()> + 'r;

/// One input's result, sent from the hashing threads to the printing one.
type Done = (usize, Result<(Digest, u64)>);

/// Several files at once, printed in argument order as they become ready. Regular files up to
/// BATCH_FILE_LIMIT are read whole in groups of BATCH_BYTES and hashed in SIMD lanes across the
/// threads (`batch`); the others (and standard input) stream through the lanes at the same
/// time (`stream_lanes`: one block of each of several files per lane step, constant memory per
/// file), one lane worker per thread.
pub(super) fn hash_many(
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
