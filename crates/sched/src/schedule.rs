//! The validated schedule and the quantities derived from it: the one place where cycle counts,
//! blocks in flight and adder counts are computed, read by the simulator, the Verilog generator
//! and the estimator alike.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::ScheduleError;
use crate::size::{ROUNDS_PER_SUBKEY, StateSize, subkey_after_round};
use crate::spec::{RoundDatapath, ScheduleSpec};
use crate::validate::{gcd, validate};

/// 64-bit additions of one subkey computation in the key schedule: k_{Nw-3} + t_s,
/// k_{Nw-2} + t_{s+1}, k_{Nw-1} + s (Skein 1.3, section 3.3.2; the three adders in the dashed
/// box of Long Fig. 10).
pub const KEY_SCHEDULE_ADDERS: u32 = 3;

/// Adders of the key schedule when Long 3.4.1 shares one adder over the 4-cycle budget.
pub const SHARED_KEY_SCHEDULE_ADDERS: u32 = 1;

/// Adders of Athanasiou's Key Generation 0, which forms subkey 0 (key + tweak words only) in
/// front of a structural pipeline instead of spending a cycle on it (3.2.2).
pub const FIRST_SUBKEY_GENERATOR_ADDERS: u32 = 2;

/// A validated hardware schedule of Threefish/UBI.
///
/// Built only through validation ([`Schedule::try_from`] a [`ScheduleSpec`], [`crate::preset`],
/// [`Schedule::from_json_str`], [`Schedule::from_json_file`]), so every consumer may rely on
/// the rules of [`crate::validate`] without checking again. Serialized as its spec.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ScheduleSpec", into = "ScheduleSpec")]
pub struct Schedule {
    spec: ScheduleSpec,
    size: StateSize,
}

impl TryFrom<ScheduleSpec> for Schedule {
    type Error = ScheduleError;

    fn try_from(spec: ScheduleSpec) -> Result<Self, Self::Error> {
        let size = validate(&spec)?;
        Ok(Schedule { spec, size })
    }
}

impl From<Schedule> for ScheduleSpec {
    fn from(schedule: Schedule) -> ScheduleSpec {
        schedule.spec
    }
}

/// Adders of a design by role, counted in 64-bit adders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct AdderCounts {
    /// MIX adders (W0 + W1), Nw/2 per round circuit.
    pub mix: u32,
    /// Subkey (key-injection) adders of the datapath, Nw per injection point.
    pub subkey: u32,
    /// Key-schedule adders forming the tweak and counter words of the next subkeys.
    pub key_schedule: u32,
    /// Athanasiou's Key Generation 0 in front of a structural pipeline.
    pub first_subkey: u32,
}

impl AdderCounts {
    /// All adders.
    pub const fn total(&self) -> u32 {
        self.mix + self.subkey + self.key_schedule + self.first_subkey
    }
}

/// The derived numbers of a schedule, for `--json` output and reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Derived {
    /// Threefish rounds Nr.
    pub rounds: u32,
    /// State words Nw.
    pub words: u32,
    /// Subkeys per block, Nr/4 + 1.
    pub subkeys: u32,
    /// Passes through the k-round datapath per block, Nr/k.
    pub passes: u32,
    /// Passes each structural module does per block, Nr/(k s).
    pub passes_per_module: u32,
    /// Most subkeys injected in one pass.
    pub subkeys_per_pass: u32,
    /// See [`Schedule::cycles_per_block`].
    pub cycles_per_block: u32,
    /// See [`Schedule::blocks_in_flight`].
    pub blocks_in_flight: u32,
    /// See [`Schedule::issue_interval`].
    pub issue_interval: u32,
    /// See [`Schedule::block_latency`].
    pub block_latency: u32,
    /// See [`Schedule::adders`].
    pub adders: AdderCounts,
    /// See [`Schedule::state_registers`].
    pub state_registers: u32,
}

impl Schedule {
    /// Validates `spec`; the same as `Schedule::try_from(spec)`.
    pub fn new(spec: ScheduleSpec) -> Result<Self, ScheduleError> {
        Schedule::try_from(spec)
    }

