//! The netlist path: a Yosys JSON netlist of the design (`synth_xilinx -family xc5v
//! -flatten`), its cells counted by type, packed into LUT-FF pairs and slices with the
//! model's packing constants, and its critical path found at bit level with the model's delay
//! constants.
//!
//! What is counted: `LUT1`..`LUT6` (and `INV`, a LUT1 in Yosys's `-ise` output), `CARRY4`,
//! `MUXF7`, `MUXF8`, flip-flops (`FD*`), shift-register LUTs (`SRL*`), I/O and clock buffers,
//! `GND`/`VCC`; any other type is counted as "other" and named in a warning.
//!
//! Timing ([`timing`]): every flip-flop output, input port and other cell output starts a
//! path at 0; every flip-flop data input (`D`, `CE`, `R`, `S`, ...; not the clock), output
//! port and other cell input ends one. Between them a LUT costs `t_lut_ns`, a MUXF7/F8
//! `t_muxf_ns`, a carry chain `t_carry4_ns / 4` per bit it carries through plus, where it is
//! entered (at `S`, `DI`, `CYINIT` or a routed `CI`), `t_carry_io_ns - t_lut_ns` (the model's
//! `t_carry_io_ns` counts the LUT in front of the chain, which the netlist has as a cell of its
//! own); every routed net costs the model's per-net delay for the flow and the netlist's size
//! ([`crate::timing::net_ns`]), and the register at the end `t_register_ns`. Dedicated
//! connections are not routed: `CO[3]` into the next `CI`, a LUT into the `S` input of the
//! carry chain in its slice, a LUT or MUXF7 into a MUXF's data input. A plain 64-bit adder
//! between registers thus costs exactly the model's adder, two nets and a register.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use crate::constants::Constants;
use crate::error::EstimatorError;
use crate::style::Flow;

mod json;
pub mod summary;
pub mod timing;
pub mod yosys;

pub use timing::NetlistPath;

/// What a cell is, for counting and timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// A LUT with this many inputs.
    Lut(u8),
    /// A carry chain element of 4 bits.
    Carry4,
    /// MUXF7 or MUXF8 (the wide multiplexers of a slice).
    MuxF7,
    MuxF8,
    /// A slice flip-flop.
    Ff,
    /// A shift register in a LUT.
    Srl,
    /// I/O and clock buffers.
    Io,
    /// GND and VCC.
    Const,
    /// Anything else.
    Other,
}

impl Class {
    fn of(kind: &str) -> Class {
        match kind {
            "LUT1" | "INV" => Class::Lut(1),
            "LUT2" => Class::Lut(2),
            "LUT3" => Class::Lut(3),
            "LUT4" => Class::Lut(4),
            "LUT5" => Class::Lut(5),
            "LUT6" => Class::Lut(6),
            "CARRY4" => Class::Carry4,
            "MUXF7" => Class::MuxF7,
            "MUXF8" => Class::MuxF8,
            "SRL16" | "SRL16E" | "SRLC16" | "SRLC16E" | "SRLC32E" => Class::Srl,
            "IBUF" | "IBUFG" | "OBUF" | "OBUFT" | "IOBUF" | "BUFG" | "BUFGCTRL" | "BUFGCE"
            | "BUFGMUX" | "BUFH" | "BUFR" | "BUFIO" => Class::Io,
            "GND" | "VCC" => Class::Const,
            k if k.starts_with("FD") => Class::Ff,
            _ => Class::Other,
        }
    }

    /// Output pins of the known cells (used when the netlist has no `port_directions`).
    fn is_output(self, kind: &str, pin: &str) -> Option<bool> {
        Some(match self {
            Class::Lut(_) | Class::MuxF7 | Class::MuxF8 => pin == "O",
            Class::Carry4 => pin == "O" || pin == "CO",
            Class::Ff => pin == "Q",
            Class::Srl => pin.starts_with('Q'),
            Class::Io => pin == "O",
            Class::Const => true,
            Class::Other => {
                let _ = kind;
                return None;
            }
        })
    }
}

/// A bit: a dense net index, or `None` for a constant or unconnected bit.
pub(crate) type NetBit = Option<u32>;

