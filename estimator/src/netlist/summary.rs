//! Checked-in summaries of the Yosys netlists of the presets' generated Verilog
//! (`estimator/data/netlists/<preset>.json`): what the fast tests compare the `generated`
//! model style and the timing order with, without running Yosys.
//!
//! A summary holds the cell counts by type, LUTs, flip-flops, the bit-level critical path
//! (with the constants built in when it was made), the Yosys version and script, and an
//! FNV-1a hash of the Verilog it was synthesized from. They are made by
//! `cargo run --release -p skeinhw-estimator --example netlist_summaries` (Yosys on every
//! preset, one at a time), and `SKEINHW_SLOW=1 cargo test -p skeinhw-estimator --test
//! netlist_summaries` re-synthesizes every preset and fails when a summary is not current.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Netlist, NetlistPath, yosys};
use crate::constants::Constants;
use crate::error::EstimatorError;
use crate::style::Flow;

/// Where the summaries are checked in.
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/netlists");

/// Where the generated Verilog of the presets is checked in (by `skeinhw-rtl`).
pub const GENERATED_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../crates/rtl/generated");

/// The top module of the generated Verilog.
pub const TOP: &str = "skeinhw";

/// The summary of one preset's netlist.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetlistSummary {
    /// The preset.
    pub preset: String,
    /// FNV-1a (64-bit) of the Verilog synthesized, hex.
    pub verilog_fnv1a64: String,
    /// Verilog shown to make the same netlist as the one synthesized (the generator emitting
    /// only live logic changed the text, not the hardware): accepted as current too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equivalent_verilog: Option<EquivalentVerilog>,
    /// `yosys -V`.
    pub yosys: String,
    /// The Yosys script (file names replaced by `<verilog>` and `<json>`).
    pub script: String,
    /// Seconds Yosys ran (on a shared 2-core machine; informative only).
    pub yosys_seconds: f64,
    /// Cells by type.
    pub cells: BTreeMap<String, u32>,
    /// LUT6 sites (LUT1..LUT6 and shift-register LUTs).
    pub luts: u32,
    /// Flip-flops.
    pub ffs: u32,
    /// CARRY4s.
    pub carry4: u32,
    /// Carry chains of 16 CARRY4s or more: the 64-bit (and wider) adders (Yosys builds one
    /// chain per adder). Absent in summaries made before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carry_chains_64: Option<u32>,
    /// MUXF7s.
    pub muxf7: u32,
    /// MUXF8s.
    pub muxf8: u32,
    /// Flip-flops whose data input a LUT drives.
    pub lut_fed_ffs: u32,
    /// LUT-FF pairs (with the built-in `ff_pairing`).
    pub lut_ff_pairs: u32,
    /// Slices (with the built-in packing constants).
    pub slices: u32,
    /// Tool flow of the routing delays.
    pub flow: Flow,
    /// The bit-level critical path, with the built-in constants.
    pub critical_path: NetlistPath,
    /// Its period, ns.
    pub period_ns: f64,
    /// The latest path into the state registers of the pipeline slots (`slot<j>_st`, the
    /// Threefish state): the datapath without the controller.
    pub state_path: NetlistPath,
}

/// Whether a register name is a slot's state register (`slot<j>_st[...]` or
/// `slot<j>_state_<w>[...]`).
pub fn is_state_register(name: &str) -> bool {
    name.strip_prefix("slot").is_some_and(|rest| {
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        rest.starts_with("_st[") || rest.starts_with("_state_")
    })
}

/// Whether a register name belongs to the round datapath of a generated core: a slot's
/// registers (`slot<j>_...`: state, key, tweak, plaintext, cycle counter), an adder pool's
/// operands and control (`p<j>_...`, `c<j>_...`) and a stage's arriving and next values
/// (`a<j>_...`, `n<j>_...`). The input buffers (`b<j>_`), the stream registers (`s<j>_`), the
/// controller's issue logic and the ports are not: a path from those is the issue cycle's.
pub fn is_datapath_register(name: &str) -> bool {
    ["slot", "p", "c", "a", "n"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            let index = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            index.len() < rest.len() && index.starts_with('_')
        })
    })
}

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The generated Verilog of `preset`.
pub fn verilog_path(preset: &str) -> PathBuf {
    Path::new(GENERATED_DIR).join(preset).join("skeinhw.v")
}

