//! One block in the datapath and what one clock cycle does to it, for every round circuit of
//! the schedules: k/p rounds per cycle of the (unrolled, pipelined) baseline datapath, and the
//! two-cycle rounds of Long section 3.4.
//!
//! All arithmetic is the library's: [`round`], [`mix_round`], [`mix`], [`permute`],
//! [`inject_subkey`] and [`KeySchedule::subkey_word`]. The variants only decide which of those
//! pieces run in which cycle, which is exactly what the hardware variants differ in.

use skeinhw_skein::constants::rotation;
use skeinhw_skein::threefish::{KeySchedule, inject_subkey, mix, mix_round, permute, round};

use crate::schedule::Schedule;
use crate::sim::program::BlockJob;
use crate::sim::record::{AdderBusy, Phase};
use crate::size::{ROUNDS_PER_SUBKEY, subkey_after_round};
use crate::spec::RoundDatapath;

/// The per-cycle behaviour of a schedule's datapath, precomputed from the schedule once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Datapath {
    pub(crate) rounds: u32,
    pub(crate) subkeys: u32,
    /// Rounds one pipeline stage does in one cycle: k/p.
    pub(crate) rounds_per_stage: u32,
    pub(crate) p: u32,
    pub(crate) passes_per_module: u32,
    /// s: chained modules.
    pub(crate) modules: u32,
    pub(crate) first_subkey_cycle: bool,
    pub(crate) variant: RoundDatapath,
    /// One key-schedule adder over the 4-round budget (Long 3.4.1).
    pub(crate) shared_key_schedule_adder: bool,
    /// Athanasiou's Key Generation 0 forms subkey 0 in front of the modules.
    pub(crate) key_generation_0: bool,
}

impl Datapath {
    pub(crate) fn new(schedule: &Schedule) -> Self {
        Datapath {
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
        }
    }

    /// The pipeline register (slot) a block is in during its `elapsed`-th cycle (from 0):
    /// stage `elapsed mod p` of the module its pass belongs to. The first-subkey pass is
    /// spent in module 0 (only single-module designs have one).
    pub(crate) fn slot(&self, elapsed: u32) -> usize {
        let pass = elapsed / self.p;
        let stage = elapsed % self.p;
        let round_pass = pass.saturating_sub(u32::from(self.first_subkey_cycle));
        let module = (round_pass / self.passes_per_module).min(self.modules - 1);
        (module * self.p + stage) as usize
    }

    /// Whether a block that entered at `elapsed` cycles ago is in module 0 stage 0 now, i.e.
    /// holds the input multiplexer that a new block needs.
    pub(crate) fn holds_input(&self, elapsed: u32) -> bool {
        self.slot(elapsed) == 0
    }

    /// Key-schedule adders busy in forming one subkey.
    fn key_schedule_busy(&self) -> u32 {
        if self.shared_key_schedule_adder {
            0 // counted per round cycle instead, see `Block::step`
        } else {
            crate::schedule::KEY_SCHEDULE_ADDERS
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
    /// The first half of a two-cycle round is done.
    half_done: bool,
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
            half_done: false,
        }
    }

    /// All rounds and subkeys are done: the output is ready after this cycle.
    pub(crate) fn is_done(&self, dp: &Datapath) -> bool {
        self.round == dp.rounds && self.subkey == dp.subkeys
    }

    /// The chaining value out of the block: Threefish output XOR plaintext (Matyas-Meyer-Oseas
    /// feed-forward; XORs, no adders).
    pub(crate) fn output(&self) -> [u64; N] {
        core::array::from_fn(|i| self.state[i] ^ self.input[i])
    }

    /// Adds subkey `self.subkey` and counts its adders.
    fn inject(&mut self, dp: &Datapath, busy: &mut AdderBusy) {
        inject_subkey(&mut self.state, &self.keys, self.subkey as usize);
        self.subkey += 1;
        busy.subkey += N as u32;
        busy.key_schedule += dp.key_schedule_busy();
    }

    /// Adds subkey `self.subkey`'s words `range` only (half the subkey adders).
    fn inject_words(&mut self, range: core::ops::Range<usize>, busy: &mut AdderBusy) {
        for i in range {
            let k = self.keys.subkey_word(self.subkey as usize, i);
            self.state[i] = self.state[i].wrapping_add(k);
            busy.subkey += 1;
        }
    }

    /// The first cycle's subkey 0, on the load path (or in Key Generation 0).
    fn load(&mut self, dp: &Datapath, busy: &mut AdderBusy) {
        if dp.key_generation_0 {
            busy.first_subkey += crate::schedule::FIRST_SUBKEY_GENERATOR_ADDERS;
            inject_subkey(&mut self.state, &self.keys, 0);
            self.subkey = 1;
            busy.subkey += N as u32;
        } else {
            self.inject(dp, busy);
        }
    }

