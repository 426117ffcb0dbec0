//! The checked-in designs of the seed papers' presets, Skein and Shabal
//! (`crates/rtl/generated/<preset>/`), are exactly what the generator writes today. To refresh them after a deliberate change:
//! `SKEINHW_REGENERATE=1 cargo test -p skeinhw-rtl --test generated`.

use std::path::PathBuf;

#[test]
fn checked_in_designs_are_regenerated_byte_for_byte() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("generated");
    let regenerate = std::env::var_os("SKEINHW_REGENERATE").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    let skein = skeinhw_sched::presets()
        .into_iter()
        .map(|s| skeinhw_rtl::generate(&s).expect("every preset is generated"))
        .map(skeinhw_rtl::AnyDesign::Skein);
    let shabal = skeinhw_sched::shabal::presets()
        .into_iter()
        .map(|s| skeinhw_rtl::shabal::generate(&s))
        .map(skeinhw_rtl::AnyDesign::Shabal);
    for design in skein.chain(shabal) {
        let dir = root.join(design.name());
        for (name, text) in design.files() {
            let path = dir.join(name);
            let current = std::fs::read_to_string(&path).ok();
            if current.as_deref() == Some(text.as_str()) {
                continue;
            }
            if regenerate {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, text).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "generated files differ from the generator's output: {}\nregenerate with: \
         SKEINHW_REGENERATE=1 cargo test -p skeinhw-rtl --test generated",
        stale.join(", ")
    );
}
