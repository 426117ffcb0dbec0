//! Hostile output paths for every command that writes files (issue 16): an existing file
//! without and with --force, a symlink, a dangling symlink, a FIFO with a reader, /dev/null,
//! `-`, a directory, a missing parent, a read-only directory and a full disk (tmpfs mounts:
//! skipped, with the reason printed, where mounting is not permitted), and output directories
//! holding a user's files. After each case: what the user had is unchanged unless --force
//! said so, and no temporary file (`.skeinhw-*.tmp`) is left behind. Expected modes come
//! from the process's umask as the kernel reports it.

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MANIFEST: &str = ".skeinhw-manifest";

/// A command writing one file: its arguments for an output path, and whether `-` is allowed.
struct FileCmd {
    name: &'static str,
    args: fn(&Path) -> Vec<OsString>,
    stdout: bool,
}

fn os(v: &[&str], out: &Path) -> Vec<OsString> {
    let mut a: Vec<OsString> = v.iter().map(OsString::from).collect();
    a.push(out.into());
    a
}

/// The commands of the table; `sim --vcd` only where Icarus Verilog is installed.
fn commands() -> Vec<FileCmd> {
    let mut v = vec![
        FileCmd {
            name: "trace -o",
            args: |p| {
                os(
                    &[
                        "trace",
                        "--schedule",
                        "long-iter-256",
                        "--hex",
                        "616263",
                        "--format",
                        "jsonl",
                        "-o",
                    ],
                    p,
                )
            },
            stdout: true,
        },
        FileCmd {
            name: "sweep --svg",
            args: |p| {
                os(
                    &["sweep", "--sizes", "256", "--styles", "hash_core", "--svg"],
                    p,
                )
            },
            stdout: true,
        },
        FileCmd {
            name: "sweep --csv",
            args: |p| {
                os(
                    &["sweep", "--sizes", "256", "--styles", "hash_core", "--csv"],
                    p,
                )
            },
            stdout: true,
        },
    ];
    if Command::new("iverilog")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        v.push(FileCmd {
            name: "sim --vcd",
            args: |p| {
                os(
                    &["sim", "--schedule", "ath-1r", "--hex", "616263", "--vcd"],
                    p,
                )
            },
            stdout: false,
        });
    } else {
        eprintln!("SKIPPED: sim --vcd cases (iverilog not installed)");
    }
    v
}

fn skeinhw(args: &[OsString], force: bool, cwd: &Path) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_skeinhw"));
    c.args(args).current_dir(cwd);
    if force {
        c.arg("--force");
    }
    c.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2 with one line on standard error naming `path`.
fn refused(o: &Output, path: &Path, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
    assert!(err.contains(&*path.to_string_lossy()), "{what}: {err}");
    assert!(
        !err.contains(".skeinhw-") || err.contains(MANIFEST),
        "{what}: names a temporary file: {err}"
    );
}

fn ok(o: &Output, what: &str) {
    assert!(o.status.success(), "{what}: {}", stderr(o));
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn umask() -> u32 {
    let s = fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line[6..].trim(), 8).unwrap()
}

/// The sorted names in `dir`; asserts that none is a temporary file.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    for n in &v {
        assert!(
            !(n.starts_with(".skeinhw-") && n.ends_with(".tmp")),
            "temporary file left in {}: {n}",
            dir.display()
        );
    }
    v
}

fn user_file(p: &Path) {
    fs::write(p, "the user's data\n").unwrap();
    fs::set_permissions(p, fs::Permissions::from_mode(0o640)).unwrap();
}

fn untouched(p: &Path) {
    assert_eq!(
        fs::read_to_string(p).unwrap(),
        "the user's data\n",
        "{}",
        p.display()
    );
    assert_eq!(mode(p), 0o640, "{}", p.display());
}

