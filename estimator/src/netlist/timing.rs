//! The bit-level critical path of a netlist: the latest arrival over every path from a
//! timing start (flip-flop output, input port, any other cell's output, a constant) to a
//! timing end (flip-flop data input, output port, other cell input), with the delays described
//! in [`crate::netlist`].
//!
//! Arrival times are computed once per combinational cell in depth-first order (an explicit
//! stack: a netlist is untrusted input and may be deep). A combinational loop is broken where
//! the search meets it, with a warning.

use serde::{Deserialize, Serialize};

use super::{Class, NO_DRIVER, NetBit, Netlist, Pins};
use crate::constants::Constants;

/// The critical path of a netlist and what lies on it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NetlistPath {
    /// Where it starts (a register output or an input port, by net name).
    pub from: String,
    /// Where it ends (the net into a register input or an output port, and the pin).
    pub to: String,
    /// LUTs on the path.
    pub lut_depth: u32,
    /// Carry chains entered on the path (an adder each, in the model's words).
    pub carry_chains: u32,
    /// CARRY4 elements on the path.
    pub carry4: u32,
    /// Carry bits the path ripples through.
    pub carry_bits: u32,
    /// MUXF7/MUXF8 stages on the path.
    pub muxf: u32,
    /// Routed nets on the path, the one into the end register included.
    pub nets: u32,
    /// Register, LUTs, carry and MUXFs, ns.
    pub logic_ns: f64,
    /// Routing, ns.
    pub route_ns: f64,
    /// The clock period, ns.
    pub period_ns: f64,
    /// The named nets the path passes through, start to end (Yosys's own `$...` names and
    /// repeats left out): where in the design the path runs, not just its two ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub through: Vec<String>,
}

/// How the latest signal reached a net.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Nothing drives it combinationally: a path starts here.
    Start,
    /// Through a LUT.
    Lut,
    /// Through a MUXF7/MUXF8.
    MuxF,
    /// Through `bits` carry bits of a CARRY4, entering the chain there if `entered`.
    Carry { bits: u8, entered: bool },
}

#[derive(Clone, Copy, Debug)]
struct Arrival {
    /// ns since the clock edge (register delay not included).
    at: f64,
    /// The net the latest input came from.
    pred: u32,
    /// Whether that input was a routed net.
    routed: bool,
    step: Step,
    /// The cell stepped through.
    cell: u32,
}

const START: Arrival = Arrival {
    at: 0.0,
    pred: u32::MAX,
    routed: false,
    step: Step::Start,
    cell: u32::MAX,
};

/// One candidate input of a cell output.
#[derive(Clone, Copy)]
struct Cand {
    at: f64,
    pred: u32,
    routed: bool,
}

impl Cand {
    fn better(self, other: Option<Cand>) -> Option<Cand> {
        match other {
            Some(o) if o.at >= self.at => Some(o),
            _ => Some(self),
        }
    }
}

struct Delays {
    lut: f64,
    muxf: f64,
    carry_bit: f64,
    carry_entry: f64,
    net: f64,
}

/// The critical path of `netlist`, with the routing delay `net` per net.
pub(crate) fn critical_path(
    netlist: &Netlist,
    drivers: &[u32],
    c: &Constants,
    net: f64,
    warnings: &mut Vec<String>,
) -> NetlistPath {
    critical_path_between(netlist, drivers, c, net, warnings, None, &|_| true)
        .unwrap_or_else(|| no_path(c))
}

/// The path of a netlist with nowhere to end: no net, a register's delay, from and to `-`.
pub(crate) fn no_path(c: &Constants) -> NetlistPath {
    NetlistPath {
        from: "-".into(),
        to: "-".into(),
        nets: 0,
        logic_ns: c.t_register_ns,
        period_ns: c.t_register_ns,
        ..NetlistPath::default()
    }
}