/// Cell pins, resolved to dense net indices, in the shape timing needs.
#[derive(Clone, Debug)]
pub(crate) enum Pins {
    Lut {
        inputs: Vec<NetBit>,
        out: NetBit,
    },
    MuxF {
        i0: NetBit,
        i1: NetBit,
        s: NetBit,
        out: NetBit,
    },
    Carry4 {
        ci: NetBit,
        cyinit: NetBit,
        di: [NetBit; 4],
        s: [NetBit; 4],
        co: [NetBit; 4],
        o: [NetBit; 4],
    },
    /// A timing boundary: outputs start paths, `ends` end them (clocks excluded).
    Boundary {
        outputs: Vec<NetBit>,
        ends: Vec<NetBit>,
        /// The data input of a flip-flop (for LUT-FF pairing).
        d: NetBit,
    },
}

/// One cell.
#[derive(Clone, Debug)]
pub(crate) struct CellInst {
    pub name: String,
    /// Index into [`Netlist::types`].
    pub kind: u32,
    pub class: Class,
    pub pins: Pins,
}

/// A parsed netlist: the top module's cells and nets, ready to count and time.
#[derive(Clone, Debug)]
pub struct Netlist {
    /// Where it came from (file name), for messages.
    pub origin: String,
    /// The top module.
    pub top: String,
    pub(crate) types: Vec<String>,
    pub(crate) cells: Vec<CellInst>,
    pub(crate) nets: usize,
    /// Input-port bits (paths start there).
    pub(crate) inputs: Vec<u32>,
    /// Output-port bits (paths end there).
    pub(crate) outputs: Vec<u32>,
    /// Net names: (name, width), public names first.
    pub(crate) names: Vec<(String, u32)>,
    /// Per net bit, the first name that holds it (index into `names`, bit within it), or
    /// `None`: an index, so that naming every register of a large netlist stays linear.
    pub(crate) bit_names: Vec<Option<(u32, u32)>>,
    /// Problems found while reading that do not stop the analysis.
    pub warnings: Vec<String>,
}

/// Cells of a netlist by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CellCounts {
    /// LUT1..LUT6 (index 0 is LUT1).
    pub lut_by_inputs: [u32; 6],
    /// All LUTs (LUT1..LUT6).
    pub luts: u32,
    /// CARRY4 elements.
    pub carry4: u32,
    /// MUXF7s.
    pub muxf7: u32,
    /// MUXF8s.
    pub muxf8: u32,
    /// Flip-flops (FD*).
    pub ffs: u32,
    /// Shift-register LUTs (SRL16E, SRLC32E, ...).
    pub srls: u32,
    /// I/O and clock buffers.
    pub io: u32,
    /// GND/VCC cells.
    pub constants: u32,
    /// Cells of any other type.
    pub other: u32,
    /// Every type with its count.
    pub by_type: BTreeMap<String, u32>,
}

/// What the netlist says about area and speed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetlistEstimate {
    /// File it was read from.
    pub origin: String,
    /// Top module.
    pub top: String,
    /// Cells by kind.
    pub cells: CellCounts,
    /// LUT6 sites used: LUTs plus shift-register LUTs.
    pub luts: u32,
    /// Flip-flops.
    pub ffs: u32,
    /// Flip-flops whose data input a LUT drives (each LUT counted once): they may share its
    /// LUT-FF pair.
    pub lut_fed_ffs: u32,
    /// LUT-FF pairs, with the model's `ff_pairing`.
    pub lut_ff_pairs: u32,
    /// Slices: pairs / (`luts_per_slice` x `slice_packing`), and at least one per CARRY4.
    pub slices: u32,
    /// Tool flow whose routing delay per net is used.
    pub flow: Flow,
    /// Routing delay per net, ns.
    pub net_ns: f64,
    /// The bit-level critical path.
    pub critical_path: NetlistPath,
    /// Its period, ns.
    pub period_ns: f64,
    /// 1000 / period, MHz.
    pub freq_mhz: f64,
    /// Problems that did not stop the analysis (unknown cell types, loops).
    pub warnings: Vec<String>,
}

impl Netlist {
    /// Reads a Yosys JSON netlist file; `top` picks the module (default: the one marked
    /// `top`, or the only module that is not a black box).
    pub fn from_file(path: impl AsRef<Path>, top: Option<&str>) -> Result<Netlist, EstimatorError> {
        let path = path.as_ref();
        let text = std::fs::read(path).map_err(|e| EstimatorError::io(path, e))?;
        let text = std::str::from_utf8(&text).map_err(|e| EstimatorError::Netlist {
            origin: path.display().to_string(),
            message: format!("not UTF-8 text ({e})"),
        })?;
        Netlist::parse(text, &path.display().to_string(), top)
    }

