//! One block in the datapath and what one clock cycle does to it, for every round circuit of
//! the schedules: k/p rounds per cycle of the (unrolled, pipelined) baseline datapath, and the
//! two-cycle rounds of Long section 3.4.
//!
//! What a cycle does depends only on how many cycles the block has spent in the datapath (every
//! block starts at round 0 with subkey 0), so it is described once, as data: [`CycleOp`], a
//! short list of [`MicroOp`]s per elapsed cycle. The simulator executes that list with the
//! library's arithmetic ([`mix`], [`permute`], [`KeySchedule::subkey_word`]); the Verilog
//! generator (`skeinhw-rtl`) turns the same list into the control ROM of each pipeline
//! register. One description, two consumers: they cannot disagree on which rounds, which
//! subkey words, which half of a two-cycle round or the first-subkey pass happen when.

use std::collections::BTreeSet;

use skeinhw_skein::constants::rotation;
use skeinhw_skein::threefish::{KeySchedule, mix, permute};

use crate::schedule::Schedule;
use crate::sim::program::BlockJob;
use crate::sim::record::{AdderBusy, Phase};
use crate::size::{ROUNDS_PER_SUBKEY, subkey_after_round};
use crate::spec::RoundDatapath;

/// One step of a cycle's combinational work on a block, in the order the hardware does them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MicroOp {
    /// Adds state words `first..end` of subkey `subkey` (all Nw words, or one half when the
    /// subkey adders are shared, Long 3.4.2). Subkey 0 on the load path is one of these too.
    AddSubkey {
        /// Subkey index s (0..=Nr/4).
        subkey: u32,
        /// First state word added.
        first: u32,
        /// One past the last state word added.
        end: u32,
    },
    /// MIX functions `first..end` (pairs of words 2j, 2j+1) of round `round`, with the
    /// rotation constants R_{round mod 8, j}.
    Mix {
        /// The round d.
        round: u32,
        /// First MIX (pair) index j.
        first: u32,
        /// One past the last pair.
        end: u32,
    },
    /// The word permutation pi.
    Permute,
}

/// What one cycle does to a block that has spent `elapsed` cycles in the datapath before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleOp {
    /// Cycles the block spent in the datapath before this one (0: the cycle it is issued).
    pub elapsed: u32,
    /// The pipeline register (slot) the block is written into at the end of this cycle.
    pub slot: usize,
    /// The work, in order (empty in the idle cycles of a first-subkey pass with p > 1).
    pub ops: Vec<MicroOp>,
    /// Rounds done after this cycle.
    pub round: u32,
    /// The next subkey to inject after this cycle.
    pub subkey: u32,
    /// Adders kept busy by this block in this cycle.
    pub busy: AdderBusy,
    /// All rounds and subkeys are done: the block leaves with its feed-forward after this
    /// cycle.
    pub done: bool,
}

/// The per-cycle behaviour of a schedule's datapath, precomputed from the schedule once.
#[derive(Clone, Debug)]
pub struct Datapath {
    rounds: u32,
    subkeys: u32,
    /// Rounds one pipeline stage does in one cycle: k/p.
    rounds_per_stage: u32,
    p: u32,
    passes_per_module: u32,
    /// s: chained modules.
    modules: u32,
    first_subkey_cycle: bool,
    variant: RoundDatapath,
    /// One key-schedule adder over the 4-round budget (Long 3.4.1).
    shared_key_schedule_adder: bool,
    /// Athanasiou's Key Generation 0 forms subkey 0 in front of the modules.
    key_generation_0: bool,
    /// `ops[e]`: what the block's cycle `e` does, for e in 0..latency.
    ops: Vec<CycleOp>,
}

/// The counters of a block while its cycle ops are derived.
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    round: u32,
    subkey: u32,
    /// The first half of a two-cycle round is done.
    half_done: bool,
}