/// The summary file of `preset`.
pub fn summary_path(preset: &str) -> PathBuf {
    Path::new(DIR).join(format!("{preset}.json"))
}

/// The script as recorded in a summary (file names abstracted).
pub fn recorded_script() -> String {
    yosys::script(&[PathBuf::from("<verilog>")], TOP, Path::new("<json>"))
}

/// Verilog other than the synthesized text that makes the same netlist, and the evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EquivalentVerilog {
    /// FNV-1a (64-bit) of that Verilog, hex.
    pub fnv1a64: String,
    /// How it was shown to be the same hardware.
    pub evidence: String,
}

impl NetlistSummary {
    /// Summarizes the netlist `json` synthesized from `verilog` for `preset`, analysed with
    /// the built-in constants in the ISE 13 flow.
    pub fn make(
        preset: &str,
        verilog: &Path,
        json: &Path,
        yosys_seconds: f64,
    ) -> Result<NetlistSummary, EstimatorError> {
        let text = std::fs::read(verilog).map_err(|e| EstimatorError::io(verilog, e))?;
        let netlist = Netlist::from_file(json, Some(TOP))?;
        let c = Constants::built_in();
        let a = netlist.analyse(Flow::Ise13, &c);
        let state_path = netlist.critical_path_into(&a, &c, &is_state_register);
        Ok(NetlistSummary {
            preset: preset.to_owned(),
            verilog_fnv1a64: format!("{:016x}", fnv1a64(&text)),
            equivalent_verilog: None,
            yosys: yosys::version().unwrap_or_else(|| "unknown".into()),
            script: recorded_script(),
            yosys_seconds: (yosys_seconds * 10.0).round() / 10.0,
            cells: a.cells.by_type.clone(),
            luts: a.luts,
            ffs: a.ffs,
            carry4: a.cells.carry4,
            carry_chains_64: Some(netlist.carry_chains().range(16..).map(|(_, n)| n).sum()),
            muxf7: a.cells.muxf7,
            muxf8: a.cells.muxf8,
            lut_fed_ffs: a.lut_fed_ffs,
            lut_ff_pairs: a.lut_ff_pairs,
            slices: a.slices,
            flow: a.flow,
            critical_path: a.critical_path,
            period_ns: a.period_ns,
            state_path,
        })
    }

    /// Reads the checked-in summary of `preset`.
    pub fn load(preset: &str) -> Result<NetlistSummary, EstimatorError> {
        let path = summary_path(preset);
        let text = std::fs::read_to_string(&path).map_err(|e| EstimatorError::io(&path, e))?;
        serde_json::from_str(&text).map_err(|e| EstimatorError::Netlist {
            origin: path.display().to_string(),
            message: format!("not a netlist summary: {e}"),
        })
    }

    /// Writes the summary to `path` (pretty JSON, one trailing newline).
    pub fn save(&self, path: &Path) -> Result<(), EstimatorError> {
        let mut text = serde_json::to_string_pretty(self).expect("a summary serializes");
        text.push('\n');
        std::fs::write(path, text).map_err(|e| EstimatorError::io(path, e))
    }

    /// Whether the Verilog the summary was made from is the one checked in now.
    pub fn is_current(&self) -> Result<bool, EstimatorError> {
        let path = verilog_path(&self.preset);
        let text = std::fs::read(&path).map_err(|e| EstimatorError::io(&path, e))?;
        Ok(self.is_of(&format!("{:016x}", fnv1a64(&text))))
    }

    /// Whether Verilog of FNV-1a hash `hash` is the one synthesized or its equivalent.
    pub fn is_of(&self, hash: &str) -> bool {
        hash == self.verilog_fnv1a64
            || self
                .equivalent_verilog
                .as_ref()
                .is_some_and(|e| e.fnv1a64 == hash)
    }
}