/// The latest path of `netlist` that ends in a register (by the name of its output net) or an
/// output port whose name `keep` accepts and, when `from` is given, starts at a net (a
/// register output, an input port) whose name it accepts: a path from anywhere else does not
/// count. `None` when no path qualifies.
pub(crate) fn critical_path_between(
    netlist: &Netlist,
    drivers: &[u32],
    c: &Constants,
    net: f64,
    warnings: &mut Vec<String>,
    from: Option<&dyn Fn(&str) -> bool>,
    keep: &dyn Fn(&str) -> bool,
) -> Option<NetlistPath> {
    let d = Delays {
        lut: c.t_lut_ns,
        muxf: c.t_muxf_ns,
        carry_bit: c.t_carry4_ns / 4.0,
        carry_entry: (c.t_carry_io_ns - c.t_lut_ns).max(0.0),
        net,
    };
    let cells = &netlist.cells;
    let mut arrival: Vec<Arrival> = vec![START; netlist.nets];
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; cells.len()];
    let mut loops = 0usize;
    let mut first_loop: Option<u32> = None;
    let comb = |i: u32| -> bool {
        i != NO_DRIVER
            && matches!(
                cells[i as usize].class,
                Class::Lut(_) | Class::MuxF7 | Class::MuxF8 | Class::Carry4
            )
    };
    if let Some(from) = from {
        // A start that does not count arrives never, so no path through it can be latest.
        for (bit, a) in arrival.iter_mut().enumerate() {
            if !comb(drivers[bit]) && !from(&netlist.bit_name(bit as u32)) {
                a.at = f64::NEG_INFINITY;
            }
        }
    }
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let mut inputs_buf: Vec<NetBit> = Vec::new();
    for root in 0..cells.len() as u32 {
        if !comb(root) || state[root as usize] != 0 {
            continue;
        }
        state[root as usize] = 1;
        stack.push((root, 0));
        while let Some(&mut (cell, ref mut next)) = stack.last_mut() {
            inputs_buf.clear();
            comb_inputs(&cells[cell as usize].pins, &mut inputs_buf);
            let mut pushed = None;
            while *next < inputs_buf.len() {
                let input = inputs_buf[*next];
                *next += 1;
                let Some(b) = input else { continue };
                let drv = drivers[b as usize];
                if !comb(drv) {
                    continue;
                }
                match state[drv as usize] {
                    0 => {
                        pushed = Some(drv);
                        break;
                    }
                    1 => {
                        loops += 1;
                        first_loop.get_or_insert(drv);
                    }
                    _ => {}
                }
            }
            if let Some(drv) = pushed {
                state[drv as usize] = 1;
                stack.push((drv, 0));
                continue;
            }
            // Every input is final (or part of a loop, and taken as it stands).
            evaluate(
                cell,
                &cells[cell as usize].pins,
                drivers,
                cells,
                &d,
                &mut arrival,
            );
            state[cell as usize] = 2;
            stack.pop();
        }
    }
    if loops > 0 {
        let at = first_loop
            .map(|i| {
                format!(
                    "{} ({})",
                    cells[i as usize].name, netlist.types[cells[i as usize].kind as usize]
                )
            })
            .unwrap_or_default();
        warnings.push(format!(
            "{loops} combinational loop edge(s) (first at cell {at}); each loop is broken where \
             the search met it"
        ));
    }

    // The latest end.
    let mut best: Option<(f64, u32, Option<usize>)> = None;
    let mut consider = |bit: NetBit, cell: Option<usize>| {
        if let Some(b) = bit {
            let at = arrival[b as usize].at + d.net;
            if at.is_finite() && best.as_ref().is_none_or(|(t, _, _)| at > *t) {
                best = Some((at, b, cell));
            }
        }
    };
    for (i, cell) in cells.iter().enumerate() {
        if let Pins::Boundary {
            ends, outputs, d, ..
        } = &cell.pins
        {
            // A register's data input is kept by the register's name; other ends by theirs.
            let register = match (d, outputs.first()) {
                (Some(_), Some(Some(q))) if outputs.len() == 1 => Some(netlist.bit_name(*q)),
                _ => None,
            };
            for &b in ends {
                let name = match (&register, b) {
                    (Some(r), Some(bit)) if *d == Some(bit) => r.clone(),
                    (_, Some(bit)) => netlist.bit_name(bit),
                    (_, None) => continue,
                };
                if keep(&name) {
                    consider(b, Some(i));
                }
            }
        }
    }
    for &b in &netlist.outputs {
        if keep(&netlist.bit_name(b)) {
            consider(Some(b), None);
        }
    }
    let (_, end, end_cell) = best?;
    let to = match end_cell {
        None => format!("{} (output port)", netlist.bit_name(end)),
        Some(i) => {
            let cell = &cells[i];
            let kind = &netlist.types[cell.kind as usize];
            match &cell.pins {
                // A register by the name of its output.
                Pins::Boundary { outputs, d, .. } if *d == Some(end) && outputs.len() == 1 => {
                    match outputs[0] {
                        Some(q) => format!("{} ({kind} D)", netlist.bit_name(q)),
                        None => format!("{} ({kind} {})", netlist.bit_name(end), cell.name),
                    }
                }
                _ => format!("{} (into {kind} {})", netlist.bit_name(end), cell.name),
            }
        }
    };

    // Walk back from the end, counting what lies on the path.
    let mut p = NetlistPath {
        to,
        nets: 1,
        ..NetlistPath::default()
    };
    let mut carry_bits = 0u32;
    let mut carry_entries = 0u32;
    let mut last_carry_cell = u32::MAX;
    let mut bit = end;
    // A path visits every net at most once (arrivals strictly grow along it, or the walk
    // stops at a start), but bound the walk anyway.
    for _ in 0..=netlist.nets {
        let a = arrival[bit as usize];
        let name = netlist.bit_name(bit);
        let repeat = p
            .through
            .last()
            .is_some_and(|last| vector_name(last) == vector_name(&name));
        if !name.starts_with('$') && !name.starts_with("net ") && !repeat {
            p.through.push(name);
        }
        match a.step {
            Step::Start => break,
            Step::Lut => p.lut_depth += 1,
            Step::MuxF => p.muxf += 1,
            Step::Carry { bits, entered } => {
                carry_bits += u32::from(bits);
                if a.cell != last_carry_cell {
                    p.carry4 += 1;
                    last_carry_cell = a.cell;
                }
                if entered {
                    carry_entries += 1;
                }
            }
        }
        if a.routed {
            p.nets += 1;
        }
        if a.pred == u32::MAX {
            break;
        }
        bit = a.pred;
    }
    let start_kind = match drivers[bit as usize] {
        NO_DRIVER if netlist.inputs.contains(&bit) => "input port".to_owned(),
        NO_DRIVER => "undriven or constant".to_owned(),
        i => {
            let cell = &cells[i as usize];
            let kind = &netlist.types[cell.kind as usize];
            if cell.class == Class::Ff {
                format!("{kind} Q")
            } else {
                format!("{kind} {}", cell.name)
            }
        }
    };
    p.through.reverse();
    p.from = format!("{} ({start_kind})", netlist.bit_name(bit));
    p.carry_bits = carry_bits;
    p.carry_chains = carry_entries;
    p.logic_ns = c.t_register_ns
        + f64::from(p.lut_depth) * d.lut
        + f64::from(p.muxf) * d.muxf
        + f64::from(carry_bits) * d.carry_bit
        + f64::from(carry_entries) * d.carry_entry;
    p.route_ns = f64::from(p.nets) * d.net;
    p.period_ns = p.logic_ns + p.route_ns;
    Some(p)
}