impl Datapath {
    /// The datapath of `schedule`, with its per-cycle ops derived.
    pub fn new(schedule: &Schedule) -> Self {
        let mut dp = Datapath {
            rounds: schedule.rounds(),
            subkeys: schedule.subkeys(),
            rounds_per_stage: schedule.rounds_per_cycle() / schedule.functional_stages(),
            p: schedule.functional_stages(),
            passes_per_module: schedule.passes_per_module(),
            modules: schedule.structural_stages(),
            first_subkey_cycle: schedule.first_subkey_cycle(),
            variant: schedule.round_datapath(),
            shared_key_schedule_adder: schedule.shared_key_schedule_adder(),
            key_generation_0: schedule.adders().first_subkey > 0,
            ops: Vec::new(),
        };
        let words = schedule.words();
        let mut c = Counters::default();
        let mut elapsed = 0;
        loop {
            let op = dp.derive(words, elapsed, &mut c);
            let done = op.done;
            dp.ops.push(op);
            if done {
                break;
            }
            elapsed += 1;
        }
        dp
    }

    /// What cycle `elapsed` (0-based) of every block does; `None` past the block's last cycle.
    pub fn cycle_op(&self, elapsed: u32) -> Option<&CycleOp> {
        self.ops.get(elapsed as usize)
    }

    /// The ops of every cycle of a block, `latency()` of them.
    pub fn cycle_ops(&self) -> &[CycleOp] {
        &self.ops
    }

    /// Cycles a block spends in the datapath (the schedule's block latency).
    pub fn latency(&self) -> u32 {
        self.ops.len() as u32
    }

    /// Pipeline registers (slots): p x s.
    pub fn slots(&self) -> usize {
        (self.p * self.modules) as usize
    }

    /// The pipeline register (slot) a block is in during its `elapsed`-th cycle (from 0):
    /// stage `elapsed mod p` of the module its pass belongs to. The first-subkey pass is
    /// spent in module 0 (only single-module designs have one).
    pub fn slot(&self, elapsed: u32) -> usize {
        let pass = elapsed / self.p;
        let stage = elapsed % self.p;
        let round_pass = pass.saturating_sub(u32::from(self.first_subkey_cycle));
        let module = (round_pass / self.passes_per_module).min(self.modules - 1);
        (module * self.p + stage) as usize
    }

    /// The slots a block in `slot` moves to at its next cycle. One slot (a chain or a ring of
    /// stages) means a block there with cycles left always moves on to it: the generated RTL
    /// then needs no decode of the block's cycle count to move it.
    pub fn successors(&self, slot: usize) -> BTreeSet<usize> {
        self.ops
            .windows(2)
            .filter(|w| w[0].slot == slot)
            .map(|w| w[1].slot)
            .collect()
    }

    /// The issue rule's test: whether a block whose next cycle is its `elapsed`-th is in module
    /// 0 stage 0 then, i.e. holds the input multiplexer that a new block needs.
    pub fn holds_input(&self, elapsed: u32) -> bool {
        self.slot(elapsed) == 0
    }

    /// Key-schedule adders busy in forming one subkey.
    fn key_schedule_busy(&self) -> u32 {
        if self.shared_key_schedule_adder {
            0 // counted per round cycle instead, see `derive`
        } else {
            crate::schedule::KEY_SCHEDULE_ADDERS
        }
    }

