//! `skeinhw trace` (stub: being written).
use crate::Status;
use anyhow::{Result, bail};
use clap::Args;
/// Arguments of `trace`.
#[derive(Args)]
pub struct TraceArgs {}
/// Writes a trace.
pub fn run(_: TraceArgs) -> Result<Status> {
    bail!("not implemented yet")
}
