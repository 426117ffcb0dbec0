//! The model's constants: Virtex-5 facts that are fixed, and the fitted delays and area
//! factors, read from `data/virtex5.toml` (embedded in the library, or another file).
//!
//! Every constant is a number under a `[section]` with a comment above it saying what it
//! means and where its value comes from; the file is rewritten only by
//! `skeinhw calibrate --write`, which keeps those comments.

use std::path::Path;
use std::str::FromStr;

use toml_edit::{DocumentMut, Item, Value};

use crate::error::EstimatorError;

/// Where the constants file is checked in (what `skeinhw calibrate --write` rewrites).
pub const SOURCE_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/virtex5.toml");

/// The constants file as checked in, embedded so the library works without it on disk.
pub const BUILT_IN: &str = include_str!("../data/virtex5.toml");

macro_rules! constants {
    ($( $(#[$doc:meta])* $section:literal . $field:ident ),* $(,)?) => {
        /// All constants of the model, in nanoseconds, LUTs, flip-flops or plain factors.
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        pub struct Constants {
            $( $(#[$doc])* pub $field: f64, )*
        }

        impl Constants {
            /// `(section, name)` of every constant, in file order.
            pub const KEYS: &'static [(&'static str, &'static str)] =
                &[$( ($section, stringify!($field)), )*];

            /// A constant by name.
            pub fn get(&self, name: &str) -> Option<f64> {
                match name {
                    $( stringify!($field) => Some(self.$field), )*
                    _ => None,
                }
            }

            /// A constant by name, to change it (the calibration's search).
            pub fn get_mut(&mut self, name: &str) -> Option<&mut f64> {
                match name {
                    $( stringify!($field) => Some(&mut self.$field), )*
                    _ => None,
                }
            }

            fn zero() -> Self {
                Constants { $( $field: 0.0, )* }
            }
        }
    };
}

constants! {
    /// LUT6s in a Virtex-5 slice (UG190).
    "device".luts_per_slice,
    /// Flip-flops in a Virtex-5 slice (UG190).
    "device".ffs_per_slice,
    /// Register clock-to-out plus setup, ns.
    "device".t_register_ns,
    /// One LUT6 level, ns.
    "device".t_lut_ns,
    /// One MUXF7 or MUXF8 stage of a wide multiplexer, ns.
    "device".t_muxf_ns,
    /// Carry propagation through one CARRY4 (4 bits), ns.
    "device".t_carry4_ns,
    /// Entering and leaving a carry chain (LUT to carry-in, last sum out), ns.
    "device".t_carry_io_ns,
    /// Share of a full adder delay that each further adder in a chain adds.
    "timing".chained_adder_fraction,
    /// Routing delay per net of the ISE 9.1 default-options flow, ns.
    "timing".net_ise9_ns,
    /// Routing delay per net of the ISE 13.1 flow, ns.
    "timing".net_ise13_ns,
    /// Growth of the routing delay with design size: (pairs / reference) ^ exponent.
    "timing".net_size_exponent,
    /// Design size, in LUT-FF pairs, at which the per-net delays above hold.
    "timing".net_reference_pairs,
    /// Logic LUTs per counted LUT in the ISE 13 flow (synthesis mapping, replication,
    /// control decode).
    "area".lut_overhead,
    /// Logic LUTs per counted LUT in the ISE 9.1 default-options flow (Long 2009: no area
    /// optimisation asked for).
    "area".lut_overhead_ise9,
    /// Control LUTs of a bare UBI core (counter, round-key decode, handshakes).
    "area".control_luts_ubi,
    /// Control LUTs of a complete hash core (FSM, counters, padding control).
    "area".control_luts_hash,
    /// Control flip-flops of a bare UBI core.
    "area".control_ffs_ubi,
    /// Control flip-flops of a complete hash core.
    "area".control_ffs_hash,
    /// Share of LUT-fed flip-flops placed in the same LUT-FF pair as their LUT.
    "area".ff_pairing,
    /// Share of the slice's LUT-FF pairs the placer fills.
    "area".slice_packing,
    /// Logic LUTs per counted LUT of the generated RTL (Yosys's mapping of the elements the
    /// `generated` style counts).
    "generated".lut_overhead_generated,
    /// Control LUTs of an unfolded Shabal core (FSM, counter decode, I/O wrapper).
    "shabal".shabal_control_luts,
    /// Routing delay per net of a Shabal core relative to the flow's.
    "shabal".shabal_net_factor,
}

impl Constants {
    /// The largest constants file read, in bytes (the built-in one is about 3 KiB): a damaged or
    /// hostile file is not parsed whole into a TOML document many times its size (issue 16).
    pub const MAX_FILE_BYTES: u64 = 1 << 20;

    /// The constants checked in with the library.
    pub fn built_in() -> Constants {
        Constants::parse(BUILT_IN, "built-in").expect("the built-in constants file is valid")
    }

    /// Reads a constants file; one larger than [`Constants::MAX_FILE_BYTES`] is refused unread.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Constants, EstimatorError> {
        use std::io::Read;
        let path = path.as_ref();
        let io = |e| EstimatorError::io(path, e);
        let mut text = String::new();
        std::fs::File::open(path)
            .map_err(io)?
            .take(Self::MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(io)?;
        if text.len() as u64 > Self::MAX_FILE_BYTES {
            return Err(io(std::io::Error::other(format!(
                "larger than {} bytes: not a constants file",
                Self::MAX_FILE_BYTES
            ))));
        }
        Constants::parse(&text, &path.display().to_string())
    }

    /// Parses constants from TOML text; every constant must be present, and nothing else.
    pub fn parse(text: &str, origin: &str) -> Result<Constants, EstimatorError> {
        let err = |message: String| EstimatorError::Constants {
            origin: origin.to_owned(),
            message,
        };
        let doc = DocumentMut::from_str(text).map_err(|e| err(one_line(&e.to_string())))?;
        let mut constants = Constants::zero();
        for (section, name) in Constants::KEYS {
            let item = doc
                .get(section)
                .and_then(|s| s.get(name))
                .ok_or_else(|| err(format!("missing `{section}.{name}`")))?;
            let value = item
                .as_float()
                .or_else(|| item.as_integer().map(|i| i as f64))
                .ok_or_else(|| err(format!("`{section}.{name}` is not a number")))?;
            if !value.is_finite() {
                return Err(err(format!("`{section}.{name}` is not finite")));
            }
            *constants.get_mut(name).expect("listed key") = value;
        }
        for (section, table) in doc.iter() {
            let Some(table) = table.as_table_like() else {
                return Err(err(format!("`{section}` is not a section")));
            };
            for (name, _) in table.iter() {
                if !Constants::KEYS.contains(&(section, name)) {
                    return Err(err(format!("unknown constant `{section}.{name}`")));
                }
            }
        }
        Ok(constants)
    }

    /// `text` (a constants file) with every value replaced by this one, comments kept.
    pub fn rewrite(&self, text: &str) -> Result<String, EstimatorError> {
        let mut doc = DocumentMut::from_str(text).map_err(|e| EstimatorError::Constants {
            origin: "rewrite".into(),
            message: one_line(&e.to_string()),
        })?;
        for (section, name) in Constants::KEYS {
            let value = self.get(name).expect("listed key");
            let item = &mut doc[section][name];
            let decor = item.as_value().map(|v| v.decor().clone());
            let mut new = Value::from(value);
            if let Some(decor) = decor {
                *new.decor_mut() = decor;
            }
            *item = Item::Value(new);
        }
        Ok(doc.to_string())
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