    /// The op of cycle `elapsed`, advancing the counters `c` as the block's registers would.
    fn derive(&self, words: u32, elapsed: u32, c: &mut Counters) -> CycleOp {
        let mut ops = Vec::new();
        let mut busy = AdderBusy::default();
        let n = words;
        let mut cx = Cx {
            dp: self,
            n,
            c,
            ops: &mut ops,
            busy: &mut busy,
        };
        if self.first_subkey_cycle && elapsed < self.p {
            // Athanasiou 3.1.1: a pass slot that forms and adds subkey 0; with p interleaved
            // messages the block goes once round the ring (p cycles), working in the first.
            if elapsed == 0 {
                cx.load();
            }
        } else {
            if cx.c.subkey == 0 {
                cx.load();
            }
            match self.variant {
                RoundDatapath::Baseline => {
                    for _ in 0..self.rounds_per_stage {
                        cx.full_round();
                    }
                }
                RoundDatapath::HalfSubkeyAdders => cx.half_subkey_step(),
                RoundDatapath::HalfMixAdders => cx.half_mix_step(),
                RoundDatapath::SplitRound => cx.split_step(),
                RoundDatapath::MixKeyOverlap => cx.overlap_step(),
            }
            if self.shared_key_schedule_adder && !cx.c.round.is_multiple_of(ROUNDS_PER_SUBKEY) {
                // Long 3.4.1: the one adder forms the three tweak/counter words of the next
                // subkey in three of the four round cycles between injections.
                cx.busy.key_schedule += crate::schedule::SHARED_KEY_SCHEDULE_ADDERS;
            }
        }
        CycleOp {
            elapsed,
            slot: self.slot(elapsed),
            ops,
            round: c.round,
            subkey: c.subkey,
            busy,
            done: c.round == self.rounds && c.subkey == self.subkeys,
        }
    }
}

/// The derivation context of one cycle: the rules of each round circuit, emitting ops.
struct Cx<'a> {
    dp: &'a Datapath,
    n: u32,
    c: &'a mut Counters,
    ops: &'a mut Vec<MicroOp>,
    busy: &'a mut AdderBusy,
}

impl Cx<'_> {
    fn add(&mut self, first: u32, end: u32) {
        self.ops.push(MicroOp::AddSubkey {
            subkey: self.c.subkey,
            first,
            end,
        });
        self.busy.subkey += end - first;
    }

    fn mix(&mut self, first: u32, end: u32) {
        self.ops.push(MicroOp::Mix {
            round: self.c.round,
            first,
            end,
        });
        self.busy.mix += end - first;
    }

    /// Adds the whole subkey `subkey` and counts its adders.
    fn inject(&mut self) {
        self.add(0, self.n);
        self.c.subkey += 1;
        self.busy.key_schedule += self.dp.key_schedule_busy();
    }

    /// The first cycle's subkey 0, on the load path (or in Key Generation 0).
    fn load(&mut self) {
        if self.dp.key_generation_0 {
            self.busy.first_subkey += crate::schedule::FIRST_SUBKEY_GENERATOR_ADDERS;
            self.add(0, self.n);
            self.c.subkey = 1;
        } else {
            self.inject();
        }
    }

    /// Round `round` (MIX, permutation) and the subkey that follows it, if any.
    fn full_round(&mut self) {
        self.mix(0, self.n / 2);
        self.ops.push(MicroOp::Permute);
        let after = self.c.round;
        self.c.round += 1;
        if subkey_after_round(after).is_some() {
            self.inject();
        }
    }

    /// Long 3.4.2: a key round takes two cycles, adding half the subkey words in each.
    fn half_subkey_step(&mut self) {
        let n = self.n;
        if self.c.half_done {
            self.add(n / 2, n);
            self.c.subkey += 1;
            self.busy.key_schedule += self.dp.key_schedule_busy();
            self.c.half_done = false;
            return;
        }
        self.mix(0, n / 2);
        self.ops.push(MicroOp::Permute);
        let after = self.c.round;
        self.c.round += 1;
        if subkey_after_round(after).is_some() {
            self.add(0, n / 2);
            self.c.half_done = true;
        }
    }

    /// Long 3.4.3, Fig. 14(a): half the MIX adders; the first cycle mixes the first half of
    /// the word pairs, the second the rest, then permutes and adds the subkey if one is due.
    fn half_mix_step(&mut self) {
        let n = self.n;
        if !self.c.half_done {
            self.mix(0, n / 4);
            self.c.half_done = true;
            return;
        }
        self.mix(n / 4, n / 2);
        self.c.half_done = false;
        self.ops.push(MicroOp::Permute);
        self.c.round += 1;
        if subkey_after_round(self.c.round - 1).is_some() {
            self.inject();
        }
    }

    /// Long 3.4.3, Fig. 14(b): a register in the middle of the round; the MIX layer in the
    /// first cycle, the permutation and the key addition in the second.
    fn split_step(&mut self) {
        if !self.c.half_done {
            self.mix(0, self.n / 2);
            self.c.half_done = true;
            return;
        }
        self.c.half_done = false;
        self.ops.push(MicroOp::Permute);
        self.c.round += 1;
        if subkey_after_round(self.c.round - 1).is_some() {
            self.inject();
        }
    }

    /// Long 3.4.4, Fig. 15: a round without a key is one cycle; a round with one is two, the
    /// second adding the subkey on the Nw shared adders (counted Nw/2 as MIX, Nw/2 as subkey
    /// adders, as in [`crate::AdderCounts`]).
    fn overlap_step(&mut self) {
        let n = self.n;
        if self.c.half_done {
            self.ops.push(MicroOp::AddSubkey {
                subkey: self.c.subkey,
                first: 0,
                end: n,
            });
            self.c.subkey += 1;
            self.busy.mix += n / 2;
            self.busy.subkey += n / 2;
            self.busy.key_schedule += self.dp.key_schedule_busy();
            self.c.half_done = false;
            return;
        }
        self.mix(0, n / 2);
        self.ops.push(MicroOp::Permute);
        self.c.round += 1;
        if subkey_after_round(self.c.round - 1).is_some() {
            self.c.half_done = true;
        }
    }
}

