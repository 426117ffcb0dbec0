//! One module per subcommand.

pub mod completions;
pub mod diff;
pub mod estimate;
pub mod explore;
pub mod hash;
pub mod man;
pub mod map;
pub mod rtl;
pub mod schedules;
pub mod tour;
pub mod trace;

/// Icarus Verilog answers `iverilog -V`.
pub fn icarus_installed() -> bool {
    std::process::Command::new("iverilog")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The tour's Shabal step: the message through `schedule` cycle by cycle (digest checked
/// against the library), and its generated Verilog in Icarus when installed, diffed against the
/// golden trace. Returns the lines to print and whether everything agreed.
pub fn tour_shabal(
    schedule: &skeinhw_sched::shabal::ShabalSchedule,
    message: &[u8],
    dir: &std::path::Path,
) -> anyhow::Result<(Vec<String>, bool)> {
    use skeinhw_sched::shabal::sim::{ShabalJob, ShabalMemorySink, simulate};
    let bits = schedule.output_bits();
    let expected = skeinhw_shabal::hash(u64::from(bits), message, message.len() as u64 * 8)?;
    let mut sink = ShabalMemorySink::default();
    let report = simulate(schedule, &[ShabalJob::bytes(message)], &mut sink)?;
    let traced = report.digests[0] == expected;
    let mut lines = vec![
        format!(
            "{}  (skeinhw hash --alg shabal-{bits})",
            hex::encode(&expected)
        ),
        format!(
            "trace: {} cycles, {} per block ({} iterations of P per cycle); digest out of the datapath {} the library's",
            report.cycles,
            schedule.cycles_per_block(),
            schedule.unfolding(),
            if traced { "equals" } else { "DIFFERS FROM" }
        ),
    ];
    let src = dir.join("shabal-rtl");
    std::fs::create_dir_all(&src)?;
    skeinhw_rtl::shabal::generate(schedule).write_into(&src)?;
    if !icarus_installed() {
        lines.push(format!("rtl: Verilog written to {}", src.display()));
        return Ok((lines, traced));
    }
    let built = skeinhw_rtl::build(
        skeinhw_rtl::Simulator::Icarus,
        &src,
        &dir.join("shabal-build"),
        None,
    )?;
    let input = dir.join("shabal-input.txt");
    std::fs::write(
        &input,
        skeinhw_rtl::shabal::stimulus(&[skeinhw_rtl::Message::bytes(message)])?,
    )?;
    let vcd = dir.join("shabal-rtl.vcd");
    let out = skeinhw_rtl::run(&built, &input, &vcd)?;
    let header = sink.header.as_ref().expect("the simulator writes a header");
    let diff =
        skeinhw_rtl::shabal::compare_vcd(header, &sink.records, &vcd, skeinhw_rtl::SCOPE, None)?;
    let rtl_digest = skeinhw_rtl::shabal::digest_bytes(&out, 0).unwrap_or_default();
    let agreed = diff.is_none() && rtl_digest == expected;
    lines.push(match diff {
        None => format!(
            "rtl: generated Verilog simulated in Icarus: digest {}..., {} cycles identical to the golden trace",
            &hex::encode(&rtl_digest)[..16.min(2 * rtl_digest.len())],
            sink.records.len()
        ),
        Some(r) => format!("rtl: generated Verilog simulated in Icarus: {}", r.summary),
    });
    Ok((lines, traced && agreed))
}

/// The tour's RTL step: generate the schedule's Verilog, and when Icarus Verilog is installed,
/// simulate it on the message and diff its VCD against the golden trace.
pub fn tour_rtl(
    schedule: &skeinhw_sched::Schedule,
    message: &[u8],
    dir: &std::path::Path,
) -> anyhow::Result<String> {
    use skeinhw_sched::sim::{Job, MemorySink, simulate};
    let src = dir.join("rtl");
    std::fs::create_dir_all(&src)?;
    skeinhw_rtl::generate(schedule)?.write_into(&src)?;
    if !icarus_installed() {
        return Ok(format!(
            "Verilog written to {} (install iverilog to simulate it: ./scripts/install-deps.sh)",
            src.display()
        ));
    }
    let simulator = skeinhw_rtl::Simulator::Icarus;
    let built = skeinhw_rtl::build(simulator, &src, &dir.join("build"), None)?;
    let input = dir.join("input.txt");
    std::fs::write(
        &input,
        skeinhw_rtl::stimulus(schedule, &[skeinhw_rtl::Message::bytes(message)])?,
    )?;
    let vcd = dir.join("rtl.vcd");
    let out = skeinhw_rtl::run(&built, &input, &vcd)?;
    let mut sink = MemorySink::new();
    let bits = u64::from(schedule.block_bits());
    simulate(
        schedule,
        &[Job::bytes(message, bits, Default::default())],
        &mut sink,
    )?;
    let header = sink.header.as_ref().expect("the simulator writes a header");
    let report = skeinhw_rtl::compare_vcd(header, &sink.records, &vcd, skeinhw_rtl::SCOPE, None)?;
    let digest = out.digest_bytes(0).map(hex::encode).unwrap_or_default();
    Ok(match report {
        None => format!(
            "generated Verilog simulated in Icarus: digest {}..., {} cycles identical to the golden trace",
            &digest[..digest.len().min(16)],
            sink.records.len()
        ),
        Some(r) => format!("generated Verilog simulated in Icarus: {}", r.summary),
    })
}
