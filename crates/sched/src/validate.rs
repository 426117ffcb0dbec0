//! The rules that decide which schedules exist, one small function per field, run once when a
//! [`crate::Schedule`] is built. The first broken rule is reported; rules run in field order,
//! so an error about an option never hides a more basic error about the size or the stages.
//!
//! The rules, and why:
//! - `size` is 256, 512 or 1024 (Skein 1.3 defines no other).
//! - `rounds_per_cycle` k >= 1 divides Nr (72 or 80): every pass does k whole rounds and a
//!   block takes a whole number of passes (Long 3.2.2: "k is a divisor of the number of
//!   rounds").
//! - `functional_stages` p >= 1 divides k: each stage holds k/p whole rounds (Athanasiou
//!   3.2.1: "8/p MIX-Permute pairs followed by a pipeline register"), so at most one register
//!   per round.
//! - `structural_stages` s >= 1 divides Nr/k: each of the s modules does the same whole number
//!   of passes (Athanasiou 3.2.2: three 8-round modules, three passes each).
//! - `round_pipeline` (Long Fig. 9) puts a register after every round: it needs k >= 2,
//!   p = k, and s = 1 (Long chains no modules).
//! - `first_subkey_cycle` needs s = 1 and no round pipeline: Athanasiou's structural pipelines
//!   form subkey 0 combinationally in Key Generation 0 instead (3.2.2), and a register-per-round
//!   pipeline adds it in its first stage.
//! - A `round_datapath` other than `baseline` needs the one-round iterative datapath (k = 1,
//!   hence p = 1, and s = 1): Long 3.4 defines the sharing on the round circuit of Fig. 10.
//!   `mix_key_overlap` is allowed for Skein-256 only: Long derives its circuit (Fig. 15), its
//!   54 + 18 x 2 pseudo-round count and its savings for Skein-256 alone, while the plain
//!   halvings of 3.4.2 and 3.4.3 apply to any size ("implementation for Skein-512 or Skein-1024
//!   is similar", 3.3). Widening it is a one-line change in [`datapath_allowed_sizes`].
//! - `shared_key_schedule_adder` needs k = 1: one adder does the three key-schedule additions
//!   (two tweak words, the subkey counter) of the next subkey in the 4 one-round cycles between
//!   injections (Long 3.4.1); with k >= 2 there are at most 2 cycles for them.

use crate::error::ScheduleError;
use crate::size::StateSize;
use crate::spec::{RoundDatapath, ScheduleSpec};

/// Checks every rule on `spec` and returns its size on success.
pub(crate) fn validate(spec: &ScheduleSpec) -> Result<StateSize, ScheduleError> {
    let size = StateSize::from_bits(spec.size)?;
    rounds_per_cycle(size, spec.rounds_per_cycle)?;
    functional_stages(spec.rounds_per_cycle, spec.functional_stages)?;
    structural_stages(size, spec.rounds_per_cycle, spec.structural_stages)?;
    round_pipeline(spec)?;
    first_subkey_cycle(spec)?;
    round_datapath(size, spec)?;
    shared_key_schedule_adder(spec)?;
    Ok(size)
}

/// k must be a divisor of Nr.
fn rounds_per_cycle(size: StateSize, k: u32) -> Result<(), ScheduleError> {
    let nr = size.rounds();
    if k != 0 && nr.is_multiple_of(k) {
        return Ok(());
    }
    let problem = if k == 0 {
        "is zero, but a datapath has at least one round".to_owned()
    } else {
        format!("does not divide the {nr} rounds of {size}")
    };
    Err(ScheduleError::invalid(
        "rounds_per_cycle",
        k,
        problem,
        join(divisors(nr)),
    ))
}

/// p must be a divisor of k (at most one register per round).
fn functional_stages(k: u32, p: u32) -> Result<(), ScheduleError> {
    if p != 0 && k.is_multiple_of(p) {
        return Ok(());
    }
    let problem = if p == 0 {
        "is zero, but a datapath has at least one stage".to_owned()
    } else if p > k {
        format!(
            "is more than the {k} rounds of the datapath (rounds_per_cycle = {k}): \
             at most one register per round"
        )
    } else {
        format!(
            "does not divide rounds_per_cycle = {k}: each stage holds k/p whole rounds \
             (Athanasiou 3.2.1)"
        )
    };
    Err(ScheduleError::invalid(
        "functional_stages",
        p,
        problem,
        join(divisors(k)),
    ))
}

/// s must be a divisor of the Nr/k passes (the caller has checked k).
fn structural_stages(size: StateSize, k: u32, s: u32) -> Result<(), ScheduleError> {
    let passes = size.rounds() / k;
    if s != 0 && passes.is_multiple_of(s) {
        return Ok(());
    }
    let what = format!(
        "the {passes} passes of {k} rounds that make the {} rounds of {size}",
        size.rounds()
    );
    let problem = if s == 0 {
        "is zero, but a design has at least one module".to_owned()
    } else if s > passes {
        format!("is more than {what}")
    } else {
        format!("does not divide {what} (Athanasiou 3.2.2: every module does as many passes)")
    };
    Err(ScheduleError::invalid(
        "structural_stages",
        s,
        problem,
        join(divisors(passes)),
    ))
}

