//! The rules of the crate on hostile destinations, at the library level: after each case,
//! nothing the user had is changed unless `force` said so, and no temporary file is left.
//! Expected modes come from the process's umask as the kernel reports it
//! (`/proc/self/status`), not from the crate.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use skeinhw_outfile::{MANIFEST, Options, OutDir, OutFile, OutFileError, write_file};

fn force() -> Options {
    Options::new().force(true)
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn umask() -> u32 {
    let s = fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line[6..].trim(), 8).unwrap()
}

/// No `.skeinhw-*.tmp` in `dir`.
fn no_temps(dir: &Path) {
    for e in fs::read_dir(dir).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            !n.starts_with(".skeinhw-") || n == MANIFEST,
            "temporary file left: {n}"
        );
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A tmpfs mounted on a fresh directory, unmounted on drop; `None` (and a printed reason)
/// where mounting is not permitted.
/// (The second field keeps the mount point's directory until after the unmount.)
struct Mount(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Mount {
    fn new(options: &str) -> Option<Mount> {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("mnt");
        fs::create_dir(&p).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&p)
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!(
                "SKIPPED: cannot mount a tmpfs ({options}) here (not root, or no mount permission)"
            );
            return None;
        }
        Some(Mount(p, t))
    }

    fn read_only(&self) {
        let s = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(s.success());
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn new_file_follows_the_umask_and_appears_only_on_commit() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("out.txt");
    let mut f = OutFile::create(&p, Options::new()).unwrap();
    f.write_all(b"hello\n").unwrap();
    assert!(!p.exists(), "visible before commit");
    f.commit().unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"hello\n");
    assert_eq!(mode(&p), 0o666 & !umask());
    no_temps(d.path());
}

#[test]
fn dropped_without_commit_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("out.txt");
    let mut f = OutFile::create(&p, Options::new()).unwrap();
    f.write_all(&[7; 200_000]).unwrap();
    drop(f);
    assert!(names(d.path()).is_empty(), "{:?}", names(d.path()));
}

#[test]
fn existing_file_needs_force_and_keeps_its_mode() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("out.txt");
    fs::write(&p, "mine\n").unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    let e = OutFile::create(&p, Options::new()).unwrap_err();
    assert!(matches!(e, OutFileError::Exists { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains(&*p.to_string_lossy()) && msg.contains("--force"),
        "{msg}"
    );
    assert_eq!(fs::read(&p).unwrap(), b"mine\n");

    write_file(&p, b"new\n", force()).unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"new\n");
    assert_eq!(mode(&p), 0o640);
    no_temps(d.path());
}

#[test]
fn symlink_is_written_through_and_stays_a_link() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("target.txt");
    let link = d.path().join("link.txt");
    fs::write(&target, "old\n").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
    symlink("target.txt", &link).unwrap();
    assert!(matches!(
        write_file(&link, b"x", Options::new()),
        Err(OutFileError::Exists { .. })
    ));
    assert_eq!(fs::read(&target).unwrap(), b"old\n");
    write_file(&link, b"new\n", force()).unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_link(&link).unwrap(), Path::new("target.txt"));
    assert_eq!(fs::read(&target).unwrap(), b"new\n");
    assert_eq!(mode(&target), 0o600);
    no_temps(d.path());
}

#[test]
fn dangling_symlink_creates_its_target() {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir(d.path().join("sub")).unwrap();
    let link = d.path().join("link.txt");
    symlink("sub/new.txt", &link).unwrap();
    write_file(&link, b"made\n", Options::new()).unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read(d.path().join("sub/new.txt")).unwrap(), b"made\n");
    no_temps(d.path());
    no_temps(&d.path().join("sub"));

    // Into a missing directory: refused, the link untouched.
    let bad = d.path().join("bad");
    symlink("nowhere/x.txt", &bad).unwrap();
    let e = write_file(&bad, b"x", Options::new()).unwrap_err();
    assert!(matches!(e, OutFileError::NoParent { .. }), "{e}");
    assert_eq!(fs::read_link(&bad).unwrap(), Path::new("nowhere/x.txt"));
}

