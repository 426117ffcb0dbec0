//! Why cycle alignment does not fit (issue 33): where the RTL's state leaves the golden
//! schedule's cycles, said in blocks and cycles ("the core takes 74 edges from config block 0
//! to message block 0, the schedule 73 cycles"), so that a user knows whether another schedule
//! could match or only event alignment can.

use std::collections::{BTreeMap, HashMap};

/// The golden run's blocks in order: the first record (cycle index from 0) of each and its
/// name ("config block 0", "stream 1, message block 2").
#[derive(Default)]
pub(crate) struct Blocks {
    starts: Vec<(u32, String)>,
    /// Per (stream, phase): blocks of it seen so far.
    counts: HashMap<(u32, &'static str), u32>,
    current: Option<(u32, &'static str, u64)>,
}

impl Blocks {
    /// Notes that record `record` computes block `block` of `stream` in `phase` (the golden
    /// slot 0's), if it is another block than the record before.
    pub(crate) fn see(&mut self, record: u32, stream: u32, phase: &'static str, block: u64) {
        if self.current == Some((stream, phase, block)) {
            return;
        }
        self.current = Some((stream, phase, block));
        let n = self.counts.entry((stream, phase)).or_default();
        let name = if stream == 0 {
            format!("{phase} block {n}")
        } else {
            format!("stream {stream}, {phase} block {n}")
        };
        *n += 1;
        self.starts.push((record, name));
    }

    /// The block of record `record` (an index into `starts`).
    fn of(&self, record: u32) -> Option<usize> {
        self.starts
            .partition_point(|(r, _)| *r <= record)
            .checked_sub(1)
    }
}

/// Why the state's `hits` ((golden record, RTL edge) of each golden state value a state field
/// took) do not line up with the golden cycles; `before`: the state register found holds the
/// state before subkey injection (its name), which cycle alignment does not compare.
pub(crate) fn misfit(
    blocks: &Blocks,
    hits: impl Iterator<Item = (u32, u64)>,
    before: Option<&str>,
) -> String {
    // Per block: how often each shift (edge - record) was seen.
    let mut shifts: BTreeMap<usize, HashMap<i64, u32>> = BTreeMap::new();
    for (record, edge) in hits {
        if let Some(b) = blocks.of(record) {
            *shifts
                .entry(b)
                .or_default()
                .entry(edge as i64 - i64::from(record))
                .or_default() += 1;
        }
    }
    let mode = |counts: &HashMap<i64, u32>| {
        counts
            .iter()
            .max_by_key(|(s, n)| (**n, std::cmp::Reverse(**s)))
            .map(|(s, n)| (*s, *n, counts.values().sum::<u32>()))
    };
    let mut reasons = Vec::new();
    let modes: Vec<(usize, (i64, u32, u32))> = shifts
        .iter()
        .filter_map(|(b, c)| Some((*b, mode(c)?)))
        .collect();
    if let Some((b, _)) = modes.iter().find(|(_, (_, n, all))| n * 10 < all * 9) {
        reasons.push(format!(
            "within {} the state's edges do not follow the golden cycles (another number of \
             rounds per cycle or a pipeline)",
            blocks.starts[*b].1
        ));
    } else if let Some(w) = modes.windows(2).find(|w| w[0].1.0 != w[1].1.0) {
        let ((a, (sa, _, _)), (b, (sb, _, _))) = (w[0], w[1]);
        let golden = i64::from(blocks.starts[b].0) - i64::from(blocks.starts[a].0);
        reasons.push(format!(
            "the state appears at golden cycle {sa:+} in {} and {sb:+} in {}: the core takes {} \
             edges from the start of the one to the start of the other, the schedule {golden} \
             cycles (no schedule field adds cycles between blocks)",
            blocks.starts[a].1,
            blocks.starts[b].1,
            golden + sb - sa
        ));
    }
    if let Some(register) = before {
        reasons.push(format!(
            "{register} holds the state before subkey injection, which cycle alignment does not \
             compare (its slot0_state_* is the state after)"
        ));
    }
    if reasons.is_empty() {
        reasons.push("another schedule or latency".into());
    }
    reasons.join("; ")
}

#[cfg(test)]
mod tests {
    use super::{Blocks, misfit};

    fn blocks() -> Blocks {
        let mut b = Blocks::default();
        for r in 0..219 {
            let (phase, block) = match r {
                0..73 => ("config", 0),
                73..146 => ("message", 1),
                _ => ("output", 2),
            };
            b.see(r, 0, phase, block);
        }
        b
    }

    #[test]
    fn a_load_cycle_between_blocks_is_named_with_both_lengths() {
        let b = blocks();
        // The core shows record r at edge r + 3 in the Config block, r + 4 after.
        let hits = (0..219u32).map(|r| (r, u64::from(r) + if r < 73 { 3 } else { 4 }));
        let why = misfit(&b, hits, None);
        assert!(
            why.contains(
                "cycle +3 in config block 0 and +4 in message block 0: the core takes 74 edges"
            ),
            "{why}"
        );
        assert!(why.contains("the schedule 73 cycles"), "{why}");
    }

    #[test]
    fn a_register_before_injection_is_named_even_on_time() {
        let b = blocks();
        let why = misfit(
            &b,
            (0..219u32).map(|r| (r, u64::from(r) + 2)),
            Some("tb.st"),
        );
        assert_eq!(
            why,
            "tb.st holds the state before subkey injection, which cycle alignment does not \
             compare (its slot0_state_* is the state after)"
        );
    }

    #[test]
    fn shifts_that_vary_within_a_block_are_another_datapath() {
        let b = blocks();
        let why = misfit(&b, (0..73u32).map(|r| (r, u64::from(r / 8))), None);
        assert!(
            why.starts_with("within config block 0 the state's edges do not follow"),
            "{why}"
        );
    }
}