    /// One clock cycle of work; returns the adders it kept busy.
    pub(crate) fn step(&mut self, dp: &Datapath) -> AdderBusy {
        let mut busy = AdderBusy::default();
        let elapsed = self.elapsed;
        self.elapsed += 1;
        if dp.first_subkey_cycle && elapsed < dp.p {
            // Athanasiou 3.1.1: a pass slot that forms and adds subkey 0; with p interleaved
            // messages the block goes once round the ring (p cycles), working in the first.
            if elapsed == 0 {
                self.load(dp, &mut busy);
            }
            return busy;
        }
        if self.subkey == 0 {
            self.load(dp, &mut busy);
        }
        match dp.variant {
            RoundDatapath::Baseline => {
                for _ in 0..dp.rounds_per_stage {
                    self.full_round(dp, &mut busy);
                }
            }
            RoundDatapath::HalfSubkeyAdders => self.half_subkey_step(dp, &mut busy),
            RoundDatapath::HalfMixAdders => self.half_mix_step(dp, &mut busy),
            RoundDatapath::SplitRound => self.split_step(dp, &mut busy),
            RoundDatapath::MixKeyOverlap => self.overlap_step(dp, &mut busy),
        }
        if dp.shared_key_schedule_adder && !self.round.is_multiple_of(ROUNDS_PER_SUBKEY) {
            // Long 3.4.1: the one adder forms the three tweak/counter words of the next subkey
            // in three of the four round cycles between injections.
            busy.key_schedule += crate::schedule::SHARED_KEY_SCHEDULE_ADDERS;
        }
        busy
    }

    /// Round `self.round` (MIX, permutation) and the subkey that follows it, if any.
    fn full_round(&mut self, dp: &Datapath, busy: &mut AdderBusy) {
        round(&mut self.state, self.round as usize);
        busy.mix += (N / 2) as u32;
        let after = self.round;
        self.round += 1;
        if subkey_after_round(after).is_some() {
            self.inject(dp, busy);
        }
    }

    /// Long 3.4.2: a key round takes two cycles, adding half the subkey words in each.
    fn half_subkey_step(&mut self, dp: &Datapath, busy: &mut AdderBusy) {
        if self.half_done {
            self.inject_words(N / 2..N, busy);
            self.subkey += 1;
            busy.key_schedule += dp.key_schedule_busy();
            self.half_done = false;
            return;
        }
        round(&mut self.state, self.round as usize);
        busy.mix += (N / 2) as u32;
        let after = self.round;
        self.round += 1;
        if subkey_after_round(after).is_some() {
            self.inject_words(0..N / 2, busy);
            self.half_done = true;
        }
    }

    /// Long 3.4.3, Fig. 14(a): half the MIX adders; the first cycle mixes the first half of
    /// the word pairs, the second the rest, then permutes and adds the subkey if one is due.
    fn half_mix_step(&mut self, dp: &Datapath, busy: &mut AdderBusy) {
        let d = self.round as usize;
        let pairs = if self.half_done {
            N / 4..N / 2
        } else {
            0..N / 4
        };
        for j in pairs {
            let (y0, y1) = mix(self.state[2 * j], self.state[2 * j + 1], rotation(N, d, j));
            self.state[2 * j] = y0;
            self.state[2 * j + 1] = y1;
            busy.mix += 1;
        }
        if !self.half_done {
            self.half_done = true;
            return;
        }
        self.half_done = false;
        self.state = permute(&self.state);
        self.round += 1;
        if subkey_after_round(self.round - 1).is_some() {
            self.inject(dp, busy);
        }
    }

    /// Long 3.4.3, Fig. 14(b): a register in the middle of the round; the MIX layer in the
    /// first cycle, the permutation and the key addition in the second.
    fn split_step(&mut self, dp: &Datapath, busy: &mut AdderBusy) {
        if !self.half_done {
            mix_round(&mut self.state, self.round as usize);
            busy.mix += (N / 2) as u32;
            self.half_done = true;
            return;
        }
        self.half_done = false;
        self.state = permute(&self.state);
        self.round += 1;
        if subkey_after_round(self.round - 1).is_some() {
            self.inject(dp, busy);
        }
    }

    /// Long 3.4.4, Fig. 15: a round without a key is one cycle; a round with one is two, the
    /// second adding the subkey on the Nw shared adders (counted Nw/2 as MIX, Nw/2 as subkey
    /// adders, as in [`crate::AdderCounts`]).
    fn overlap_step(&mut self, dp: &Datapath, busy: &mut AdderBusy) {
        if self.half_done {
            inject_subkey(&mut self.state, &self.keys, self.subkey as usize);
            self.subkey += 1;
            busy.mix += (N / 2) as u32;
            busy.subkey += (N / 2) as u32;
            busy.key_schedule += dp.key_schedule_busy();
            self.half_done = false;
            return;
        }
        round(&mut self.state, self.round as usize);
        busy.mix += (N / 2) as u32;
        self.round += 1;
        if subkey_after_round(self.round - 1).is_some() {
            self.half_done = true;
        }
    }
}
