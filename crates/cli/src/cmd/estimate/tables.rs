//! The text tables `estimate` prints.

use super::*;

pub(super) fn shabal_table(e: &ShabalEstimate, given_clock: bool) -> String {
    use std::fmt::Write as _;
    let cp = &e.critical_path;
    let mut rows: Vec<(&str, String)> = vec![
        ("schedule", e.schedule.clone()),
        (
            "shape",
            format!(
                "Shabal-{}, f={} iterations of P per cycle",
                e.output_bits, e.unfolding
            ),
        ),
        ("flow", e.flow.to_string()),
        ("adders (32-bit)", e.adders.to_string()),
        ("LUTs", e.luts.to_string()),
        ("CARRY4s", e.carry4.to_string()),
        ("flip-flops", e.ffs.to_string()),
        ("LUT-FF pairs", e.lut_ff_pairs.to_string()),
        ("slices", e.slices.to_string()),
        ("clock period", format!("{:.2} ns", e.period_ns)),
        ("frequency", format!("{:.1} MHz", e.freq_mhz)),
        (
            "critical path",
            format!(
                "A chain through {} iterations: {} full + {} chained adders, {} LUT levels, {} nets = {:.2} logic + {:.2} route ns",
                cp.iterations,
                cp.full_adders,
                cp.chained_adders,
                cp.lut_levels,
                cp.nets,
                cp.logic_ns,
                cp.route_ns
            ),
        ),
    ];
    rows.extend(performance_rows(
        clock_text(e.clock_mhz, given_clock),
        e.cycles_per_block,
        e.blocks_in_flight,
        e.latency_ns,
        e.throughput_mbps,
        (e.mbps_per_pair, e.mbps_per_slice),
    ));
    let mut s = String::new();
    for (k, v) in rows {
        let _ = writeln!(s, "{k:<18} {v}");
    }
    s
}

/// The clock the throughput is computed at, and where it comes from.
fn clock_text(mhz: f64, given: bool) -> String {
    let how = if given { "given" } else { "estimated" };
    format!("{mhz:.1} MHz ({how})")
}

/// The rows both algorithms' tables end with: what the design does at the clock used;
/// `per_area` is Mbit/s per LUT-FF pair and per slice.
fn performance_rows(
    clock: String,
    cycles_per_block: u32,
    blocks_in_flight: u32,
    latency_ns: f64,
    throughput_mbps: f64,
    per_area: (f64, f64),
) -> [(&'static str, String); 6] {
    [
        ("cycles per block", cycles_per_block.to_string()),
        ("blocks in flight", blocks_in_flight.to_string()),
        ("clock used", clock),
        ("latency per block", format!("{latency_ns:.1} ns")),
        ("throughput", format!("{throughput_mbps:.1} Mbit/s")),
        (
            "throughput / area",
            format!(
                "{:.4} Mbit/s per LUT-FF pair, {:.3} Mbit/s per slice",
                per_area.0, per_area.1
            ),
        ),
    ]
}

/// The device, one message alone, the interval the device's calibration gives, and the size
/// check.
fn device_rows(e: &Estimate) -> Vec<(&'static str, String)> {
    let iv = &e.interval;
    let info = e.device.info();
    let other = match &e.interval_other_implementations {
        Some(o) => interval_text(o),
        None => "none: no other team's row on this device (the interval covers this flow)".into(),
    };
    vec![
        (
            "one message",
            format!(
                "{:.1} ns latency, {:.1} Mbit/s",
                e.latency_one_message_ns, e.throughput_one_message_mbps
            ),
        ),
        ("device", format!("{} ({})", info.family, info.part)),
        ("interval", interval_text(iv)),
        ("interval (others)", other),
        (
            "fits the device",
            if e.fits_device {
                "yes".to_owned()
            } else {
                format!("NO: {}", e.exceeds.join("; "))
            },
        ),
    ]
}

/// An interval in words: area, period, throughput and stated coverage.
fn interval_text(iv: &skeinhw_estimator::Interval) -> String {
    format!(
        "{} {:.0}..{:.0}, period {:.2}..{:.2} ns, throughput {:.1}..{:.1} Mbit/s \
         ({:.0}% stated coverage)",
        iv.area_metric,
        iv.area.0,
        iv.area.1,
        iv.period_ns.0,
        iv.period_ns.1,
        iv.throughput_mbps.0,
        iv.throughput_mbps.1,
        iv.coverage * 100.0
    )
}

/// The netlist's numbers beside the model's.
pub(super) fn netlist_table(e: &Estimate, n: &NetlistReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let nl = &n.netlist;
    let p = &nl.critical_path;
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "netlist {} (top {}){}",
        nl.origin,
        nl.top,
        match n.yosys_seconds {
            Some(t) if t > 0.0 => format!(", Yosys ran {t:.1} s"),
            Some(_) => ", the kept netlist of the same Verilog".to_owned(),
            None => String::new(),
        }
    );
    let _ = writeln!(
        s,
        "{:<18} {:>10} {:>10} {:>8}",
        "", "model", "netlist", "model/nl"
    );
    let ratio = |m: f64, x: f64| {
        if x > 0.0 {
            format!("{:+.1}%", (m / x - 1.0) * 100.0)
        } else {
            "-".to_owned()
        }
    };
    let rows: [(&str, f64, f64, usize); 7] = [
        ("LUTs", f64::from(e.luts), f64::from(nl.luts), 0),
        (
            "CARRY4s",
            f64::from(e.carry4),
            f64::from(nl.cells.carry4),
            0,
        ),
        ("flip-flops", f64::from(e.ffs), f64::from(nl.ffs), 0),
        (
            "LUT-FF pairs",
            f64::from(e.lut_ff_pairs),
            f64::from(nl.lut_ff_pairs),
            0,
        ),
        ("slices", f64::from(e.slices), f64::from(nl.slices), 0),
        ("clock period ns", e.period_ns, nl.period_ns, 2),
        ("throughput Mbit/s", e.throughput_mbps, n.throughput_mbps, 1),
    ];
    for (name, m, x, prec) in rows {
        let _ = writeln!(
            s,
            "{name:<18} {m:>10.prec$} {x:>10.prec$} {:>8}",
            ratio(m, x)
        );
    }
    let c = &nl.cells;
    let luts: Vec<String> = c
        .lut_by_inputs
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| format!("LUT{} {n}", i + 1))
        .collect();
    let _ = writeln!(
        s,
        "{:<18} {}; MUXF7 {}, MUXF8 {}, SRL {}, I/O {}, other {}",
        "netlist cells",
        luts.join(", "),
        c.muxf7,
        c.muxf8,
        c.srls,
        c.io,
        c.other
    );
    let _ = writeln!(
        s,
        "{:<18} {} -> {}: LUT depth {}, {} carry chain(s) ({} CARRY4, {} carry bits), {} MUXF, {} nets = {:.2} logic + {:.2} route ns",
        "netlist path",
        p.from,
        p.to,
        p.lut_depth,
        p.carry_chains,
        p.carry4,
        p.carry_bits,
        p.muxf,
        p.nets,
        p.logic_ns,
        p.route_ns
    );
    if !p.through.is_empty() {
        let _ = writeln!(s, "{:<18} {}", "path through", p.through.join(", "));
    }
    if let Some(r) = &n.round_path {
        let _ = writeln!(
            s,
            "{:<18} {:.2} ns: {} -> {}: LUT depth {}, {} carry chain(s) (from the datapath's \
             registers into the state; paths from the issue logic left out)",
            "round path", r.period_ns, r.from, r.to, r.lut_depth, r.carry_chains
        );
        if !r.through.is_empty() {
            let _ = writeln!(s, "{:<18} {}", "round through", r.through.join(", "));
        }
    }
    let _ = writeln!(
        s,
        "{:<18} Yosys's alumacc merges a subkey add chained into a MIX add (one carry chain \
         for two adds): compare adders and CARRY4s knowingly",
        "note"
    );
    s
}