    /// Parses a Yosys JSON netlist from text; `origin` names it in messages.
    pub fn parse(text: &str, origin: &str, top: Option<&str>) -> Result<Netlist, EstimatorError> {
        let err = |message: String| EstimatorError::Netlist {
            origin: origin.to_owned(),
            message,
        };
        // Fast path first; on an error, parse again tracking the path, for the message.
        let file: json::File<'_> = match serde_json::from_str(text) {
            Ok(f) => f,
            Err(first) => {
                let (path, inner) = locate_error(text).unwrap_or((String::new(), first));
                let what = if inner.is_eof() {
                    "truncated JSON"
                } else {
                    "not a Yosys JSON netlist"
                };
                return Err(if path.is_empty() || path == "." {
                    err(format!("{what}: {inner}"))
                } else {
                    err(format!("{what}: at {path}: {inner}"))
                });
            }
        };
        let (name, module) = pick_top(&file, top).map_err(err)?;
        Ok(build(origin, name, module))
    }

    /// The netlist's named nets, (name, width in bits), public names first: what a caller
    /// recognizes a design by (a generated core's `slot0_st` is its state).
    pub fn net_names(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.names.iter().map(|(n, w)| (n.as_str(), *w))
    }

    /// Cells counted by type.
    pub fn counts(&self) -> CellCounts {
        let mut c = CellCounts::default();
        let mut by_kind = vec![0u32; self.types.len()];
        for cell in &self.cells {
            by_kind[cell.kind as usize] += 1;
            match cell.class {
                Class::Lut(n) => {
                    c.lut_by_inputs[usize::from(n.clamp(1, 6)) - 1] += 1;
                    c.luts += 1;
                }
                Class::Carry4 => c.carry4 += 1,
                Class::MuxF7 => c.muxf7 += 1,
                Class::MuxF8 => c.muxf8 += 1,
                Class::Ff => c.ffs += 1,
                Class::Srl => c.srls += 1,
                Class::Io => c.io += 1,
                Class::Const => c.constants += 1,
                Class::Other => c.other += 1,
            }
        }
        for (kind, n) in self.types.iter().zip(by_kind) {
            if n > 0 {
                c.by_type.insert(kind.clone(), n);
            }
        }
        c
    }

    /// Carry chains (CARRY4s linked `CO[3]` to `CI`) by length in CARRY4s: one 64-bit adder is
    /// one chain of 16, so chains of 16 or more count the wide adders a design builds.
    pub fn carry_chains(&self) -> BTreeMap<u32, u32> {
        let mut next_of_ci: HashMap<u32, usize> = HashMap::new();
        let mut carries = Vec::new();
        for (i, cell) in self.cells.iter().enumerate() {
            if let Pins::Carry4 { ci, .. } = &cell.pins {
                carries.push(i);
                if let Some(ci) = ci {
                    next_of_ci.insert(*ci, i);
                }
            }
        }
        let mut has_pred = vec![false; self.cells.len()];
        for &i in &carries {
            if let Pins::Carry4 {
                co: [.., Some(co)], ..
            } = &self.cells[i].pins
                && let Some(&n) = next_of_ci.get(co)
            {
                has_pred[n] = true;
            }
        }
        let mut lengths = BTreeMap::new();
        for &head in carries.iter().filter(|&&i| !has_pred[i]) {
            let (mut at, mut len) = (head, 1u32);
            while let Pins::Carry4 {
                co: [.., Some(co)], ..
            } = &self.cells[at].pins
                && let Some(&n) = next_of_ci.get(co)
                && len <= carries.len() as u32
            {
                at = n;
                len += 1;
            }
            *lengths.entry(len).or_insert(0) += 1;
        }
        lengths
    }

    /// Flip-flops whose data input is driven by a LUT, each LUT counted once.
    fn lut_fed_ffs(&self, drivers: &[u32]) -> u32 {
        let mut used = vec![false; self.cells.len()];
        let mut n = 0;
        for cell in &self.cells {
            let Pins::Boundary { d: Some(d), .. } = cell.pins else {
                continue;
            };
            if cell.class != Class::Ff {
                continue;
            }
            let drv = drivers[d as usize];
            if drv != NO_DRIVER
                && matches!(self.cells[drv as usize].class, Class::Lut(_))
                && !used[drv as usize]
            {
                used[drv as usize] = true;
                n += 1;
            }
        }
        n
    }

    /// Counts, packs and times the netlist with the model's `constants`, the routing delay of
    /// `flow` at the netlist's size.
    pub fn analyse(&self, flow: Flow, c: &Constants) -> NetlistEstimate {
        let cells = self.counts();
        let mut warnings = self.warnings.clone();
        if cells.other > 0 {
            let named: Vec<String> = cells
                .by_type
                .iter()
                .filter(|(k, _)| Class::of(k) == Class::Other)
                .map(|(k, n)| format!("{k} x{n}"))
                .collect();
            warnings.push(format!(
                "{} cell(s) of types the estimator does not know, counted as other and timed as \
                 registers: {}",
                cells.other,
                named.join(", ")
            ));
        }
        let drivers = self.drivers(&mut warnings);
        let luts = cells.luts + cells.srls;
        let ffs = cells.ffs;
        let lut_fed = self.lut_fed_ffs(&drivers);
        let free = ffs - lut_fed;
        let unpaired = f64::from(free) + (1.0 - c.ff_pairing) * f64::from(lut_fed);
        let pairs = (f64::from(luts) + unpaired)
            .round()
            .max(f64::from(luts.max(ffs))) as u32;
        let by_pairs = (f64::from(pairs) / (c.luts_per_slice * c.slice_packing)).ceil();
        let by_ffs = (f64::from(ffs) / (c.ffs_per_slice * c.slice_packing)).ceil();
        let slices = by_pairs
            .max(by_ffs)
            .max(f64::from(cells.carry4))
            .max(f64::from(cells.muxf8))
            .max(0.0) as u32;
        let net = crate::timing::net_ns(c, flow, pairs);
        let path = timing::critical_path(self, &drivers, c, net, &mut warnings);
        let period = path.period_ns;
        NetlistEstimate {
            origin: self.origin.clone(),
            top: self.top.clone(),
            cells,
            luts,
            ffs,
            lut_fed_ffs: lut_fed,
            lut_ff_pairs: pairs,
            slices,
            flow,
            net_ns: net,
            critical_path: path,
            period_ns: period,
            freq_mhz: 1000.0 / period,
            warnings,
        }
    }

    /// The latest path into the registers (or output ports) whose names `keep` accepts, timed
    /// as `analysed` (this netlist's [`Netlist::analyse`] with the model's `constants`) times
    /// the whole netlist: its routing delay per net included. E.g. the datapath alone
    /// (`slot<j>_st`), beside the whole netlist's critical path. None accepted: a path of no
    /// net, from and to `-`, as for a netlist without registers.
    pub fn critical_path_into(
        &self,
        analysed: &NetlistEstimate,
        c: &Constants,
        keep: &dyn Fn(&str) -> bool,
    ) -> NetlistPath {
        self.path(analysed, c, None, keep)
            .unwrap_or_else(|| timing::no_path(c))
    }

    /// As [`Netlist::critical_path_into`], over the paths that start at registers (or input
    /// ports) whose names `from` accepts: e.g. the round's own path, from the datapath's
    /// registers, without the cycle that issues a block from the controller's. `None` when no
    /// such path ends where `keep` accepts.
    pub fn critical_path_between(
        &self,
        analysed: &NetlistEstimate,
        c: &Constants,
        from: &dyn Fn(&str) -> bool,
        keep: &dyn Fn(&str) -> bool,
    ) -> Option<NetlistPath> {
        self.path(analysed, c, Some(from), keep)
    }

    fn path(
        &self,
        analysed: &NetlistEstimate,
        c: &Constants,
        from: Option<&dyn Fn(&str) -> bool>,
        keep: &dyn Fn(&str) -> bool,
    ) -> Option<NetlistPath> {
        let mut warnings = Vec::new();
        let drivers = self.drivers(&mut warnings);
        let net = analysed.net_ns;
        timing::critical_path_between(self, &drivers, c, net, &mut warnings, from, keep)
    }

    /// The cell driving each net (`NO_DRIVER` when none does: an input, a constant).
    pub(crate) fn drivers(&self, warnings: &mut Vec<String>) -> Vec<u32> {
        let mut drivers = vec![NO_DRIVER; self.nets];
        let mut multiple = 0usize;
        let mut first_multiple = None;
        for (i, cell) in self.cells.iter().enumerate() {
            let mut set = |bit: NetBit| {
                if let Some(b) = bit {
                    let slot = &mut drivers[b as usize];
                    if *slot == NO_DRIVER {
                        *slot = i as u32;
                    } else if *slot != i as u32 {
                        multiple += 1;
                        first_multiple.get_or_insert(b);
                    }
                }
            };
            match &cell.pins {
                Pins::Lut { out, .. } | Pins::MuxF { out, .. } => set(*out),
                Pins::Carry4 { co, o, .. } => co.iter().chain(o).for_each(|b| set(*b)),
                Pins::Boundary { outputs, .. } => outputs.iter().for_each(|b| set(*b)),
            }
        }
        if multiple > 0 {
            let name = first_multiple.map(|b| self.bit_name(b)).unwrap_or_default();
            warnings.push(format!(
                "{multiple} net bit(s) driven by more than one cell (first: {name}); the first \
                 driver is used"
            ));
        }
        drivers
    }

    /// A readable name of a net bit: `name[i]`, or `name` for a one-bit wire.
    pub(crate) fn bit_name(&self, bit: u32) -> String {
        let Some(&Some((n, i))) = self.bit_names.get(bit as usize) else {
            return format!("net {bit}");
        };
        let (name, width) = &self.names[n as usize];
        // Yosys renames a port's inner net when it inserts the I/O buffer.
        let name = name.strip_prefix("$iopadmap$").unwrap_or(name);
        if *width == 1 {
            name.to_owned()
        } else {
            format!("{name}[{i}]")
        }
    }
}