#[test]
fn symlink_loop_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a");
    symlink("b", &a).unwrap();
    symlink("a", d.path().join("b")).unwrap();
    let e = write_file(&a, b"x", force()).unwrap_err();
    assert!(e.to_string().contains(&*a.to_string_lossy()), "{e}");
    assert_eq!(names(d.path()), ["a", "b"]);
}

#[test]
fn fifo_is_written_in_place() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&p).status().unwrap().success());
    let reader = {
        let p = p.clone();
        std::thread::spawn(move || {
            let mut s = Vec::new();
            fs::File::open(p).unwrap().read_to_end(&mut s).unwrap();
            s
        })
    };
    let data = vec![b'z'; 300_000];
    write_file(&p, &data, Options::new()).unwrap();
    assert_eq!(reader.join().unwrap(), data);
    assert!(fs::symlink_metadata(&p).unwrap().file_type().is_fifo());
    assert_eq!(names(d.path()), ["fifo"]);
}

#[test]
fn dev_null_is_written_in_place() {
    write_file("/dev/null", b"gone", Options::new()).unwrap();
    assert!(
        fs::symlink_metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn stdout_only_where_allowed() {
    let e = write_file("-", b"x", Options::new()).unwrap_err();
    assert!(matches!(e, OutFileError::NoStdout { .. }), "{e}");
    let f = OutFile::create("-", Options::new().stdout(true)).unwrap();
    assert!(f.is_stdout());
    f.commit().unwrap();
    assert!(!Path::new("-").exists());
}

#[test]
fn directory_and_missing_parent_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let e = write_file(d.path(), b"x", force()).unwrap_err();
    assert!(matches!(e, OutFileError::IsDirectory { .. }), "{e}");
    let p = d.path().join("no/such/out.txt");
    let e = write_file(&p, b"x", force()).unwrap_err();
    assert!(matches!(e, OutFileError::NoParent { .. }), "{e}");
    assert!(e.to_string().starts_with(&*p.to_string_lossy()), "{e}");
    let file = d.path().join("f");
    fs::write(&file, "keep").unwrap();
    let e = write_file(file.join("x"), b"x", force()).unwrap_err();
    assert!(
        e.to_string().contains("not a directory") || e.to_string().contains("Not a directory"),
        "{e}"
    );
    assert_eq!(names(d.path()), ["f"]);
    assert_eq!(fs::read(&file).unwrap(), b"keep");
}

#[test]
fn read_only_directory() {
    let Some(m) = Mount::new("size=64k") else {
        return;
    };
    let keep = m.0.join("keep.txt");
    fs::write(&keep, "mine\n").unwrap();
    m.read_only();
    let new = m.0.join("new.txt");
    let e = write_file(&new, b"x", Options::new()).unwrap_err();
    assert!(e.to_string().starts_with(&*new.to_string_lossy()), "{e}");
    assert!(!e.to_string().contains(".skeinhw-"), "{e}");
    let e = write_file(&keep, b"x", force()).unwrap_err();
    assert!(e.to_string().starts_with(&*keep.to_string_lossy()), "{e}");
    assert_eq!(fs::read(&keep).unwrap(), b"mine\n");
    assert_eq!(names(&m.0), ["keep.txt"]);
}

#[test]
fn full_disk() {
    let Some(m) = Mount::new("size=64k") else {
        return;
    };
    let keep = m.0.join("keep.txt");
    fs::write(&keep, "mine\n").unwrap();
    let big = vec![1u8; 1 << 20];
    for (path, opts) in [
        (m.0.join("new.bin"), Options::new()),
        (keep.clone(), force()),
    ] {
        let e = write_file(&path, &big, opts).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with(&*path.to_string_lossy()), "{msg}");
        assert!(msg.contains("No space left"), "{msg}");
        assert_eq!(names(&m.0), ["keep.txt"]);
        assert_eq!(fs::read(&keep).unwrap(), b"mine\n");
    }
    // A directory's generation: nothing renamed when one file does not fit.
    let d = m.0.join("d");
    OutDir::open(&d, false)
        .unwrap()
        .write_files(&[("a", b"1"), ("b", b"2")])
        .unwrap();
    let mut out = OutDir::open(&d, true).unwrap();
    let e = out.write_files(&[("a", b"new"), ("b", &big)]).unwrap_err();
    assert!(e.to_string().contains("No space left"), "{e}");
    assert_eq!(fs::read(d.join("a")).unwrap(), b"1");
    assert_eq!(fs::read(d.join("b")).unwrap(), b"2");
    assert_eq!(names(&d), [MANIFEST, "a", "b"]);
}