/// A block in the datapath: its registers and where it is in its rounds.
#[derive(Clone, Debug)]
pub(crate) struct Block<const N: usize> {
    pub(crate) stream: u32,
    pub(crate) phase: Phase,
    /// Index among the stream's blocks.
    pub(crate) index: u64,
    /// The cycle it was issued in.
    pub(crate) issued: u64,
    /// Cycles done so far.
    pub(crate) elapsed: u32,
    pub(crate) keys: KeySchedule<N>,
    /// The plaintext, kept for the feed-forward.
    pub(crate) input: [u64; N],
    pub(crate) state: [u64; N],
    /// Rounds done.
    pub(crate) round: u32,
    /// The next subkey to inject.
    pub(crate) subkey: u32,
    done: bool,
}

impl<const N: usize> Block<N> {
    pub(crate) fn new(stream: u32, index: u64, issued: u64, job: &BlockJob<N>) -> Self {
        Block {
            stream,
            phase: job.phase,
            index,
            issued,
            elapsed: 0,
            keys: KeySchedule::new(&job.chain, job.tweak),
            input: job.block,
            state: job.block,
            round: 0,
            subkey: 0,
            done: false,
        }
    }

    /// All rounds and subkeys are done: the output is ready after this cycle.
    pub(crate) fn is_done(&self, _dp: &Datapath) -> bool {
        self.done
    }

    /// The chaining value out of the block: Threefish output XOR plaintext (Matyas-Meyer-Oseas
    /// feed-forward; XORs, no adders).
    pub(crate) fn output(&self) -> [u64; N] {
        core::array::from_fn(|i| self.state[i] ^ self.input[i])
    }

    /// One clock cycle of work: executes the cycle's ops with the library's arithmetic;
    /// returns the adders it kept busy.
    pub(crate) fn step(&mut self, dp: &Datapath) -> AdderBusy {
        let op = &dp.ops[self.elapsed as usize];
        self.elapsed += 1;
        for micro in &op.ops {
            match *micro {
                MicroOp::AddSubkey { subkey, first, end } => {
                    for i in first as usize..end as usize {
                        let k = self.keys.subkey_word(subkey as usize, i);
                        self.state[i] = self.state[i].wrapping_add(k);
                    }
                }
                MicroOp::Mix { round, first, end } => {
                    for j in first as usize..end as usize {
                        let (y0, y1) = mix(
                            self.state[2 * j],
                            self.state[2 * j + 1],
                            rotation(N, round as usize, j),
                        );
                        self.state[2 * j] = y0;
                        self.state[2 * j + 1] = y1;
                    }
                }
                MicroOp::Permute => self.state = permute(&self.state),
            }
        }
        self.round = op.round;
        self.subkey = op.subkey;
        self.done = op.done;
        op.busy
    }
}
