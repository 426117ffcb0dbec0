//! include/skeinhw.h is what cbindgen makes of the crate now: a stale header fails here, with
//! the command that regenerates it.

use std::path::Path;

#[test]
fn header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8 header");
    let path = dir.join("include/skeinhw.h");
    if std::env::var_os("SKEINHW_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/skeinhw.h");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{} is stale (or missing); regenerate it with\n    \
         SKEINHW_BLESS=1 cargo test -p skeinhw-capi --test header\nand commit it",
        path.display()
    );
    // The one-shot call is exactly the signature.
    assert!(
        generated.contains(
            "int skeinhw_skein_hash(uint32_t state_bits,\n                       uint64_t out_bits,"
        ) || generated.contains("int skeinhw_skein_hash(uint32_t state_bits, uint64_t out_bits,")
    );
}
