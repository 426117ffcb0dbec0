//! Model counting: what a schedule's datapath needs, in 64-bit adders, XORs, multiplexers
//! and registers, before any mapping to the device.
//!
//! The adders come from [`Schedule::adders`] (Long 3.3's 9/15/27 for the baseline round),
//! scaled only where the core style replicates whole round circuits. Everything else is
//! counted here from the schedule and the [`CoreStyle`], one [`Item`] per kind of element,
//! with the reason it exists in its [`Role`].

use serde::Serialize;
use skeinhw_sched::{RoundDatapath, Schedule, WORD_BITS};

use crate::style::CoreStyle;

/// Why an element is in the design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// MIX additions W0 + W1.
    Mix,
    /// MIX XOR (W1 <<< R) ^ (W0 + W1).
    MixXor,
    /// Subkey (key-injection) adders of the datapath.
    SubkeyInjection,
    /// Key-schedule adders (tweak words and the subkey counter).
    KeySchedule,
    /// Athanasiou's Key Generation 0 in front of a structural pipeline.
    FirstSubkey,
    /// Threefish output XOR message block (Matyas-Meyer-Oseas).
    FeedForward,
    /// k_Nw = C240 ^ k_0 ^ ... and t_2 = t_0 ^ t_1.
    KeyParity,
    /// Select between the new block (or Config, or zero) and the fed-back state.
    InputSelect,
    /// Rotation constants that change with the round: lcm(k, 8)/k sets per MIX.
    RotationSelect,
    /// Add the subkey or pass the word (injection not on every pass).
    SubkeyEnable,
    /// Permutation enable of the generated RTL (the permutation itself is wires).
    Permutation,
    /// Long's MuxSwitch: round key words from the Nw + 1 key words and 3 tweak words.
    RoundKeySelect,
    /// Key generator input: zero, Config value or chaining value.
    KeyInputSelect,
    /// Shift-register load/rotate select, and the per-message register select.
    KeyStoreSelect,
    /// Byte mask and pad bit of the message buffer.
    Padding,
    /// 64-bit output word select.
    OutputSelect,
    /// Message position counter of the tweak generator.
    TweakCounter,
    /// Threefish state registers (pipeline stages included).
    State,
    /// Key and tweak registers (shift registers, pipelined copies).
    KeyStore,
    /// Input blocks kept for the feed-forward, and pipeline synchronisation copies.
    BlockStore,
    /// Message input buffer.
    MessageBuffer,
    /// Control unit.
    Control,
}

/// One kind of element, with how it may be implemented.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Kind {
    /// A carry-chain adder; `fused_select` when a 2:1 operand select lives in its LUTs.
    Adder {
        /// A 2:1 select on the operands shares the adder's LUT (5 inputs of 6).
        fused_select: bool,
    },
    /// An XOR of `inputs` bits per output bit; `fused_select` for a 2:1 rotation select
    /// in the same LUT (4 inputs of 6).
    Xor {
        /// Inputs per output bit.
        inputs: u32,
        /// A 2:1 select shares the LUT.
        fused_select: bool,
    },
    /// A multiplexer of `fan_in` inputs per bit; `fused` when it costs no LUT of its own
    /// (it lives in an adder's or XOR's LUT, counted there).
    Mux {
        /// Inputs per output bit.
        fan_in: u32,
        /// Absorbed by the next LUT.
        fused: bool,
    },
    /// Flip-flops; `lut_fed` when a LUT drives their input (so they can share its pair).
    Register {
        /// Driven by a LUT of the design.
        lut_fed: bool,
    },
    /// A function of `inputs` inputs per output bit that no rule above fits (a select with
    /// its select bits, a decode, a ROM output): a tree of LUT6s (see `device::logic_luts`).
    Logic {
        /// Inputs per output bit.
        inputs: u32,
    },
    /// A carry chain whose LUTs are pass-throughs (an addition of a constant): CARRY4s, no
    /// LUT.
    Carry,
    /// Control logic sized by a constant: `luts` and `ffs` are taken from the constants.
    Control,
}

/// `count` instances of an element `width` bits wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Why it is there.
    pub role: Role,
    /// What it is.
    pub kind: Kind,
    /// Instances.
    pub count: u32,
    /// Bits per instance.
    pub width: u32,
}

impl Item {
    /// Bits over all instances.
    pub const fn bits(&self) -> u32 {
        self.count * self.width
    }
}

/// 64-bit adders by role, as built in this style.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Adders {
    /// MIX adders.
    pub mix: u32,
    /// Subkey adders.
    pub subkey: u32,
    /// Key-schedule adders.
    pub key_schedule: u32,
    /// Key Generation 0 adders.
    pub first_subkey: u32,
    /// All of them.
    pub total: u32,
}