/// Long Fig. 9: a register after every round of a single chain.
fn round_pipeline(spec: &ScheduleSpec) -> Result<(), ScheduleError> {
    if !spec.round_pipeline {
        return Ok(());
    }
    let k = spec.rounds_per_cycle;
    let reject = |problem: String, allowed: String| {
        Err(ScheduleError::invalid(
            "round_pipeline",
            true,
            problem,
            allowed,
        ))
    };
    if k < 2 {
        return reject(
            "needs at least two rounds to put registers between (Long Fig. 9), \
             but rounds_per_cycle = 1"
                .to_owned(),
            "false, or rounds_per_cycle >= 2 with functional_stages = rounds_per_cycle".to_owned(),
        );
    }
    if spec.functional_stages != k {
        return reject(
            format!(
                "puts a register after each of the {k} rounds (Long Fig. 9), \
                 but functional_stages = {}",
                spec.functional_stages
            ),
            format!(
                "functional_stages = {k} with round_pipeline = true, or round_pipeline = false"
            ),
        );
    }
    if spec.structural_stages != 1 {
        return reject(
            format!(
                "is a single chain of rounds (Long Fig. 9), but structural_stages = {}",
                spec.structural_stages
            ),
            "structural_stages = 1 with round_pipeline = true, or round_pipeline = false"
                .to_owned(),
        );
    }
    Ok(())
}

/// Athanasiou's separate cycle for subkey 0 exists only in a single iterated module.
fn first_subkey_cycle(spec: &ScheduleSpec) -> Result<(), ScheduleError> {
    if !spec.first_subkey_cycle {
        return Ok(());
    }
    if spec.structural_stages != 1 {
        return Err(ScheduleError::invalid(
            "first_subkey_cycle",
            true,
            format!(
                "cannot be used with structural_stages = {}: a structural pipeline forms \
                 subkey 0 combinationally in Key Generation 0 (Athanasiou 3.2.2)",
                spec.structural_stages
            ),
            "false, or structural_stages = 1",
        ));
    }
    if spec.round_pipeline {
        return Err(ScheduleError::invalid(
            "first_subkey_cycle",
            true,
            "cannot be used with round_pipeline = true: a register-per-round pipeline adds \
             subkey 0 in its first stage (Long Fig. 9)",
            "false, or round_pipeline = false",
        ));
    }
    Ok(())
}

/// The sizes for which Long section 3.4 defines each round datapath.
pub const fn datapath_allowed_sizes(datapath: RoundDatapath) -> &'static [StateSize] {
    match datapath {
        RoundDatapath::MixKeyOverlap => &[StateSize::S256],
        _ => &StateSize::ALL,
    }
}

/// Long 3.4's shared round circuits exist for the one-round iterative datapath only.
fn round_datapath(size: StateSize, spec: &ScheduleSpec) -> Result<(), ScheduleError> {
    let datapath = spec.round_datapath;
    if datapath == RoundDatapath::Baseline {
        return Ok(());
    }
    if spec.rounds_per_cycle != 1 || spec.structural_stages != 1 {
        return Err(ScheduleError::invalid(
            "round_datapath",
            datapath,
            format!(
                "needs the one-round iterative datapath of Long section 3.4 (Fig. 10), but \
                 rounds_per_cycle = {} and structural_stages = {}",
                spec.rounds_per_cycle, spec.structural_stages
            ),
            "baseline, or rounds_per_cycle = 1 with structural_stages = 1",
        ));
    }
    let sizes = datapath_allowed_sizes(datapath);
    if !sizes.contains(&size) {
        let for_size: Vec<&str> = RoundDatapath::ALL
            .into_iter()
            .filter(|d| datapath_allowed_sizes(*d).contains(&size))
            .map(RoundDatapath::as_str)
            .collect();
        return Err(ScheduleError::invalid(
            "round_datapath",
            datapath,
            format!(
                "is defined only for {} (Long 3.4.4, Fig. 15), but size = {}",
                join(sizes.iter()),
                size.bits()
            ),
            format!("{} for size = {}", join(for_size), size.bits()),
        ));
    }
    Ok(())
}

/// Long 3.4.1: one adder needs the 4 one-round cycles between two subkeys.
fn shared_key_schedule_adder(spec: &ScheduleSpec) -> Result<(), ScheduleError> {
    if !spec.shared_key_schedule_adder || spec.rounds_per_cycle == 1 {
        return Ok(());
    }
    Err(ScheduleError::invalid(
        "shared_key_schedule_adder",
        true,
        format!(
            "needs rounds_per_cycle = 1, so that its one adder has the 4 cycles between subkeys \
             for the 3 key-schedule additions (Long 3.4.1), but rounds_per_cycle = {}",
            spec.rounds_per_cycle
        ),
        "false, or rounds_per_cycle = 1",
    ))
}

/// The divisors of `n`, ascending.
pub(crate) fn divisors(n: u32) -> Vec<u32> {
    (1..=n).filter(|d| n.is_multiple_of(*d)).collect()
}

/// Greatest common divisor (Euclid).
pub(crate) const fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a
}

/// `a, b, c` for error messages.
pub(crate) fn join<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|item| item.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_and_gcd() {
        assert_eq!(divisors(72), [1, 2, 3, 4, 6, 8, 9, 12, 18, 24, 36, 72]);
        assert_eq!(divisors(80), [1, 2, 4, 5, 8, 10, 16, 20, 40, 80]);
        assert_eq!(gcd(8, 4), 4);
        assert_eq!(gcd(6, 4), 2);
        assert_eq!(gcd(9, 4), 1);
    }
}