/// A tmpfs mounted on a fresh directory, unmounted on drop; `None`, with the reason
/// printed, where mounting is not permitted.
struct Mount(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Mount {
    fn new(size: &str) -> Option<Mount> {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("mnt");
        fs::create_dir(&p).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&p)
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!(
                "SKIPPED: cannot mount a tmpfs here (not root, or no mount permission in this container)"
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
fn new_file_follows_the_umask() {
    for c in commands() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out");
        ok(&skeinhw(&(c.args)(&p), false, d.path()), c.name);
        assert!(fs::metadata(&p).unwrap().len() > 0, "{}", c.name);
        assert_eq!(mode(&p), 0o666 & !umask(), "{}", c.name);
        assert_eq!(names(d.path()), ["out"], "{}", c.name);
    }
}

#[test]
fn existing_file_needs_force_and_keeps_its_mode() {
    for c in commands() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out");
        user_file(&p);
        let o = skeinhw(&(c.args)(&p), false, d.path());
        refused(&o, &p, c.name);
        assert!(stderr(&o).contains("--force"), "{}", c.name);
        untouched(&p);
        ok(&skeinhw(&(c.args)(&p), true, d.path()), c.name);
        let new = fs::read(&p).unwrap();
        assert!(!new.is_empty() && new != b"the user's data\n", "{}", c.name);
        assert_eq!(mode(&p), 0o640, "{}: mode kept", c.name);
        assert_eq!(names(d.path()), ["out"], "{}", c.name);
    }
}

#[test]
fn symlink_is_written_through() {
    for c in commands() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("target");
        let link = d.path().join("link");
        user_file(&target);
        symlink("target", &link).unwrap();
        refused(&skeinhw(&(c.args)(&link), false, d.path()), &link, c.name);
        untouched(&target);
        ok(&skeinhw(&(c.args)(&link), true, d.path()), c.name);
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{}",
            c.name
        );
        assert_eq!(fs::read_link(&link).unwrap(), Path::new("target"));
        assert_ne!(
            fs::read(&target).unwrap(),
            b"the user's data\n",
            "{}",
            c.name
        );
        assert_eq!(mode(&target), 0o640, "{}", c.name);
        assert_eq!(names(d.path()), ["link", "target"], "{}", c.name);
    }
}

#[test]
fn dangling_symlink_creates_its_target() {
    for c in commands() {
        let d = tempfile::tempdir().unwrap();
        let link = d.path().join("link");
        symlink("made", &link).unwrap();
        ok(&skeinhw(&(c.args)(&link), false, d.path()), c.name);
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{}",
            c.name
        );
        assert!(
            fs::metadata(d.path().join("made")).unwrap().len() > 0,
            "{}",
            c.name
        );
        assert_eq!(names(d.path()), ["link", "made"], "{}", c.name);
    }
}

#[test]
fn fifo_is_written_in_place() {
    for c in commands() {
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
        let o = skeinhw(&(c.args)(&p), false, d.path());
        ok(&o, c.name);
        let got = reader.join().unwrap();
        assert!(got.len() > 1000, "{}: read {} bytes", c.name, got.len());
        assert!(
            fs::symlink_metadata(&p).unwrap().file_type().is_fifo(),
            "{}",
            c.name
        );
        assert_eq!(names(d.path()), ["fifo"], "{}", c.name);
    }
}

#[test]
fn dev_null_is_written_in_place() {
    for c in commands() {
        let d = tempfile::tempdir().unwrap();
        ok(
            &skeinhw(&(c.args)(Path::new("/dev/null")), false, d.path()),
            c.name,
        );
        assert!(
            fs::symlink_metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
        assert!(names(d.path()).is_empty(), "{}", c.name);
    }
}

#[test]
fn dash_is_standard_output_or_refused() {
    for c in commands() {
        let d = tempfile::tempdir().unwrap();
        let o = skeinhw(&(c.args)(Path::new("-")), false, d.path());
        if c.stdout {
            ok(&o, c.name);
            assert!(o.stdout.len() > 1000, "{}", c.name);
        } else {
            refused(&o, Path::new("-"), c.name);
        }
        assert!(names(d.path()).is_empty(), "{}: a file named `-`?", c.name);
    }
}

#[test]
fn directory_and_missing_parent_are_refused() {
    for c in commands() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("sub");
        fs::create_dir(&sub).unwrap();
        user_file(&sub.join("keep"));
        refused(&skeinhw(&(c.args)(&sub), true, d.path()), &sub, c.name);
        untouched(&sub.join("keep"));
        assert_eq!(names(&sub), ["keep"]);
        let missing = d.path().join("no/such/out");
        refused(
            &skeinhw(&(c.args)(&missing), true, d.path()),
            &missing,
            c.name,
        );
        assert_eq!(names(d.path()), ["sub"], "{}", c.name);
    }
}

#[test]
fn read_only_directory() {
    let Some(m) = Mount::new("64k") else { return };
    let keep = m.0.join("keep");
    user_file(&keep);
    m.read_only();
    for c in commands() {
        let new = m.0.join("new");
        refused(&skeinhw(&(c.args)(&new), false, &m.0), &new, c.name);
        refused(&skeinhw(&(c.args)(&keep), true, &m.0), &keep, c.name);
        untouched(&keep);
        assert_eq!(names(&m.0), ["keep"], "{}", c.name);
    }
}

