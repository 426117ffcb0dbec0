//! Output directories: skeinhw lists what it wrote in a manifest, and later replaces only
//! those files.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::OutFileError;
use crate::file::{TEMP_PREFIX, TEMP_SUFFIX, new_temp, parent_of, plain};

/// The manifest's name in an output directory: a comment line, then one file name a line
/// (names relative to the directory, no `/`).
pub const MANIFEST: &str = ".skeinhw-manifest";

const MANIFEST_HEADER: &str =
    "# Files written here by skeinhw, one a line; `--force` replaces only these.\n";

/// An output directory whose entries are all skeinhw's (listed in its manifest).
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    listed: BTreeSet<String>,
    /// Created by [`OutDir::open`]; removed again if the first write fails.
    created: bool,
    written: bool,
}

impl OutDir {
    /// Opens `dir` for writing.
    ///
    /// - Missing: created (its parent must exist).
    /// - Empty: used.
    /// - Holding anything not in its manifest (a user's file, a subdirectory, a symlink, or
    ///   no manifest at all): refused, with or without `force`, and nothing is touched.
    /// - Holding only skeinhw's files: used when `force`, else refused with a hint.
    pub fn open(dir: impl AsRef<Path>, force: bool) -> Result<OutDir, OutFileError> {
        let dir = dir.as_ref();
        if dir.as_os_str() == "-" {
            return Err(OutFileError::NoStdout {
                what: "a directory".into(),
            });
        }
        match fs::symlink_metadata(dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let parent = parent_of(dir);
                match fs::metadata(&parent) {
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => {
                        return Err(OutFileError::NotDirectory {
                            path: dir.into(),
                            parent,
                        });
                    }
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        return Err(OutFileError::NoParent {
                            path: dir.into(),
                            parent,
                        });
                    }
                    Err(e) => return Err(OutFileError::io(dir, "create", e)),
                }
                fs::create_dir(dir).map_err(|e| OutFileError::io(dir, "create", e))?;
                return Ok(OutDir {
                    dir: dir.into(),
                    listed: BTreeSet::new(),
                    created: true,
                    written: false,
                });
            }
            Err(e) => return Err(OutFileError::io(dir, "open", e)),
            Ok(_) => {}
        }
        // A symlink to a directory is followed (the link stays).
        match fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(OutFileError::NotDirectory {
                    path: dir.into(),
                    parent: dir.into(),
                });
            }
            Err(e) => return Err(OutFileError::io(dir, "open", e)),
        }
        let listed = read_manifest(dir)?;
        let mut foreign = Vec::new();
        let mut any = false;
        for entry in fs::read_dir(dir).map_err(|e| OutFileError::io(dir, "read", e))? {
            let entry = entry.map_err(|e| OutFileError::io(dir, "read", e))?;
            any = true;
            let name = entry.file_name();
            let kind = entry
                .file_type()
                .map_err(|e| OutFileError::io(dir, "read", e))?;
            let ours = name.to_str().is_some_and(|n| {
                kind.is_file() && (n == MANIFEST || listed.contains(n) || is_temp_name(n))
            });
            if !ours {
                foreign.push(name.to_string_lossy().into_owned());
            }
        }
        if !foreign.is_empty() {
            foreign.sort();
            return Err(OutFileError::Foreign {
                path: dir.into(),
                names: foreign,
            });
        }
        if any && !force {
            return Err(OutFileError::DirNotEmpty { path: dir.into() });
        }
        Ok(OutDir {
            dir: dir.into(),
            listed,
            created: false,
            written: false,
        })
    }

    /// The directory, as the user gave it.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The names in the manifest.
    pub fn listed(&self) -> impl Iterator<Item = &str> {
        self.listed.iter().map(String::as_str)
    }

    /// Writes `files` (name, contents): every file to a temporary file first, then the
    /// manifest, then one rename each, so a failure before the renames leaves the previous
    /// files as they were. A replaced file keeps its mode; a new one follows the umask.
    pub fn write_files(&mut self, files: &[(&str, &[u8])]) -> Result<(), OutFileError> {
        let result = self.write_files_inner(files);
        if result.is_err() && self.created && !self.written {
            // Only the empty directory we made: nothing of the user's.
            let _ = fs::remove_dir(&self.dir);
        }
        result
    }

    fn write_files_inner(&mut self, files: &[(&str, &[u8])]) -> Result<(), OutFileError> {
        let mut temps: Vec<(NamedTempFile, PathBuf)> = Vec::with_capacity(files.len());
        for (name, contents) in files {
            let path = self.entry(name)?;
            let mut temp = new_temp(&self.dir).map_err(|e| OutFileError::io(&path, "create", e))?;
            temp.as_file_mut()
                .write_all(contents)
                .and_then(|()| keep_mode(&path, temp.as_file()))
                .and_then(|()| temp.as_file().sync_all())
                .map_err(|e| OutFileError::io(&path, "write", e))?;
            temps.push((temp, path));
        }
        self.claim(&files.iter().map(|(n, _)| *n).collect::<Vec<_>>())?;
        for (temp, path) in temps {
            temp.persist(&path)
                .map_err(|e| OutFileError::io(&path, "write", plain(e.error)))?;
        }
        self.written = true;
        Ok(())
    }

    /// Lists `names` in the manifest before another program (Yosys) writes them, so that a
    /// later run recognises them as skeinhw's.
    pub fn claim(&mut self, names: &[&str]) -> Result<(), OutFileError> {
        let before = self.listed.len();
        for name in names {
            self.entry(name)?;
            self.listed.insert((*name).to_owned());
        }
        if self.listed.len() == before && self.dir.join(MANIFEST).is_file() {
            return Ok(());
        }
        let mut text = String::from(MANIFEST_HEADER);
        for n in &self.listed {
            text.push_str(n);
            text.push('\n');
        }
        let path = self.dir.join(MANIFEST);
        let mut temp = new_temp(&self.dir).map_err(|e| OutFileError::io(&path, "create", e))?;
        temp.as_file_mut()
            .write_all(text.as_bytes())
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|e| OutFileError::io(&path, "write", e))?;
        temp.persist(&path)
            .map_err(|e| OutFileError::io(&path, "write", plain(e.error)))?;
        self.written = true;
        Ok(())
    }

    /// The path of the file `name` in the directory; `name` must be a plain file name.
    fn entry(&self, name: &str) -> Result<PathBuf, OutFileError> {
        if !is_plain_name(name) {
            return Err(OutFileError::io(
                self.dir.join(name),
                "write",
                io::Error::new(io::ErrorKind::InvalidInput, "not a plain file name"),
            ));
        }
        Ok(self.dir.join(name))
    }
}

