//! One module per subcommand.

pub mod diff;
pub mod estimate;
pub mod hash;
pub mod rtl;
pub mod schedules;
pub mod tour;
pub mod trace;

/// The tour's RTL step: generate and simulate the schedule's Verilog when a simulator is
/// installed (filled in by the Verilog generator).
pub fn tour_rtl(
    _schedule: &skeinhw_sched::Schedule,
    _message: &[u8],
    _dir: &std::path::Path,
) -> anyhow::Result<String> {
    Ok("the Verilog generator is not available in this build".to_string())
}
