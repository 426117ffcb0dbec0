//! One output file: standard output, a device or FIFO written in place, or a regular file
//! written beside its destination and renamed over it only when complete.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

use tempfile::NamedTempFile;

use crate::OutFileError;

/// The prefix and suffix of temporary files: `.skeinhw-XXXXXX.tmp` beside the destination.
pub const TEMP_PREFIX: &str = ".skeinhw-";
/// See [`TEMP_PREFIX`].
pub const TEMP_SUFFIX: &str = ".tmp";

/// How many symbolic links are followed before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// What the caller allows for one output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Replace an existing regular file (the user said `--force`).
    pub force: bool,
    /// `-` means standard output (text formats).
    pub stdout: bool,
}

impl Options {
    /// No `--force`, no standard output.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`Options::force`].
    pub fn force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// Sets [`Options::stdout`].
    pub fn stdout(mut self, stdout: bool) -> Self {
        self.stdout = stdout;
        self
    }
}

/// Where the bytes go.
#[derive(Debug)]
enum Sink {
    /// `-`.
    Stdout(io::Stdout),
    /// A FIFO, a character device, a descriptor path (`/dev/stdout`): written in place.
    Direct(File),
    /// A regular file: a temporary file renamed onto `target` by [`OutFile::commit`].
    Temp {
        temp: NamedTempFile,
        /// The file the temporary file becomes (the user's path with symlinks resolved).
        target: PathBuf,
        /// The replaced file's mode and owner, or `None` for a new file (mode from the umask).
        keep: Option<Kept>,
    },
}

/// What a replaced file keeps.
#[derive(Clone, Copy, Debug)]
struct Kept {
    #[cfg_attr(not(unix), allow(dead_code))]
    mode: u32,
    #[cfg_attr(not(unix), allow(dead_code))]
    owner: (u32, u32),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::Direct(f) => f.write(buf),
            // The file itself: NamedTempFile's own errors name the temporary path.
            Sink::Temp { temp, .. } => temp.as_file_mut().write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::Direct(f) => f.flush(),
            Sink::Temp { temp, .. } => temp.as_file_mut().flush(),
        }
    }
}

/// An output being written. Dropped without [`OutFile::commit`], a regular file's temporary
/// file is removed and the destination is left as it was.
#[derive(Debug)]
pub struct OutFile {
    path: PathBuf,
    sink: BufWriter<Sink>,
}

impl OutFile {
    /// Starts writing `path` under the rules of the crate (see its documentation).
    pub fn create(path: impl AsRef<Path>, options: Options) -> Result<OutFile, OutFileError> {
        let path = path.as_ref();
        let sink = open(path, options)?;
        Ok(OutFile {
            path: path.to_owned(),
            sink: BufWriter::with_capacity(1 << 16, sink),
        })
    }

    /// The path the user gave.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this output is standard output (`-`).
    pub fn is_stdout(&self) -> bool {
        matches!(self.sink.get_ref(), Sink::Stdout(_))
    }