#[test]
fn full_disk() {
    // 16 KiB: less than any of the outputs.
    let Some(m) = Mount::new("16k") else { return };
    let keep = m.0.join("keep");
    user_file(&keep);
    for c in commands() {
        let new = m.0.join("new");
        let o = skeinhw(&(c.args)(&new), false, &m.0);
        refused(&o, &new, c.name);
        assert!(
            stderr(&o).contains("No space left"),
            "{}: {}",
            c.name,
            stderr(&o)
        );
        let o = skeinhw(&(c.args)(&keep), true, &m.0);
        refused(&o, &keep, c.name);
        untouched(&keep);
        assert_eq!(names(&m.0), ["keep"], "{}", c.name);
    }
}

/// The constants file with another `slice_packing`, which `calibrate --write` fits back.
fn changed(original: &str) -> String {
    let out: String = original
        .lines()
        .map(|l| {
            if l.starts_with("slice_packing") {
                "slice_packing = 0.5\n".to_owned()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_ne!(out, original);
    out
}

#[test]
fn calibrate_write_replaces_the_named_file_keeping_mode_and_links() {
    let original = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../estimator/data/virtex5.toml"
    ))
    .unwrap();
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("c.toml");
    let link = d.path().join("link.toml");
    fs::write(&target, changed(&original)).unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o604)).unwrap();
    symlink("c.toml", &link).unwrap();
    let args: Vec<OsString> = ["calibrate", "--write", "--constants"]
        .iter()
        .map(OsString::from)
        .chain([link.clone().into()])
        .collect();
    ok(&skeinhw(&args, false, d.path()), "calibrate --write");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), original);
    assert_eq!(mode(&target), 0o604);
    assert_eq!(names(d.path()), ["c.toml", "link.toml"]);
}

#[test]
fn calibrate_write_on_a_full_or_read_only_disk_changes_nothing() {
    let Some(m) = Mount::new("64k") else { return };
    let original = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../estimator/data/virtex5.toml"
    ))
    .unwrap();
    let file = m.0.join("c.toml");
    let changed = changed(&original);
    fs::write(&file, &changed).unwrap();
    m.read_only();
    let args: Vec<OsString> = ["calibrate", "--write", "--constants"]
        .iter()
        .map(OsString::from)
        .chain([file.clone().into()])
        .collect();
    refused(&skeinhw(&args, false, &m.0), &file, "calibrate --write");
    assert_eq!(fs::read_to_string(&file).unwrap(), changed);
    assert_eq!(names(&m.0), ["c.toml"]);
}

/// Commands writing a directory: `rtl -o`, `sweep --out-dir`, `estimate --synth-dir`.
fn dir_args(which: &str, dir: &Path) -> Vec<OsString> {
    match which {
        "rtl" => os(&["rtl", "--schedule", "ath-1r", "-o"], dir),
        "sweep" => os(
            &[
                "sweep",
                "--sizes",
                "256",
                "--styles",
                "hash_core",
                "--out-dir",
            ],
            dir,
        ),
        _ => os(
            &["estimate", "--schedule", "ath-1r", "--synth", "--synth-dir"],
            dir,
        ),
    }
}

fn user_tree(dir: &Path) {
    fs::create_dir_all(dir.join("sub")).unwrap();
    user_file(&dir.join("notes.txt"));
    user_file(&dir.join("sub/keep2.txt"));
}

fn user_tree_intact(dir: &Path) {
    untouched(&dir.join("notes.txt"));
    untouched(&dir.join("sub/keep2.txt"));
    assert_eq!(names(&dir.join("sub")), ["keep2.txt"]);
}

