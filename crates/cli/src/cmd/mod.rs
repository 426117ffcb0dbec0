//! One module per subcommand.

pub mod diff;
pub mod estimate;
pub mod hash;
pub mod rtl;
pub mod schedules;
pub mod tour;
pub mod trace;

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
    let icarus = std::process::Command::new("iverilog")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !icarus {
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
