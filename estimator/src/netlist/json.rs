//! The subset of Yosys's `write_json` format the netlist path reads, borrowed from the text
//! where it can be (a large netlist is tens of megabytes of cell records).
//!
//! Format (Yosys manual, `help write_json`): `{"modules": {NAME: {"attributes", "ports",
//! "cells", "netnames"}}}`; a signal is a list of bits, each an integer net id or one of the
//! constant strings `"0"`, `"1"`, `"x"`, `"z"`. Fields this reader does not use (`creator`,
//! cell `parameters` and `attributes`, ...) are skipped.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

/// One bit of a signal: a net, or a constant (`"0"`, `"1"`, `"x"`, `"z"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bit {
    /// Net id (Yosys numbers them from 2).
    Net(u64),
    /// A constant or undefined bit.
    Const,
}

impl<'de> Deserialize<'de> for Bit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Bit;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a net id or one of \"0\", \"1\", \"x\", \"z\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bit, E> {
                Ok(Bit::Net(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Bit, E> {
                u64::try_from(v)
                    .map(Bit::Net)
                    .map_err(|_| E::custom(format!("negative net id {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Bit, E> {
                match v {
                    "0" | "1" | "x" | "z" | "X" | "Z" => Ok(Bit::Const),
                    _ => Err(E::custom(format!(
                        "bit `{v}` is neither a net id nor 0/1/x/z"
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The whole file.
#[derive(Deserialize)]
pub(crate) struct File<'a> {
    #[serde(borrow)]
    pub modules: BTreeMap<Cow<'a, str>, Module<'a>>,
}

/// One module.
#[derive(Deserialize)]
pub(crate) struct Module<'a> {
    #[serde(default)]
    pub attributes: BTreeMap<String, serde_json::Value>,
    #[serde(default, borrow)]
    pub ports: BTreeMap<Cow<'a, str>, Port<'a>>,
    #[serde(default, borrow)]
    pub cells: BTreeMap<Cow<'a, str>, Cell<'a>>,
    #[serde(default, borrow)]
    pub netnames: BTreeMap<Cow<'a, str>, NetName>,
}

/// A module port.
#[derive(Deserialize)]
pub(crate) struct Port<'a> {
    #[serde(borrow)]
    pub direction: Cow<'a, str>,
    pub bits: Vec<Bit>,
}

/// A cell instance.
#[derive(Deserialize)]
pub(crate) struct Cell<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    /// Present when the cell library was still loaded at `write_json`; optional otherwise.
    #[serde(default, borrow)]
    pub port_directions: BTreeMap<Cow<'a, str>, Cow<'a, str>>,
    #[serde(default, borrow)]
    pub connections: BTreeMap<Cow<'a, str>, Vec<Bit>>,
}

/// A named wire.
#[derive(Deserialize)]
pub(crate) struct NetName {
    #[serde(default)]
    pub hide_name: serde_json::Value,
    pub bits: Vec<Bit>,
}

/// Whether a Yosys attribute value is set: a binary string with a 1 in it, or a non-zero
/// number, or `true`.
pub(crate) fn truthy(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Bool(b) => *b,
        serde_json::Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        serde_json::Value::String(s) => s.contains('1'),
        _ => false,
    }
}
