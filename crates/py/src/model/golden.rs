//! The golden runs behind the live diff and the events: the Skein and Shabal simulators in
//! their threads, with the run's arguments.

use pyo3::prelude::*;
use skeinhw_diff::{Golden, GoldenFrames, OwnedJob, OwnedShabalJob, ShabalGolden};
use skeinhw_sched::AnySchedule;

use super::args::RunArgs;
use super::queue::simulate_queued;
use crate::hash::value_error;

/// The Skein jobs of `messages` with the run's parameters.
pub(crate) fn skein_jobs(
    s: &skeinhw_sched::Schedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> Vec<OwnedJob> {
    let out_bits = args.digest_bits.unwrap_or(u64::from(s.size().bits()));
    messages
        .into_iter()
        .zip(bits)
        .map(|(message, msg_bits)| OwnedJob {
            message,
            msg_bits,
            out_bits,
            key: args.key.clone(),
            personalization: args.pers.clone(),
            public_key: args.public_key.clone(),
            key_id: args.key_id.clone(),
            nonce: args.nonce.clone(),
            tree: args.tree,
        })
        .collect()
}

/// The Skein golden run of `messages` as the hardware takes them: message i on stream i mod S,
/// a stream's messages back to back ([`simulate_queued`]; with at most S messages, one stream
/// each), simulated in its thread. `skeinhw.events`, `skeinhw.simulate` and the live diff all
/// number messages so.
pub(crate) fn skein_golden(
    s: &skeinhw_sched::Schedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> PyResult<Golden> {
    simulate_queued(s.clone(), skein_jobs(s, messages, bits, args)).map_err(value_error)
}

/// Shabal takes none of Skein's parameters, and only its own digest length; the refusal names
/// the options given.
pub(crate) fn shabal_args(
    s: &skeinhw_sched::shabal::ShabalSchedule,
    args: &RunArgs,
) -> PyResult<()> {
    let given: Vec<&str> = [
        ("key", !args.key.is_empty()),
        ("pers", args.pers.is_some()),
        ("public_key", args.public_key.is_some()),
        ("key_id", args.key_id.is_some()),
        ("nonce", args.nonce.is_some()),
        ("tree", args.tree.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect();
    if !given.is_empty() {
        return Err(value_error(format!(
            "schedule {} is a Shabal schedule: Shabal has no {}",
            s.name(),
            given.join(", ")
        )));
    }
    if args
        .digest_bits
        .is_some_and(|b| b != u64::from(s.output_bits()))
    {
        return Err(value_error(format!(
            "schedule {} computes Shabal-{}: digest_bits must be {} or None",
            s.name(),
            s.output_bits(),
            s.output_bits()
        )));
    }
    Ok(())
}

/// The Shabal golden run of `messages` (one stream each), simulated in its thread, after
/// refusing Skein's parameters.
pub(crate) fn shabal_golden(
    s: &skeinhw_sched::shabal::ShabalSchedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> PyResult<ShabalGolden> {
    shabal_args(s, args)?;
    let jobs = messages
        .into_iter()
        .zip(bits)
        .map(|(message, msg_bits)| OwnedShabalJob { message, msg_bits })
        .collect();
    ShabalGolden::simulate(s.clone(), jobs).map_err(value_error)
}

/// Runs the golden simulator in its thread, messages queued as the hardware takes them; frames
/// arrive as they are asked for.
pub(crate) fn golden_frames(
    schedule: &AnySchedule,
    messages: Vec<Vec<u8>>,
    bits: Vec<u64>,
    args: &RunArgs,
) -> PyResult<GoldenFrames> {
    match schedule {
        AnySchedule::Skein(s) => skein_golden(s, messages, bits, args).map(Golden::into_frames),
        AnySchedule::Shabal(s) => {
            shabal_golden(s, messages, bits, args).map(ShabalGolden::into_frames)
        }
    }
}