    /// Parses and validates JSON text. Errors name the field: `missing field `size``,
    /// `unknown field `bogus``, `size: invalid type ...`, `rounds_per_cycle = 5 does not ...`.
    pub fn from_json_str(json: &str) -> Result<Self, ScheduleError> {
        ScheduleSpec::from_json_str(json)?.build()
    }

    /// Reads, parses and validates a JSON schedule file; every error names the file.
    pub fn from_json_file(path: impl AsRef<Path>) -> Result<Self, ScheduleError> {
        crate::spec::read_json_file(path.as_ref(), Schedule::from_json_str)
    }

    /// The command line's `NAME|FILE.json`: a preset name if one matches, otherwise a file
    /// when the argument ends in `.json` or names an existing file; anything else is reported
    /// as an unknown preset (with the list of names).
    pub fn from_name_or_file(arg: &str) -> Result<Self, ScheduleError> {
        if crate::presets::preset_names().any(|name| name == arg) {
            return crate::preset(arg);
        }
        let path = Path::new(arg);
        if arg.ends_with(".json") || path.is_file() {
            return Schedule::from_json_file(path);
        }
        crate::preset(arg)
    }

    /// Pretty JSON with every field written, ending in a newline.
    pub fn to_json_pretty(&self) -> String {
        let mut json = serde_json::to_string_pretty(&self.spec)
            .expect("a schedule spec has only strings, numbers and booleans");
        json.push('\n');
        json
    }

    /// The spec it was built from (to edit a copy and validate again).
    pub fn spec(&self) -> &ScheduleSpec {
        &self.spec
    }

    /// The spec, consumed.
    pub fn into_spec(self) -> ScheduleSpec {
        self.spec
    }

    // ---- the fields -------------------------------------------------------------------------

    /// Preset or user name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Citation of the design, possibly empty.
    pub fn source(&self) -> &str {
        &self.spec.source
    }

    /// State size.
    pub fn size(&self) -> StateSize {
        self.size
    }

    /// k: round circuits in the datapath (rounds per pass).
    pub fn rounds_per_cycle(&self) -> u32 {
        self.spec.rounds_per_cycle
    }

    /// p: functional pipeline stages inside the k-round datapath.
    pub fn functional_stages(&self) -> u32 {
        self.spec.functional_stages
    }

    /// s: structural pipeline stages (chained k-round modules).
    pub fn structural_stages(&self) -> u32 {
        self.spec.structural_stages
    }

    /// Long Fig. 9: a register after every round.
    pub fn round_pipeline(&self) -> bool {
        self.spec.round_pipeline
    }

    /// The round circuit variant of Long 3.4.
    pub fn round_datapath(&self) -> RoundDatapath {
        self.spec.round_datapath
    }

    /// Long 3.4.1: one key-schedule adder.
    pub fn shared_key_schedule_adder(&self) -> bool {
        self.spec.shared_key_schedule_adder
    }

    /// Athanasiou's extra slot to form subkey 0.
    pub fn first_subkey_cycle(&self) -> bool {
        self.spec.first_subkey_cycle
    }

    /// Whether the Config UBI is a precomputed constant.
    pub fn config_precomputed(&self) -> bool {
        self.spec.config_precomputed
    }

    // ---- sizes --------------------------------------------------------------------------------

    /// Threefish rounds Nr: 72 or 80.
    pub fn rounds(&self) -> u32 {
        self.size.rounds()
    }

    /// State words Nw: 4, 8 or 16.
    pub fn words(&self) -> u32 {
        self.size.words()
    }

    /// Bits of one message block (= state bits).
    pub fn block_bits(&self) -> u32 {
        self.size.bits()
    }

    /// Subkeys per block: Nr/4 + 1.
    pub fn subkeys(&self) -> u32 {
        self.size.subkeys()
    }

    // ---- passes -------------------------------------------------------------------------------

    /// Passes through a k-round datapath per block: Nr/k.
    pub fn passes(&self) -> u32 {
        self.rounds() / self.rounds_per_cycle()
    }

    /// Passes each of the s structural modules does on a block: Nr/(k s).
    pub fn passes_per_module(&self) -> u32 {
        self.passes() / self.structural_stages()
    }

