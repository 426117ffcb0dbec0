//! `skeinhw hash` (being written).
use crate::Status;
use anyhow::{Result, bail};
use clap::Args;
/// Arguments of `hash`.
#[derive(Args)]
pub struct HashArgs {}
/// Hashes.
pub fn run(_: HashArgs) -> Result<Status> {
    bail!("not implemented yet")
}