/// Names skeinhw may list: no separator, not `.`/`..`, not the manifest, no newline.
fn is_plain_name(n: &str) -> bool {
    !n.is_empty() && n != "." && n != ".." && n != MANIFEST && !n.contains(['/', '\n', '\0'])
}

/// A temporary file skeinhw left behind when it was killed.
fn is_temp_name(n: &str) -> bool {
    n.starts_with(TEMP_PREFIX) && n.ends_with(TEMP_SUFFIX)
}

fn read_manifest(dir: &Path) -> Result<BTreeSet<String>, OutFileError> {
    let path = dir.join(MANIFEST);
    let text = match fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => {
            fs::read_to_string(&path).map_err(|e| OutFileError::io(&path, "read", e))?
        }
        // A manifest that is no regular file is the user's: it shows up as foreign.
        _ => return Ok(BTreeSet::new()),
    };
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| is_plain_name(l))
        .map(str::to_owned)
        .collect())
}

/// Gives the temporary file for `path` the mode of the file it replaces, if any.
#[cfg(unix)]
fn keep_mode(path: &Path, temp: &fs::File) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => temp.set_permissions(fs::Permissions::from_mode(m.mode() & 0o7777)),
        _ => Ok(()),
    }
}

#[cfg(not(unix))]
fn keep_mode(_: &Path, _: &fs::File) -> io::Result<()> {
    Ok(())
}