    /// The most subkeys one pass injects, ceil(k/4): what the key generator must deliver per
    /// pass (Athanasiou 3.1.3: two subkeys per cycle for k = 8).
    pub fn subkeys_per_pass(&self) -> u32 {
        self.rounds_per_cycle().div_ceil(ROUNDS_PER_SUBKEY)
    }

    /// Places in one k-round module that need a bank of subkey adders: k / gcd(k, 4).
    ///
    /// A subkey follows every 4th round, so for k a multiple of 4 the places are fixed (k/4
    /// of them; 2 for Athanasiou's 8r) and for k = 1, 2, 4 there is one. For k = 3, 6, 9, ...
    /// the injection moves from pass to pass and every place it visits needs adders. Subkey 0
    /// is not counted: it is added in the first-subkey cycle or on the load path.
    pub fn subkey_injection_points(&self) -> u32 {
        let k = self.rounds_per_cycle();
        k / gcd(k, ROUNDS_PER_SUBKEY)
    }

    /// Cycles of pass `pass` (0-based, over all Nr/k passes of a block), not counting the
    /// first-subkey slot. A pass through p stages takes p cycles; Long 3.4's round circuits
    /// (k = 1, so a pass is a round) take two cycles for a round that ends with a key addition
    /// (half the subkey adders, MIX/key overlap) or for every round (half the MIX adders,
    /// split round).
    pub fn pass_cycles(&self, pass: u32) -> u32 {
        let p = self.functional_stages();
        match self.round_datapath() {
            RoundDatapath::Baseline => p,
            RoundDatapath::HalfSubkeyAdders | RoundDatapath::MixKeyOverlap => {
                if subkey_after_round(pass).is_some() {
                    2
                } else {
                    1
                }
            }
            RoundDatapath::HalfMixAdders | RoundDatapath::SplitRound => 2,
        }
    }

    /// Cycles a block spends forming subkey 0 before its rounds: one pass slot, p cycles, when
    /// `first_subkey_cycle` is set (Athanasiou 3.1.1), else 0.
    ///
    /// Why p and not 1: Athanasiou's text counts 9p + 2 cycles for the 8r_pFp designs (one
    /// first-subkey cycle and one synchronisation cycle), but the throughput table (Fig. 7)
    /// implies 10p: 20, 40, 80 cycles for p = 2, 4, 8 (throughput = p x 512 x f / cycles).
    /// We follow the table: with p messages interleaved, each message's first-subkey slot
    /// costs it a whole pass of p cycles.
    pub fn first_subkey_cycles(&self) -> u32 {
        if self.first_subkey_cycle() {
            self.functional_stages()
        } else {
            0
        }
    }

    // ---- timing -------------------------------------------------------------------------------

    /// Cycles from a block entering the datapath to its chaining value (Threefish output XOR
    /// block) being ready: the first-subkey slot plus every pass, through all s modules.
    pub fn block_latency(&self) -> u32 {
        let passes: u32 = (0..self.passes()).map(|i| self.pass_cycles(i)).sum();
        self.first_subkey_cycles() + passes
    }

    /// The issue interval of one message stream: cycles between accepting successive blocks
    /// of ONE message. UBI chains the blocks (block n + 1 is keyed by the output of block n),
    /// so this equals [`Schedule::block_latency`]: 72 (Long iterative), 73/19/10 (Athanasiou
    /// 1r/4r/8r), 10p (8r_pFp), 9p (8r_pFp_3Sp).
    ///
    /// Together with [`Schedule::blocks_in_flight`] it gives the sustained throughput of a
    /// design fed with enough independent messages (or tree nodes):
    /// `block_bits x blocks_in_flight x f / cycles_per_block`.
    pub fn cycles_per_block(&self) -> u32 {
        self.block_latency()
    }

    /// Independent blocks (of different messages or tree nodes) the datapath holds at once:
    /// one per pipeline register, p in each of the s modules. 1 for iterative designs.
    pub fn blocks_in_flight(&self) -> u32 {
        self.functional_stages() * self.structural_stages()
    }

