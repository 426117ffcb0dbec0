//! What a simulation run reports besides its trace: total cycles, the digests that left the
//! datapath, when each block entered and left, and how busy the adders were.

use serde::Serialize;

use crate::schedule::AdderCounts;
use crate::sim::record::{AdderBusy, Phase};

/// When one block entered and left the datapath.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BlockTiming {
    /// Stream (message index).
    pub stream: u32,
    /// Index among the stream's UBI blocks.
    pub index: u64,
    /// Controller phase of the block.
    pub phase: Phase,
    /// Cycle of its first clock edge in the datapath.
    pub issued: u64,
    /// Cycle after whose edge its chaining value was ready.
    pub completed: u64,
}

impl BlockTiming {
    /// Cycles the block spent in the datapath: what [`crate::Schedule::cycles_per_block`]
    /// predicts.
    pub fn latency(&self) -> u64 {
        self.completed - self.issued + 1
    }
}

/// Adder-cycles by role over a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BusyTotals {
    /// MIX adder-cycles.
    pub mix: u64,
    /// Subkey adder-cycles.
    pub subkey: u64,
    /// Key-schedule adder-cycles.
    pub key_schedule: u64,
    /// Key Generation 0 adder-cycles.
    pub first_subkey: u64,
}

impl BusyTotals {
    pub(crate) fn add(&mut self, busy: AdderBusy) {
        self.mix += u64::from(busy.mix);
        self.subkey += u64::from(busy.subkey);
        self.key_schedule += u64::from(busy.key_schedule);
        self.first_subkey += u64::from(busy.first_subkey);
    }

    /// All adder-cycles.
    pub fn total(&self) -> u64 {
        self.mix + self.subkey + self.key_schedule + self.first_subkey
    }
}

/// The result of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimReport {
    /// Clock cycles from the first block's entry to the last block's output.
    pub cycles: u64,
    /// The digest of every stream, in stream order.
    #[serde(skip)]
    pub digests: Vec<Vec<u8>>,
    /// Every block, in the order they left the datapath.
    #[serde(skip)]
    pub blocks: Vec<BlockTiming>,
    /// Adder-cycles by role.
    pub busy: BusyTotals,
    /// The schedule's adders by role.
    pub adders: AdderCounts,
}

/// Busy fraction of each adder role (0 where the role has no adders).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Utilisation {
    /// MIX adders.
    pub mix: f64,
    /// Subkey adders.
    pub subkey: f64,
    /// Key-schedule adders.
    pub key_schedule: f64,
    /// Key Generation 0.
    pub first_subkey: f64,
    /// All adders.
    pub total: f64,
}

impl SimReport {
    /// Blocks that went through the datapath.
    pub fn block_count(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// The cycles every block spent in the datapath, if all blocks took the same (they do for
    /// every schedule; a test holds the simulator to it).
    pub fn cycles_per_block(&self) -> Option<u64> {
        let first = self.blocks.first()?.latency();
        self.blocks
            .iter()
            .all(|b| b.latency() == first)
            .then_some(first)
    }

    /// Average cycles between two blocks leaving the datapath (the issue interval when it is
    /// kept full).
    pub fn cycles_per_block_overall(&self) -> f64 {
        self.cycles as f64 / self.blocks.len().max(1) as f64
    }

    /// The most blocks that were in the datapath in one cycle.
    pub fn max_blocks_in_flight(&self) -> usize {
        let mut events: Vec<(u64, i64)> = self
            .blocks
            .iter()
            .flat_map(|b| [(b.issued, 1), (b.completed + 1, -1)])
            .collect();
        events.sort_unstable();
        let (mut now, mut most) = (0i64, 0i64);
        for (_, delta) in events {
            now += delta;
            most = most.max(now);
        }
        most as usize
    }

    /// Fraction of adder-cycles that did work, by role.
    pub fn utilisation(&self) -> Utilisation {
        let cycles = self.cycles.max(1) as f64;
        let frac = |busy: u64, count: u32| {
            if count == 0 {
                0.0
            } else {
                busy as f64 / (cycles * f64::from(count))
            }
        };
        Utilisation {
            mix: frac(self.busy.mix, self.adders.mix),
            subkey: frac(self.busy.subkey, self.adders.subkey),
            key_schedule: frac(self.busy.key_schedule, self.adders.key_schedule),
            first_subkey: frac(self.busy.first_subkey, self.adders.first_subkey),
            total: frac(self.busy.total(), self.adders.total()),
        }
    }
}
