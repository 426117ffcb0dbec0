//! Every schedule file under `tests/data/` is run through `Schedule::from_json_file`:
//! `valid/*.json` must build, `invalid/FIELD.CASE.json` must fail with a one-line error that
//! names the file and FIELD (see `tests/data/README.md`).

use std::path::{Path, PathBuf};

use skeinhw_sched::Schedule;

fn json_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

#[test]
fn valid_files_build() {
    for path in json_files("valid") {
        if let Err(e) = Schedule::from_json_file(&path) {
            panic!("{e}");
        }
    }
}

#[test]
fn invalid_files_fail_naming_file_and_field() {
    for path in json_files("invalid") {
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let field = stem.split('.').next().unwrap();
        let err = match Schedule::from_json_file(&path) {
            Ok(s) => panic!("{} was accepted: {s:?}", path.display()),
            Err(e) => e.to_string(),
        };
        assert!(!err.contains('\n'), "{stem}: not one line: {err}");
        assert!(
            err.starts_with(&path.display().to_string()),
            "{stem}: does not name the file: {err}"
        );
        assert!(
            err.contains(field),
            "{stem}: does not name `{field}`: {err}"
        );
    }
}