    /// Cycles between two blocks accepted by the whole datapath when it is kept full:
    /// cycles_per_block / blocks_in_flight (always whole: 3 for the 3Sp designs, 10 for
    /// 8r_pFp, 1 for Long's register-per-round pipeline).
    pub fn issue_interval(&self) -> u32 {
        self.cycles_per_block() / self.blocks_in_flight()
    }

    /// Sustained throughput in Mbit/s at `freq_mhz`, long messages, datapath kept full:
    /// block_bits x blocks_in_flight x f / cycles_per_block (Athanasiou Eq. 4; Long 4.2).
    pub fn throughput_mbps(&self, freq_mhz: f64) -> f64 {
        f64::from(self.block_bits()) * f64::from(self.blocks_in_flight()) * freq_mhz
            / f64::from(self.cycles_per_block())
    }

    // ---- resources ----------------------------------------------------------------------------

    /// 64-bit adders by role.
    ///
    /// - MIX: Nw/2 per round circuit, k per module, s modules; Nw/4 with half the MIX adders.
    /// - subkey: Nw per injection point per module; Nw/2 with half the subkey adders; the MIX/key
    ///   overlap shares Nw adders between both roles, counted as Nw/2 MIX + Nw/2 subkey (Long:
    ///   "only four adders are used compared to the six" for Skein-256).
    /// - key schedule: 3 per subkey formed per pass (Athanasiou 3.1.3: 6 for k = 8), per
    ///   module; 1 when shared (Long 3.4.1). Shared by the p interleaved messages
    ///   (Athanasiou 3.2.1).
    /// - first subkey: Athanasiou's Key Generation 0 (2 adders) in front of s >= 2 modules.
    ///
    /// Baseline iterative: 9, 15, 27 adders for Skein-256/512/1024 (Long 3.3).
    pub fn adders(&self) -> AdderCounts {
        let nw = self.words();
        let k = self.rounds_per_cycle();
        let s = self.structural_stages();
        let full_mix = self.size.mix_per_round() * k * s;
        let full_subkey = nw * self.subkey_injection_points() * s;
        let (mix, subkey) = match self.round_datapath() {
            RoundDatapath::Baseline | RoundDatapath::SplitRound => (full_mix, full_subkey),
            RoundDatapath::HalfSubkeyAdders => (full_mix, full_subkey / 2),
            RoundDatapath::HalfMixAdders => (full_mix / 2, full_subkey),
            RoundDatapath::MixKeyOverlap => (nw / 2, nw / 2),
        };
        let per_subkey = if self.shared_key_schedule_adder() {
            SHARED_KEY_SCHEDULE_ADDERS
        } else {
            KEY_SCHEDULE_ADDERS
        };
        AdderCounts {
            mix,
            subkey,
            key_schedule: per_subkey * self.subkeys_per_pass() * s,
            first_subkey: if s > 1 {
                FIRST_SUBKEY_GENERATOR_ADDERS
            } else {
                0
            },
        }
    }

    /// Nw x 64-bit state registers in the round datapaths: one per pipeline stage (p per
    /// module, s modules), plus the register in the middle of the round of the split round
    /// (Long Fig. 14b). Each in-flight block also keeps its key, tweak and input block for the
    /// feed-forward; those scale with [`Schedule::blocks_in_flight`].
    pub fn state_registers(&self) -> u32 {
        let stages = self.functional_stages() * self.structural_stages();
        if self.round_datapath() == RoundDatapath::SplitRound {
            stages + 1
        } else {
            stages
        }
    }

    /// Every derived number at once, for `--json` output.
    pub fn derived(&self) -> Derived {
        Derived {
            rounds: self.rounds(),
            words: self.words(),
            subkeys: self.subkeys(),
            passes: self.passes(),
            passes_per_module: self.passes_per_module(),
            subkeys_per_pass: self.subkeys_per_pass(),
            cycles_per_block: self.cycles_per_block(),
            blocks_in_flight: self.blocks_in_flight(),
            issue_interval: self.issue_interval(),
            block_latency: self.block_latency(),
            adders: self.adders(),
            state_registers: self.state_registers(),
        }
    }
}
