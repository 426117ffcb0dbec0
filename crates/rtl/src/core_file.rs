//! `core.json`: what a generated directory was built for besides its schedule (issue 33,
//! item 14). `schedule.json` holds the schedule; the core's other choices (lean or full, the
//! output length and the tree the Config string carries) live here, so that `skeinhw sim
//! --rtl-dir` can use the directory as built or refuse with the difference named, instead of
//! reporting a wrong option as a design bug.

use std::path::Path;

use serde::{Deserialize, Serialize};
use skeinhw_skein::TreeParams;

use crate::RtlError;

/// File name of the core description.
pub const CORE_FILE: &str = "core.json";

/// Largest `core.json` read (a few lines are expected).
const MAX_CORE_FILE_BYTES: u64 = 64 * 1024;

/// What a core was generated for besides its schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreInfo {
    /// A lean core (`rtl --lean`): no trace-only registers.
    pub lean: bool,
    /// Output length in bits (`rtl --out-bits`).
    pub out_bits: u64,
    /// Tree parameters (Yl, Yf, Ym) (`rtl --tree`), if any.
    pub tree: Option<[u8; 3]>,
}

impl CoreInfo {
    /// The description of a core built with `lean`, `out_bits` and `tree`.
    pub fn new(lean: bool, out_bits: u64, tree: Option<TreeParams>) -> CoreInfo {
        CoreInfo {
            lean,
            out_bits,
            tree: tree.map(|t| [t.leaf, t.fan_out, t.max_height]),
        }
    }

    /// The JSON text of `core.json`.
    pub fn to_json_pretty(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a CoreInfo serializes");
        text.push('\n');
        text
    }

    /// Reads `dir/core.json`; `Ok(None)` when the directory has none (made before the file
    /// existed).
    pub fn read_dir(dir: &Path) -> Result<Option<CoreInfo>, RtlError> {
        use std::io::Read;
        let path = dir.join(CORE_FILE);
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(RtlError::Io { path, source }),
        };
        let mut text = String::new();
        file.take(MAX_CORE_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|source| RtlError::Io {
                path: path.clone(),
                source,
            })?;
        if text.len() as u64 > MAX_CORE_FILE_BYTES {
            return Err(RtlError::Input(format!(
                "{}: larger than {MAX_CORE_FILE_BYTES} bytes: not a core description",
                path.display()
            )));
        }
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| RtlError::Input(format!("{}: {e}", path.display())))
    }

    /// How `self` (what the directory holds) differs from `wanted` (what the command asks),
    /// one phrase per choice; empty when they agree.
    pub fn differences(&self, wanted: &CoreInfo) -> Vec<String> {
        let mut out = Vec::new();
        if self.lean != wanted.lean {
            let said = |lean: bool| {
                if lean {
                    "a lean core (--lean)"
                } else {
                    "a full core"
                }
            };
            out.push(format!(
                "it holds {}, the command asks for {}",
                said(self.lean),
                said(wanted.lean)
            ));
        }
        if self.out_bits != wanted.out_bits {
            out.push(format!(
                "it is built for --out-bits {}, the command asks for {}",
                self.out_bits, wanted.out_bits
            ));
        }
        if self.tree != wanted.tree {
            let said = |t: Option<[u8; 3]>| match t {
                Some([l, f, m]) => format!("--tree {l},{f},{m}"),
                None => "no tree".to_string(),
            };
            out.push(format!(
                "it is built for {}, the command asks for {}",
                said(self.tree),
                said(wanted.tree)
            ));
        }
        out
    }
}