#[test]
fn out_dir_manifest_rules() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("rtl");
    let mut out = OutDir::open(&d, false).unwrap();
    out.write_files(&[("x.v", b"module x; endmodule\n"), ("y.json", b"{}\n")])
        .unwrap();
    assert_eq!(names(&d), [MANIFEST, "x.v", "y.json"]);
    let manifest = fs::read_to_string(d.join(MANIFEST)).unwrap();
    assert!(manifest.lines().any(|l| l == "x.v") && manifest.lines().any(|l| l == "y.json"));

    // Again without force: refused, hint given.
    let e = OutDir::open(&d, false).unwrap_err();
    assert!(matches!(e, OutFileError::DirNotEmpty { .. }) && e.to_string().contains("--force"));
    // With force: replaced, mode of a replaced file kept.
    fs::set_permissions(d.join("x.v"), fs::Permissions::from_mode(0o600)).unwrap();
    OutDir::open(&d, true)
        .unwrap()
        .write_files(&[("x.v", b"v2\n")])
        .unwrap();
    assert_eq!(fs::read(d.join("x.v")).unwrap(), b"v2\n");
    assert_eq!(mode(&d.join("x.v")), 0o600);
    no_temps(&d);

    // A user's file and a subdirectory: refused even with force, nothing touched.
    fs::write(d.join("notes.txt"), "mine").unwrap();
    fs::create_dir(d.join("sub")).unwrap();
    fs::write(d.join("sub/keep2.txt"), "mine2").unwrap();
    for force in [false, true] {
        let e = OutDir::open(&d, force).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("notes.txt") && msg.contains("sub"), "{msg}");
    }
    assert_eq!(fs::read(d.join("notes.txt")).unwrap(), b"mine");
    assert_eq!(fs::read(d.join("sub/keep2.txt")).unwrap(), b"mine2");
    assert_eq!(fs::read(d.join("x.v")).unwrap(), b"v2\n");

    // A directory without a manifest is all foreign.
    let plain = t.path().join("plain");
    fs::create_dir(&plain).unwrap();
    fs::write(plain.join("x.v"), "user's").unwrap();
    assert!(matches!(
        OutDir::open(&plain, true),
        Err(OutFileError::Foreign { .. })
    ));
    // An empty existing directory is fine; a missing parent is not; `-` is no directory.
    fs::create_dir(t.path().join("empty")).unwrap();
    OutDir::open(t.path().join("empty"), false).unwrap();
    assert!(matches!(
        OutDir::open(t.path().join("a/b"), true),
        Err(OutFileError::NoParent { .. })
    ));
    assert!(matches!(
        OutDir::open("-", true),
        Err(OutFileError::NoStdout { .. })
    ));
    // A file where the directory should be.
    assert!(OutDir::open(plain.join("x.v"), true).is_err());
    assert_eq!(fs::read(plain.join("x.v")).unwrap(), b"user's");
}

#[test]
fn dev_stdout_is_a_descriptor_not_a_file_to_replace() {
    for p in ["/dev/stdout", "/dev/stderr"] {
        write_file(p, b"", Options::new()).unwrap();
        assert!(
            fs::symlink_metadata(p).unwrap().file_type().is_symlink(),
            "{p}"
        );
    }
}