/// Everything the datapath needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inventory {
    /// The style it was counted for.
    pub style: CoreStyle,
    /// Adders by role.
    pub adders: Adders,
    /// Rotation constant sets each MIX must choose from (1: wires).
    pub rotation_sets: u32,
    /// Every element.
    pub items: Vec<Item>,
}

/// Rotation constants repeat every 8 rounds (Skein 1.3, Table 4).
const ROTATION_PERIOD: u32 = 8;

/// Tweak words: t_0, t_1 and t_2 = t_0 ^ t_1.
const TWEAK_WORDS: u32 = 3;

/// Bits of the message position the tweak generator counts (Skein 1.3: 96-bit position).
const POSITION_BITS: u32 = 96;

/// Tweak bits a hash core keeps per message (position, flags, type).
const TWEAK_BITS: u32 = 128;

const W: u32 = WORD_BITS;

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Rotation constant sets one MIX circuit must select from.
///
/// A round circuit used for rounds r, r + k, r + 2k, ... meets lcm(k, 8)/k different
/// rotation constants; a MIX adder shared by several MIX positions (Long 3.4.3) meets that
/// many times more. A register-per-round pipeline (every round its own circuit) has one.
pub fn rotation_sets(schedule: &Schedule) -> u32 {
    let k = schedule.rounds_per_cycle();
    let per_circuit = ROTATION_PERIOD / gcd(k, ROTATION_PERIOD);
    let full_mix = schedule.size().mix_per_round() * k * schedule.structural_stages();
    let positions = full_mix / schedule.adders().mix.max(1);
    if schedule.round_pipeline() {
        positions
    } else {
        per_circuit * positions
    }
}

/// The adders of `schedule` as built in `style`: the schedule's own count, except that a bare
/// UBI core (Long 3.2.2) unrolls by copying the whole Fig. 10 round circuit, subkey adders
/// included, so it has k banks of subkey adders where the schedule needs k/gcd(k, 4).
pub fn adders(schedule: &Schedule, style: CoreStyle) -> Adders {
    let a = schedule.adders();
    let k = schedule.rounds_per_cycle();
    let points = schedule.subkey_injection_points();
    let subkey = match style {
        CoreStyle::UbiCore if k > 1 && !schedule.round_pipeline() => a.subkey / points * k,
        _ => a.subkey,
    };
    Adders {
        mix: a.mix,
        subkey,
        key_schedule: a.key_schedule,
        first_subkey: a.first_subkey,
        total: a.mix + subkey + a.key_schedule + a.first_subkey,
    }
}