#[test]
fn rtl_force_into_a_directory_with_foreign_files_is_refused() {
    for which in ["rtl", "sweep"] {
        // A directory that was never skeinhw's.
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("out");
        user_tree(&out);
        let o = skeinhw(&dir_args(which, &out), true, d.path());
        refused(&o, &out, which);
        assert!(
            stderr(&o).contains("notes.txt") && stderr(&o).contains("sub"),
            "{which}: {}",
            stderr(&o)
        );
        user_tree_intact(&out);
        assert_eq!(names(&out), ["notes.txt", "sub"], "{which}");

        // skeinhw's directory, to which the user added files.
        let out = d.path().join("gen");
        ok(&skeinhw(&dir_args(which, &out), false, d.path()), which);
        let before: Vec<(String, Vec<u8>)> = names(&out)
            .into_iter()
            .map(|n| {
                let t = fs::read(out.join(&n)).unwrap();
                (n, t)
            })
            .collect();
        assert!(
            before.iter().any(|(n, _)| n == MANIFEST),
            "{which}: no manifest"
        );
        user_tree(&out);
        refused(
            &skeinhw(&dir_args(which, &out), true, d.path()),
            &out,
            which,
        );
        user_tree_intact(&out);
        for (n, t) in &before {
            assert_eq!(&fs::read(out.join(n)).unwrap(), t, "{which}: {n} changed");
        }
        // Removed again, the directory is skeinhw's: refused without --force, replaced with it.
        fs::remove_file(out.join("notes.txt")).unwrap();
        fs::remove_dir_all(out.join("sub")).unwrap();
        let o = skeinhw(&dir_args(which, &out), false, d.path());
        refused(&o, &out, which);
        assert!(stderr(&o).contains("--force"), "{which}");
        ok(&skeinhw(&dir_args(which, &out), true, d.path()), which);
        let after: Vec<String> = names(&out);
        assert_eq!(
            after,
            before.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
            "{which}"
        );
    }
}

#[test]
fn output_directory_errors() {
    for which in ["rtl", "sweep"] {
        let d = tempfile::tempdir().unwrap();
        let missing = d.path().join("no/such");
        refused(
            &skeinhw(&dir_args(which, &missing), true, d.path()),
            &missing,
            which,
        );
        let file = d.path().join("file");
        user_file(&file);
        refused(
            &skeinhw(&dir_args(which, &file), true, d.path()),
            &file,
            which,
        );
        untouched(&file);
        assert_eq!(names(d.path()), ["file"], "{which}");
        let o = skeinhw(&dir_args(which, Path::new("-")), true, d.path());
        refused(&o, Path::new("-"), which);
        assert_eq!(names(d.path()), ["file"], "{which}");
    }
    let Some(m) = Mount::new("16k") else { return };
    for which in ["rtl", "sweep"] {
        let out = m.0.join(which);
        let o = skeinhw(&dir_args(which, &out), false, &m.0);
        refused(&o, &out, which);
        assert!(
            stderr(&o).contains("No space left"),
            "{which}: {}",
            stderr(&o)
        );
        assert!(names(&m.0).is_empty(), "{which}: {:?}", names(&m.0));
    }
    m.read_only();
    for which in ["rtl", "sweep"] {
        let out = m.0.join(which);
        refused(&skeinhw(&dir_args(which, &out), false, &m.0), &out, which);
        assert!(names(&m.0).is_empty(), "{which}");
    }
}

#[test]
fn synth_dir_with_foreign_files_is_refused() {
    if Command::new("yosys").arg("-V").output().is_err() {
        eprintln!("SKIPPED: estimate --synth-dir case (yosys not installed)");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("synth");
    user_tree(&out);
    let o = skeinhw(&dir_args("estimate", &out), false, d.path());
    refused(&o, &out, "estimate --synth-dir");
    assert!(stderr(&o).contains("notes.txt"), "{}", stderr(&o));
    user_tree_intact(&out);
    assert_eq!(names(&out), ["notes.txt", "sub"]);
}

#[test]
fn dev_stdout_is_written_through_never_replaced() {
    let d = tempfile::tempdir().unwrap();
    let args = |p: &Path| {
        os(
            &[
                "trace",
                "--schedule",
                "long-iter-256",
                "--hex",
                "616263",
                "--format",
                "jsonl",
                "-o",
            ],
            p,
        )
    };
    let want = skeinhw(&args(Path::new("-")), false, d.path()).stdout;
    assert!(want.len() > 1000);
    for p in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        // Standard output a pipe.
        let o = skeinhw(&args(Path::new(p)), false, d.path());
        ok(&o, p);
        assert_eq!(o.stdout, want, "{p}");
        // Standard output a regular file (a shell's `> file`): written, not replaced.
        let file = d.path().join("redirected");
        let f = fs::File::create(&file).unwrap();
        let s = Command::new(env!("CARGO_BIN_EXE_skeinhw"))
            .args(args(Path::new(p)))
            .current_dir(d.path())
            .stdout(f)
            .status()
            .unwrap();
        assert!(s.success(), "{p}");
        assert_eq!(fs::read(&file).unwrap(), want, "{p}");
        assert_eq!(names(d.path()), ["redirected"], "{p}");
        fs::remove_file(&file).unwrap();
    }
    assert!(
        fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