    /// Flushes; a regular file gets its mode (and owner) and is renamed into place.
    pub fn commit(self) -> Result<(), OutFileError> {
        let path = self.path;
        let write_err = |e| OutFileError::io(&path, "write", e);
        let sink = self
            .sink
            .into_inner()
            .map_err(|e| write_err(e.into_error()))?;
        match sink {
            Sink::Stdout(mut s) => s.flush().map_err(write_err),
            Sink::Direct(mut f) => f.flush().map_err(write_err),
            Sink::Temp { temp, target, keep } => {
                if let Some(kept) = keep {
                    restore(temp.as_file(), kept)
                        .map_err(|e| OutFileError::io(&path, "replace", e))?;
                }
                temp.as_file().sync_all().map_err(write_err)?;
                if keep.is_some() {
                    temp.persist(&target)
                        .map_err(|e| OutFileError::io(&path, "replace", plain(e.error)))?;
                } else {
                    // Refuses a file that appeared since `create` instead of clobbering it.
                    temp.persist_noclobber(&target).map_err(|e| {
                        if e.error.kind() == io::ErrorKind::AlreadyExists {
                            OutFileError::Exists { path: path.clone() }
                        } else {
                            OutFileError::io(&path, "create", plain(e.error))
                        }
                    })?;
                }
                Ok(())
            }
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sink.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.sink.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }
}

/// Writes `contents` to `path` whole (see [`OutFile`]).
pub fn write_file(
    path: impl AsRef<Path>,
    contents: &[u8],
    options: Options,
) -> Result<(), OutFileError> {
    let mut out = OutFile::create(path.as_ref(), options)?;
    out.write_all(contents)
        .map_err(|e| OutFileError::io(path.as_ref(), "write", e))?;
    out.commit()
}

fn open(path: &Path, options: Options) -> Result<Sink, OutFileError> {
    if path.as_os_str() == "-" {
        if !options.stdout {
            return Err(OutFileError::NoStdout {
                what: "this output".into(),
            });
        }
        return Ok(Sink::Stdout(io::stdout()));
    }
    if path.as_os_str().is_empty() {
        return Err(OutFileError::io(
            path,
            "create",
            io::Error::new(io::ErrorKind::InvalidInput, "empty path"),
        ));
    }
    if names_descriptor(path)? {
        // `/dev/stdout`, `/proc/self/fd/N`: an open descriptor, whatever it is (pipe, tty,
        // a file the shell opened): appended to, never replaced.
        let f = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| OutFileError::io(path, "open", e))?;
        return Ok(Sink::Direct(f));
    }
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return match fs::metadata(path) {
            Ok(m) if m.is_dir() => Err(OutFileError::IsDirectory { path: path.into() }),
            _ => Err(OutFileError::io(
                path,
                "create",
                io::Error::new(io::ErrorKind::InvalidInput, "a file name cannot end in `/`"),
            )),
        };
    }
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(OutFileError::IsDirectory { path: path.into() }),
        Ok(m) if m.is_file() => {
            if !options.force {
                return Err(OutFileError::Exists { path: path.into() });
            }
            let target = resolve(path)?;
            let temp = temp_beside(path, &target, true)?;
            Ok(Sink::Temp {
                temp,
                target,
                keep: Some(kept(&m)),
            })
        }
        Ok(_) => {
            // A FIFO, a device, a socket: written in place, never renamed over.
            let f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| OutFileError::io(path, "open", e))?;
            Ok(Sink::Direct(f))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A new file, or the missing target of a dangling symlink: created.
            let target = resolve(path)?;
            let temp = temp_beside(path, &target, false)?;
            Ok(Sink::Temp {
                temp,
                target,
                keep: None,
            })
        }
        Err(e) => Err(OutFileError::io(path, "write", e)),
    }
}

/// The directory a path is in (`.` for a bare name).
pub(crate) fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Checks that `target`'s directory exists and makes a temporary file in it; `user` names
/// the destination in errors.
fn temp_beside(user: &Path, target: &Path, replacing: bool) -> Result<NamedTempFile, OutFileError> {
    let dir = parent_of(target);
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(OutFileError::NotDirectory {
                path: user.into(),
                parent: dir,
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(OutFileError::NoParent {
                path: user.into(),
                parent: dir,
            });
        }
        Err(e) => return Err(OutFileError::io(user, "write", e)),
    }
    new_temp(&dir)
        .map_err(|e| OutFileError::io(user, if replacing { "replace" } else { "create" }, e))
}

/// A temporary file in `dir`, created with mode 0666 so that the umask applies to it as to
/// any new file (tempfile's default is 0600).
pub(crate) fn new_temp(dir: &Path) -> io::Result<NamedTempFile> {
    let mut b = tempfile::Builder::new();
    b.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir).map_err(plain)
}