pub(super) fn table(schedule: &Schedule, e: &Estimate, given_clock: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let a = &e.adders;
    let cp = &e.critical_path;
    let mut rows: Vec<(&str, String)> = vec![
        ("schedule", e.schedule.clone()),
        (
            "shape",
            format!(
                "Skein-{}, k={} p={} s={}, {}",
                e.size,
                schedule.rounds_per_cycle(),
                schedule.functional_stages(),
                schedule.structural_stages(),
                schedule.round_datapath()
            ),
        ),
        ("style / flow", format!("{} / {}", e.style, e.flow)),
        (
            "adders (64-bit)",
            format!(
                "{} = mix {} + subkey {} + key schedule {} + first subkey {}",
                a.total, a.mix, a.subkey, a.key_schedule, a.first_subkey
            ),
        ),
        ("rotation sets", e.rotation_sets.to_string()),
        ("LUTs", e.luts.to_string()),
        ("CARRY4s", e.carry4.to_string()),
        ("flip-flops", e.ffs.to_string()),
        ("LUT-FF pairs", e.lut_ff_pairs.to_string()),
        ("slices", e.slices.to_string()),
        ("clock period", format!("{:.2} ns", e.period_ns)),
        ("frequency", format!("{:.1} MHz", e.freq_mhz)),
        (
            "critical path",
            format!(
                "{:?} stage {}: {} adders, {} LUT levels, {} MUXF, {} nets = {:.2} logic + {:.2} route ns",
                cp.path,
                cp.stage,
                cp.chain.adders,
                cp.chain.lut_levels,
                cp.chain.muxf,
                cp.chain.nets(),
                cp.logic_ns,
                cp.route_ns
            ),
        ),
    ];
    rows.extend(performance_rows(
        clock_text(e.clock_mhz, given_clock),
        e.cycles_per_block,
        e.blocks_in_flight,
        e.latency_ns,
        e.throughput_mbps,
        (e.mbps_per_pair, e.mbps_per_slice),
    ));
    rows.extend(device_rows(e));
    for (k, v) in rows {
        let _ = writeln!(s, "{k:<18} {v}");
    }
    let top: Vec<String> = e
        .lut_breakdown
        .iter()
        .take(6)
        .map(|r| format!("{:?} {}", r.role, r.luts))
        .collect();
    let _ = writeln!(s, "{:<18} {}", "largest LUT roles", top.join(", "));
    s
}