/// A net's name without its bit index (`n0_st[63]` -> `n0_st`): a path rippling through one
/// vector is listed once.
fn vector_name(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

/// The inputs of a combinational cell, in a fixed order (for the depth-first search).
fn comb_inputs(pins: &Pins, out: &mut Vec<NetBit>) {
    match pins {
        Pins::Lut { inputs, .. } => out.extend_from_slice(inputs),
        Pins::MuxF { i0, i1, s, .. } => out.extend([*i0, *i1, *s]),
        Pins::Carry4 {
            ci, cyinit, di, s, ..
        } => {
            out.extend([*ci, *cyinit]);
            out.extend_from_slice(di);
            out.extend_from_slice(s);
        }
        Pins::Boundary { .. } => {}
    }
}

/// Arrival of `bit` at the input of a cell, through a routed net or a dedicated one.
fn input(bit: NetBit, routed: bool, d: &Delays, arrival: &[Arrival]) -> Option<Cand> {
    let b = bit?;
    Some(Cand {
        at: arrival[b as usize].at + if routed { d.net } else { 0.0 },
        pred: b,
        routed,
    })
}

fn driver_class(bit: NetBit, drivers: &[u32], cells: &[super::CellInst]) -> Option<Class> {
    let drv = drivers[bit? as usize];
    (drv != NO_DRIVER).then(|| cells[drv as usize].class)
}

fn set(
    out: NetBit,
    cand: Option<Cand>,
    delay: f64,
    step: Step,
    cell: u32,
    arrival: &mut [Arrival],
) {
    if let (Some(o), Some(c)) = (out, cand) {
        arrival[o as usize] = Arrival {
            at: c.at + delay,
            pred: c.pred,
            routed: c.routed,
            step,
            cell,
        };
    }
}

/// Computes the arrival at the outputs of combinational cell `cell` from its inputs'.
fn evaluate(
    cell: u32,
    pins: &Pins,
    drivers: &[u32],
    cells: &[super::CellInst],
    d: &Delays,
    arrival: &mut [Arrival],
) {
    match pins {
        Pins::Lut { inputs, out } => {
            let latest = inputs
                .iter()
                .filter_map(|&b| input(b, true, d, arrival))
                .fold(None, |acc, c| c.better(acc));
            set(*out, latest, d.lut, Step::Lut, cell, arrival);
        }
        Pins::MuxF { i0, i1, s, out } => {
            // Data inputs from a LUT or a MUXF7 of the slice are dedicated wires.
            let data = |b: NetBit| {
                let dedicated = matches!(
                    driver_class(b, drivers, cells),
                    Some(Class::Lut(_) | Class::MuxF7)
                );
                input(b, !dedicated, d, arrival)
            };
            let latest = [data(*i0), data(*i1), input(*s, true, d, arrival)]
                .into_iter()
                .flatten()
                .fold(None, |acc, c| c.better(acc));
            set(*out, latest, d.muxf, Step::MuxF, cell, arrival);
        }
        Pins::Carry4 {
            ci,
            cyinit,
            di,
            s,
            co,
            o,
        } => {
            // A carry: when it arrives, where from, bits rippled in this cell, entered here.
            #[derive(Clone, Copy)]
            struct Carry {
                cand: Cand,
                bits: u8,
                entered: bool,
            }
            let pick = |a: Option<Carry>, b: Option<Carry>| match (a, b) {
                (Some(x), Some(y)) => Some(if y.cand.at > x.cand.at { y } else { x }),
                (x, None) => x,
                (None, y) => y,
            };
            let entry = |cand: Option<Cand>| {
                cand.map(|c| Carry {
                    cand: Cand {
                        at: c.at + d.carry_entry,
                        ..c
                    },
                    bits: 0,
                    entered: true,
                })
            };
            // CI from the CO of the CARRY4 below is dedicated; anything else is routed and
            // enters the chain.
            let from_chain = matches!(driver_class(*ci, drivers, cells), Some(Class::Carry4));
            let ci_carry = if from_chain {
                input(*ci, false, d, arrival).map(|cand| Carry {
                    cand,
                    bits: 0,
                    entered: false,
                })
            } else {
                entry(input(*ci, true, d, arrival))
            };
            let mut carry = pick(ci_carry, entry(input(*cyinit, true, d, arrival)));
            for j in 0..4 {
                // S from a LUT of the slice is dedicated (the LUT in front of the chain).
                let s_dedicated = matches!(driver_class(s[j], drivers, cells), Some(Class::Lut(_)));
                let s_in = input(s[j], !s_dedicated, d, arrival);
                let local = pick(entry(s_in), entry(input(di[j], true, d, arrival)));
                let step = |c: Option<Carry>| {
                    c.map(|c| Carry {
                        cand: Cand {
                            at: c.cand.at + d.carry_bit,
                            ..c.cand
                        },
                        bits: c.bits + 1,
                        entered: c.entered,
                    })
                };
                // O[j] = S[j] ^ carry into bit j; CO[j] = carry out of bit j.
                let sum = pick(step(carry), step(entry(s_in)));
                let out_carry = pick(step(carry), step(local));
                for (pin, value) in [(o[j], sum), (co[j], out_carry)] {
                    if let Some(v) = value {
                        set(
                            pin,
                            Some(v.cand),
                            0.0,
                            Step::Carry {
                                bits: v.bits,
                                entered: v.entered,
                            },
                            cell,
                            arrival,
                        );
                    }
                }
                carry = out_carry;
            }
        }
        Pins::Boundary { .. } => {}
    }
}
