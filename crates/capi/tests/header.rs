//! include/skeinhw.h is what cbindgen makes of the crate now: a stale header fails here, with
//! the command that regenerates it.

use std::path::Path;

/// The version macros, from the crate's version (cbindgen.toml cannot know it).
fn version_macros() -> String {
    format!(
        "\n/* The version of this header; skeinhw_version() is the library's. */\n\
         #define SKEINHW_VERSION_MAJOR {}\n\
         #define SKEINHW_VERSION_MINOR {}\n\
         #define SKEINHW_VERSION_PATCH {}\n\
         #define SKEINHW_VERSION \"{}\"",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
        env!("CARGO_PKG_VERSION"),
    )
}

#[test]
fn header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    config.after_includes = Some(version_macros());
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
    assert!(generated.contains(&format!(
        "#define SKEINHW_VERSION \"{}\"",
        env!("CARGO_PKG_VERSION")
    )));
    // The one-shot call is exactly the signature.
    assert!(
        generated.contains(
            "int skeinhw_skein_hash(uint32_t state_bits,\n                       uint64_t out_bits,"
        ) || generated.contains("int skeinhw_skein_hash(uint32_t state_bits, uint64_t out_bits,")
    );
}