/// Counts the datapath of `schedule` built in `style`.
pub fn inventory(schedule: &Schedule, style: CoreStyle) -> Inventory {
    if style == CoreStyle::Generated {
        return crate::generated::inventory(schedule);
    }
    let nw = schedule.words();
    let state = nw * W;
    let k = schedule.rounds_per_cycle();
    let p = schedule.functional_stages();
    let s = schedule.structural_stages();
    let adders = adders(schedule, style);
    let sets = rotation_sets(schedule);
    // Injection is not on every pass at a fixed place: a select (Long's output mux,
    // Athanasiou's 512-bit 2:1 before the MIX) picks the keyed or the plain word.
    let enable_varies = !k.is_multiple_of(4);
    let mut items = Vec::with_capacity(24);
    let mut push = |role, kind, count, width| {
        if count > 0 && width > 0 {
            items.push(Item {
                role,
                kind,
                count,
                width,
            });
        }
    };

    let mix_operand_select = match style {
        CoreStyle::UbiCore => true,
        CoreStyle::HashCore | CoreStyle::Generated => enable_varies,
    };
    push(
        Role::Mix,
        Kind::Adder {
            fused_select: mix_operand_select,
        },
        adders.mix,
        W,
    );
    push(
        Role::MixXor,
        Kind::Xor {
            inputs: 2,
            fused_select: sets == 2,
        },
        adders.mix,
        W,
    );
    push(
        Role::RotationSelect,
        Kind::Mux {
            fan_in: sets,
            fused: sets <= 2,
        },
        if sets > 1 { adders.mix } else { 0 },
        W,
    );
    let shared_operands = matches!(
        schedule.round_datapath(),
        RoundDatapath::HalfSubkeyAdders | RoundDatapath::MixKeyOverlap
    );
    push(
        Role::SubkeyInjection,
        Kind::Adder {
            fused_select: style == CoreStyle::HashCore && s > 1 || shared_operands,
        },
        adders.subkey,
        W,
    );
    push(
        Role::KeySchedule,
        Kind::Adder {
            fused_select: false,
        },
        adders.key_schedule,
        W,
    );
    push(
        Role::FirstSubkey,
        Kind::Adder {
            fused_select: false,
        },
        adders.first_subkey,
        W,
    );
    push(
        Role::FeedForward,
        Kind::Xor {
            inputs: 2,
            fused_select: false,
        },
        1,
        state,
    );
    push(
        Role::KeyParity,
        Kind::Xor {
            inputs: nw,
            fused_select: false,
        },
        1,
        W,
    );
    push(
        Role::KeyParity,
        Kind::Xor {
            inputs: 2,
            fused_select: false,
        },
        1,
        W,
    );
    push(
        Role::State,
        Kind::Register { lut_fed: true },
        schedule.state_registers(),
        state,
    );

    match style {
        CoreStyle::UbiCore => {
            // The new block or the fed-back state, fused into the first MIX adder.
            push(
                Role::InputSelect,
                Kind::Mux {
                    fan_in: 2,
                    fused: true,
                },
                s,
                state,
            );
            // Fig. 10's output multiplexer after every bank of subkey adders.
            push(
                Role::SubkeyEnable,
                Kind::Mux {
                    fan_in: 2,
                    fused: false,
                },
                adders.subkey,
                W,
            );
            // MuxSwitch: each subkey word from the Nw + 1 key words, the two tweak words
            // added in from the three, once per subkey a pass delivers.
            let deliveries = if schedule.round_pipeline() {
                0
            } else {
                schedule.subkeys_per_pass() * s
            };
            push(
                Role::RoundKeySelect,
                Kind::Mux {
                    fan_in: nw + 1,
                    fused: false,
                },
                deliveries * nw,
                W,
            );
            push(
                Role::RoundKeySelect,
                Kind::Mux {
                    fan_in: TWEAK_WORDS,
                    fused: false,
                },
                deliveries * 2,
                W,
            );
            // Long Fig. 9: key, tweak and message travel with the block, stage by stage.
            let copies = if schedule.round_pipeline() { p - 1 } else { 0 };
            push(
                Role::KeyStore,
                Kind::Register { lut_fed: false },
                copies,
                (nw + 1 + TWEAK_WORDS) * W,
            );
            push(
                Role::BlockStore,
                Kind::Register { lut_fed: false },
                copies,
                state,
            );
            push(Role::Control, Kind::Control, 1, 1);
        }
        CoreStyle::HashCore | CoreStyle::Generated => {
            // Config, zero, message or feedback into the first module (a LUT level); the
            // later modules choose feedback or the previous module (fused).
            push(
                Role::InputSelect,
                Kind::Mux {
                    fan_in: 4,
                    fused: false,
                },
                1,
                state,
            );
            push(
                Role::InputSelect,
                Kind::Mux {
                    fan_in: 2,
                    fused: true,
                },
                s - 1,
                state,
            );
            push(
                Role::SubkeyEnable,
                Kind::Mux {
                    fan_in: 2,
                    fused: true,
                },
                if enable_varies { adders.subkey } else { 0 },
                W,
            );
            push(
                Role::KeyInputSelect,
                Kind::Mux {
                    fan_in: 3,
                    fused: false,
                },
                1,
                state,
            );
            // One key and one tweak shift register per message in flight, in every
            // module; each bit chooses load or rotate.
            let stores = p * s;
            let store_bits = (nw + 1 + TWEAK_WORDS) * W;
            push(
                Role::KeyStore,
                Kind::Register { lut_fed: true },
                stores,
                store_bits,
            );
            push(
                Role::KeyStoreSelect,
                Kind::Mux {
                    fan_in: 2,
                    fused: false,
                },
                stores,
                store_bits,
            );
            // Two p/2 : 1 selects of the working shift registers (Athanasiou 3.2.1).
            let half = p.div_ceil(2);
            push(
                Role::KeyStoreSelect,
                Kind::Mux {
                    fan_in: half,
                    fused: false,
                },
                if half >= 2 { 2 * s } else { 0 },
                (nw + 2) * W,
            );
            // Input blocks for the feed-forward (p per module) and the p - 1
            // synchronisation registers after the XOR (Athanasiou 3.2.1).
            push(
                Role::BlockStore,
                Kind::Register { lut_fed: false },
                p * s + (p - 1),
                state,
            );
            push(
                Role::MessageBuffer,
                Kind::Register { lut_fed: true },
                1,
                state,
            );
            push(
                Role::Padding,
                Kind::Mux {
                    fan_in: 2,
                    fused: false,
                },
                1,
                state,
            );
            push(
                Role::OutputSelect,
                Kind::Mux {
                    fan_in: nw,
                    fused: false,
                },
                1,
                W,
            );
            push(
                Role::TweakCounter,
                Kind::Adder {
                    fused_select: false,
                },
                1,
                POSITION_BITS,
            );
            push(
                Role::KeyStore,
                Kind::Register { lut_fed: true },
                1,
                TWEAK_BITS,
            );
            push(Role::Control, Kind::Control, 1, 1);
        }
    }

    Inventory {
        style,
        adders,
        rotation_sets: sets,
        items,
    }
}