/// The operating system's error alone: tempfile adds the temporary file's path to the
/// message, and errors name the user's path instead.
pub(crate) fn plain(e: io::Error) -> io::Error {
    if e.raw_os_error().is_some() || e.get_ref().is_none() {
        return e;
    }
    // tempfile's message is "<reason> at path <temporary file>".
    let text = e.to_string();
    let reason = text
        .split(" at path ")
        .next()
        .unwrap_or_default()
        .to_owned();
    io::Error::new(e.kind(), reason)
}

#[cfg(unix)]
fn kept(m: &fs::Metadata) -> Kept {
    use std::os::unix::fs::MetadataExt;
    Kept {
        mode: m.mode() & 0o7777,
        owner: (m.uid(), m.gid()),
    }
}

#[cfg(not(unix))]
fn kept(_: &fs::Metadata) -> Kept {
    Kept {
        mode: 0,
        owner: (0, 0),
    }
}

/// Gives the temporary file the replaced file's owner (where allowed: root, or a group the
/// user is in) and then its mode (after chown, which clears set-id bits).
#[cfg(unix)]
fn restore(f: &File, kept: Kept) -> io::Result<()> {
    use std::os::unix::fs::{PermissionsExt, fchown};
    let _ = fchown(f, Some(kept.owner.0), Some(kept.owner.1))
        .or_else(|_| fchown(f, None, Some(kept.owner.1)));
    f.set_permissions(fs::Permissions::from_mode(kept.mode))
}

#[cfg(not(unix))]
fn restore(_: &File, _: Kept) -> io::Result<()> {
    Ok(())
}

/// Follows the symbolic links of the last component of `path` to the file they name (which
/// may not exist). Links inside the directories are left to the kernel.
pub(crate) fn resolve(path: &Path) -> Result<PathBuf, OutFileError> {
    let mut p = path.to_owned();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p).map_err(|e| OutFileError::io(path, "read link", e))?;
                p = if to.is_absolute() {
                    to
                } else {
                    parent_of(&p).join(to)
                };
            }
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(OutFileError::io(path, "write", e)),
        }
    }
    Err(OutFileError::SymlinkLoop { path: path.into() })
}

/// Whether `path`, or a link on its way, names an open file descriptor (`/dev/stdout`,
/// `/dev/fd/N`, `/proc/PID/fd/N`), whose "target" is no path to rename onto.
fn names_descriptor(path: &Path) -> Result<bool, OutFileError> {
    let mut p = path.to_owned();
    for _ in 0..MAX_LINKS {
        if is_descriptor_path(&p) {
            return Ok(true);
        }
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let Ok(to) = fs::read_link(&p) else {
                    return Ok(false);
                };
                p = if to.is_absolute() {
                    to
                } else {
                    parent_of(&p).join(to)
                };
            }
            _ => return Ok(false),
        }
    }
    Err(OutFileError::SymlinkLoop { path: path.into() })
}

fn is_descriptor_path(p: &Path) -> bool {
    let c: Vec<Component<'_>> = p.components().collect();
    let name = |i: usize| c.get(i).and_then(|c| c.as_os_str().to_str());
    if name(0) != Some("/") {
        return false;
    }
    match (name(1), name(2), name(3)) {
        (Some("dev"), Some("stdout" | "stderr" | "stdin"), None) => true,
        (Some("dev"), Some("fd"), Some(_)) => c.len() == 4,
        (Some("proc"), Some(_), Some("fd")) => c.len() == 5,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_paths() {
        for p in [
            "/dev/stdout",
            "/dev/stderr",
            "/dev/fd/1",
            "/proc/self/fd/3",
            "/proc/12/fd/1",
        ] {
            assert!(is_descriptor_path(Path::new(p)), "{p}");
        }
        for p in [
            "/dev/null",
            "/dev/fd",
            "/proc/self/fd",
            "dev/stdout",
            "/tmp/x",
            "/dev/shm/x",
        ] {
            assert!(!is_descriptor_path(Path::new(p)), "{p}");
        }
    }
}