/// The JSON path and error of a netlist that does not parse (`None` if it does).
fn locate_error(text: &str) -> Option<(String, serde_json::Error)> {
    let mut de = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, json::File<'_>>(&mut de) {
        Err(e) => {
            let path = e.path().to_string();
            Some((path, e.into_inner()))
        }
        Ok(_) => de.end().err().map(|e| (String::new(), e)),
    }
}

/// No cell drives the net.
pub(crate) const NO_DRIVER: u32 = u32::MAX;

fn pick_top<'f, 'a>(
    file: &'f json::File<'a>,
    top: Option<&str>,
) -> Result<(&'f str, &'f json::Module<'a>), String> {
    if let Some(top) = top {
        return file
            .modules
            .get_key_value(top)
            .map(|(k, m)| (k.as_ref(), m))
            .ok_or_else(|| format!("no module `{top}` in the netlist"));
    }
    let marked: Vec<_> = file
        .modules
        .iter()
        .filter(|(_, m)| m.attributes.get("top").is_some_and(json::truthy))
        .collect();
    match marked.as_slice() {
        [(k, m)] => return Ok((cow_str(k), *m)),
        [] => {}
        many => {
            let names: Vec<&str> = many.iter().map(|(k, _)| k.as_ref()).collect();
            return Err(format!(
                "several modules are marked top ({}); name one",
                names.join(", ")
            ));
        }
    }
    let real: Vec<_> = file
        .modules
        .iter()
        .filter(|(_, m)| {
            !["blackbox", "whitebox"]
                .iter()
                .any(|a| m.attributes.get(*a).is_some_and(json::truthy))
        })
        .collect();
    match real.as_slice() {
        [(k, m)] => Ok((cow_str(k), *m)),
        [] => Err(format!(
            "no top module: the netlist has {} module(s), none marked top and all black boxes \
             (was it written by `synth_xilinx ... -top TOP; write_json`?)",
            file.modules.len()
        )),
        many => Err(format!(
            "no top module: {} modules and none marked top ({}...); synthesize with `-top TOP`",
            many.len(),
            many.iter()
                .take(3)
                .map(|(k, _)| k.as_ref())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn cow_str<'f>(k: &&'f std::borrow::Cow<'_, str>) -> &'f str {
    k
}

/// Pins whose inputs are clocks, not data (they end no path).
fn is_clock_pin(pin: &str) -> bool {
    matches!(pin, "C" | "CK" | "CLK" | "WCLK") || pin.starts_with("CLK")
}

fn build(origin: &str, top: &str, module: &json::Module<'_>) -> Netlist {
    let mut ids: HashMap<u64, u32> = HashMap::new();
    let mut dense = |b: json::Bit| -> NetBit {
        match b {
            json::Bit::Const => None,
            json::Bit::Net(id) => {
                let next = ids.len() as u32;
                Some(*ids.entry(id).or_insert(next))
            }
        }
    };
    let mut warnings = Vec::new();
    let mut types: Vec<String> = Vec::new();
    let mut type_index: HashMap<String, u32> = HashMap::new();
    let mut cells = Vec::with_capacity(module.cells.len());
    let mut undirected: BTreeMap<String, u32> = BTreeMap::new();
    for (name, cell) in &module.cells {
        let kind_name: &str = &cell.kind;
        let kind = *type_index.entry(kind_name.to_owned()).or_insert_with(|| {
            types.push(kind_name.to_owned());
            types.len() as u32 - 1
        });
        let class = Class::of(kind_name);
        let pin = |p: &str, i: usize| -> Option<json::Bit> {
            cell.connections.get(p).and_then(|v| v.get(i)).copied()
        };
        let mut one = |p: &str, i: usize| pin(p, i).and_then(&mut dense);
        let pins = match class {
            Class::Lut(n) => {
                let inputs = (0..usize::from(n))
                    .map(|i| {
                        if kind_name == "INV" {
                            one("I", 0)
                        } else {
                            one(&format!("I{i}"), 0)
                        }
                    })
                    .collect();
                Pins::Lut {
                    inputs,
                    out: one("O", 0),
                }
            }
            Class::MuxF7 | Class::MuxF8 => Pins::MuxF {
                i0: one("I0", 0),
                i1: one("I1", 0),
                s: one("S", 0),
                out: one("O", 0),
            },
            Class::Carry4 => Pins::Carry4 {
                ci: one("CI", 0),
                cyinit: one("CYINIT", 0),
                di: [0, 1, 2, 3].map(|i| one("DI", i)),
                s: [0, 1, 2, 3].map(|i| one("S", i)),
                co: [0, 1, 2, 3].map(|i| one("CO", i)),
                o: [0, 1, 2, 3].map(|i| one("O", i)),
            },
            _ => {
                let mut outputs = Vec::new();
                let mut ends = Vec::new();
                let mut d = None;
                let mut missing_direction = false;
                for (p, bits) in &cell.connections {
                    let p: &str = p;
                    let output = match cell.port_directions.get(p) {
                        Some(dir) => dir != "input",
                        None => match class.is_output(kind_name, p) {
                            Some(o) => o,
                            None => {
                                missing_direction = true;
                                false
                            }
                        },
                    };
                    let bits = bits.iter().map(|b| dense(*b));
                    if output {
                        outputs.extend(bits);
                    } else if class == Class::Io {
                        // Only output buffers end a path (at an output pin).
                        if matches!(kind_name, "OBUF" | "OBUFT" | "IOBUF") && p == "I" {
                            ends.extend(bits);
                        }
                    } else if !is_clock_pin(p) {
                        let bits: Vec<NetBit> = bits.collect();
                        if class == Class::Ff && p == "D" {
                            d = bits.first().copied().flatten();
                        }
                        ends.extend(bits);
                    }
                }
                if missing_direction {
                    *undirected.entry(kind_name.to_owned()).or_default() += 1;
                }
                Pins::Boundary { outputs, ends, d }
            }
        };
        cells.push(CellInst {
            name: name.to_string(),
            kind,
            class,
            pins,
        });
    }
    if !undirected.is_empty() {
        let list: Vec<String> = undirected
            .iter()
            .map(|(k, n)| format!("{k} x{n}"))
            .collect();
        warnings.push(format!(
            "no port directions for {} (the netlist was written without its cell library): \
             all their pins are taken as inputs",
            list.join(", ")
        ));
    }
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for port in module.ports.values() {
        let bits = port.bits.iter().filter_map(|b| dense(*b));
        match &*port.direction {
            "input" => inputs.extend(bits),
            "output" => outputs.extend(bits),
            _ => bits.for_each(drop),
        }
    }
    let mut names: Vec<(bool, String, Vec<NetBit>)> = module
        .netnames
        .iter()
        .map(|(name, n)| {
            let hidden = json::truthy(&n.hide_name);
            (
                hidden,
                name.to_string(),
                n.bits.iter().map(|b| dense(*b)).collect(),
            )
        })
        .collect();
    names.sort_by_key(|(hidden, name, _)| (*hidden, name.len()));
    let mut bit_names = vec![None; ids.len()];
    for (n, (_, _, bits)) in names.iter().enumerate() {
        for (i, bit) in bits.iter().enumerate() {
            if let Some(b) = *bit
                && bit_names[b as usize].is_none()
            {
                bit_names[b as usize] = Some((n as u32, i as u32));
            }
        }
    }
    Netlist {
        origin: origin.to_owned(),
        top: top.to_owned(),
        types,
        cells,
        nets: ids.len(),
        inputs,
        outputs,
        names: names
            .into_iter()
            .map(|(_, n, b)| (n, b.len() as u32))
            .collect(),
        bit_names,
        warnings,
    }
}
