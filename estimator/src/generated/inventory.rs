//! The elements of the generated RTL, counted: [`inventory`].

use super::*;

/// The inventory of the generated RTL of `schedule`.
pub fn inventory(schedule: &Schedule) -> Inventory {
    let plan = GeneratedPlan::new(schedule);
    let nw = plan.words;
    let n = nw * W;
    let ky = n + W;
    let ns = plan.streams;
    let mut items = Vec::with_capacity(64);
    let mut push = |role, kind, count: u32, width: u32| {
        if count > 0 && width > 0 {
            items.push(Item {
                role,
                kind,
                count,
                width,
            });
        }
    };
    let reg = Kind::Register { lut_fed: true };
    let logic = |inputs: u32| Kind::Logic { inputs };
    let mux = |fan_in: u32| Kind::Mux {
        fan_in,
        fused: false,
    };
    let fused2 = Kind::Mux {
        fan_in: 2,
        fused: true,
    };
    let adder = Kind::Adder {
        fused_select: false,
    };
    let mut adders = Adders::default();

    // ---- per stream: input register, controller context, their compares and sequencer.
    push(Role::MessageBuffer, reg, ns, BUFFER_FLAGS + BYTES_BITS + n);
    push(Role::BlockStore, reg, ns, n + CONTEXT_BITS);
    // in_stream == k (the port's 32 bits), iss_stream == k and c_stream == k (on the bits that
    // tell the streams apart) and the sequencer.
    let sb = stream_bits(ns);
    push(Role::Control, logic(STREAM_BITS), ns, 1);
    push(Role::Control, logic(sb + 1), ns * 2, 1);
    push(Role::Control, logic(8), ns, 8);

    // ---- the issue: the lowest ready stream's context and buffer, the next block.
    // The grant, stream k ready and none below it: a k+1-input function per stream. g_*: an
    // AND-OR over the one-hot grant (ns data, ns grant bits) of the chain, the buffered
    // block, the position, the byte count and the flags; iss_stream encodes the grant.
    let g_bits = n + n + W + BYTES_BITS + 4;
    if ns > 1 {
        for k in 1..ns {
            push(Role::Control, logic(k + 1), 1, 1);
        }
        push(Role::InputSelect, logic(2 * ns), 1, g_bits);
        push(Role::Control, logic(ns / 2), 1, sb);
    }
    // iss_chain (zero, IV or the chain) and iss_data (buffer, Config string or zero): the
    // sequence decode is shared, each bit a small function.
    push(Role::KeyInputSelect, logic(4), 1, n);
    push(Role::InputSelect, logic(4), 1, n);
    // iss_pos = (first ? 0 : pos) + bytes.
    push(Role::TweakCounter, adder, 1, W);
    adders.total += 1;
    // k_Nw = C240 ^ k_0 ^ ... ^ k_Nw-1.
    push(
        Role::KeyParity,
        Kind::Xor {
            inputs: nw,
            fused_select: false,
        },
        1,
        W,
    );

    // ---- per slot.
    let done_slots = plan.slots.iter().filter(|s| s.done).count() as u32;
    for (slot_index, slot) in plan.slots.iter().enumerate() {
        // Registers: state, key, tweak, plaintext, cycle count (where the slot holds more than
        // one cycle of a block), live, phase, stream.
        let counted = slot.cycles > 1;
        let elapsed_bits = if counted { ELAPSED_BITS } else { 0 };
        push(Role::State, reg, 1, n);
        push(Role::KeyStore, reg, 1, ky + TWEAK_BITS);
        push(Role::BlockStore, reg, 1, n);
        push(Role::Control, reg, 1, elapsed_bits + 1 + PHASE_BITS + sb);
        // Arrival: a priority select over the slots (and the issue) a block comes from,
        // zero when none: f data inputs and f conditions per bit.
        let f = slot.sources.len() as u32;
        let arrive_bits = n + n + ky + W + TWEAK_FLAG_BITS + sb + PHASE_BITS + elapsed_bits;
        push(Role::InputSelect, logic(2 * f), 1, arrive_bits);
        // t2's flag bits, t0 ^ t1 of each source.
        push(Role::InputSelect, logic(3 * f), 1, TWEAK_FLAG_BITS);
        // The arriving cycle count `slot_i_elapsed + 1`, an 8-bit increment per source that
        // counts, and where the source's blocks go to different slots the condition
        // `slot_of(slot_i_elapsed + 1) == j`, a decode (a fixed source's is a constant).
        if plan.slots.len() > 1 {
            let counting: Vec<usize> = slot
                .sources
                .iter()
                .copied()
                .filter(|&i| i != usize::MAX && plan.slots[i].cycles > 1)
                .collect();
            let decoded = counting
                .iter()
                .filter(|&&i| plan.slots[i].next.len() > 1)
                .count() as u32;
            push(Role::Control, adder, counting.len() as u32, ELAPSED_BITS);
            push(Role::Control, logic(ELAPSED_BITS), decoded, 1);
        }
        // The control ROM on the arriving cycle count: each output bit some entry sets.
        // The done bit (the round and subkey outputs feed only trace registers: counted with
        // them, not here).
        let mut rom_bits = 1;
        let pool = plan.pools.as_ref().map(|p| &p[slot_index]);
        if let Some(pool) = pool {
            rom_bits += pool_rom_bits(pool);
        }
        for (unit, values) in slot.units.iter().filter(|_| pool.is_none()) {
            let set = &values.values;
            rom_bits += match unit {
                Unit::Add(_) => {
                    let sk = set.iter().fold(0, |a, v| a | v.0);
                    bit_len(sk).min(5) + nw.min(set.len() as u32)
                }
                Unit::Mix(_) => 3 + (nw / 2).min(set.len() as u32),
                Unit::Perm(_) => 1,
            };
        }
        // A slot that holds one cycle of a block has constant control: no ROM.
        if counted {
            push(Role::Control, logic(ELAPSED_BITS), 1, rom_bits);
        }

        // The stage: the chain of units.
        let mut key_adds: BTreeSet<(u32, u32, u32)> = BTreeSet::new();
        if let Some(pool) = pool {
            pool_items(pool, nw, &mut push, &mut adders, &mut key_adds);
        }
        for (unit, values) in slot.units.iter().filter(|_| pool.is_none()) {
            let set = &values.values;
            match unit {
                Unit::Add(_) => {
                    // One subkey index per unit: every word's `case` is over the subkeys the
                    // unit injects (with some words, or all).
                    let cases = selectable_subkeys(set);
                    for i in 0..nw {
                        if !set.iter().any(|&(_, first, end)| (first..end).contains(&i)) {
                            continue; // no entry adds to word i
                        }
                        let mut exprs = BTreeSet::new();
                        for &s in &cases {
                            let src = subkey_source(nw, s, i);
                            exprs.insert(src);
                            if src.1.is_some() || src.2 != 0 {
                                key_adds.insert((src.0, src.1.map_or(u32::MAX, |t| t), src.2));
                            }
                        }
                        // The subkey word: a case over the selectable subkeys. Yosys
                        // (pmux2shiftx) turns a case whose data are all distinct into a mux
                        // tree indexed by the subkey, padded to a power of two; a case with
                        // repeated data stays a pmux of its d distinct inputs, each with its
                        // decoded condition.
                        let d = exprs.len() as u32;
                        let c = cases.len() as u32;
                        if d > 1 {
                            if d == c {
                                push(Role::RoundKeySelect, mux(c.next_power_of_two()), 1, W);
                            } else {
                                push(Role::RoundKeySelect, logic(2 * d), 1, W);
                            }
                        }
                        // x + k, then the word mask (add or pass).
                        push(Role::SubkeyInjection, adder, 1, W);
                        adders.subkey += 1;
                        push(Role::SubkeyEnable, logic(3), 1, W);
                    }
                }
                Unit::Mix(_) => {
                    let rs: BTreeSet<u32> = set.iter().map(|v| v.0).collect();
                    for j in 0..nw / 2 {
                        let rots: BTreeSet<u32> = rs
                            .iter()
                            .map(|&d| rotation(nw as usize, d as usize, j as usize))
                            .collect();
                        push(Role::Mix, adder, 1, W);
                        adders.mix += 1;
                        let r = rots.len() as u32;
                        // y1 = rotl(x1, R) ^ y0: the rotation case (a mux tree indexed by
                        // the round) and the XOR, in one LUT up to a 2:1 select.
                        if r > 2 {
                            push(Role::RotationSelect, mux(r), 1, W);
                        }
                        push(Role::MixXor, logic(if r > 2 { 2 } else { 4 }), 1, W);
                        // The enable (y or x) costs no LUT of its own: with the
                        // permutation enable after it, it is absorbed by the LUTs in front of
                        // the next carry chain or XOR (in the netlists, each Mix unit after the
                        // first adds about 2 LUTs per MIX bit: the adder's and the XOR's).
                        push(Role::SubkeyEnable, fused2, 1, 2 * W);
                    }
                }
                Unit::Perm(_) => {
                    let pi = permutation(nw as usize);
                    let moved = pi.iter().enumerate().filter(|(w, p)| *w != **p).count() as u32;
                    push(Role::Permutation, fused2, moved, W);
                }
            }
        }
        // Key-schedule additions k + t and k + s, one per distinct pair in the slot; an
        // addition of the constant s needs no LUT in front of its carry chain, and one of t1
        // is as wide as t1's flags (Yosys passes the bits where t1 is 0 through).
        let t1_adds = key_adds.iter().filter(|a| a.1 == 1).count() as u32;
        let tweak_adds = key_adds.iter().filter(|a| a.1 != u32::MAX).count() as u32;
        let counter_adds = key_adds.len() as u32 - tweak_adds;
        push(Role::KeySchedule, adder, tweak_adds - t1_adds, W);
        push(Role::KeySchedule, adder, t1_adds, TWEAK_FLAG_BITS);
        push(Role::KeySchedule, Kind::Carry, counter_adds, W);
        adders.key_schedule += key_adds.len() as u32;

        if slot.done {
            // c_chain = n_st ^ a_plain, selected over the slots a block can finish in.
            push(
                Role::FeedForward,
                logic(2 * done_slots + (done_slots - 1)),
                1,
                n,
            );
        }
    }
    // Busy counters summed over the slots.
    if plan.slots.len() > 1 {
        push(Role::Control, adder, 4 * (plan.slots.len() as u32 - 1), 16);
    }

    // ---- outputs: digest, stream, valid, phase, busy counters.
    push(Role::OutputSelect, reg, 1, n + sb + 1 + PHASE_BITS);
    push(Role::Control, reg, 1, busy_ffs(&plan));
    // Phase: a tournament over the arriving blocks {valid, stream, phase}: per match a
    // comparison of the streams' distinguishing bits and a select of the winner.
    let matches = plan.slots.len() as u32 - 1;
    push(Role::Control, logic(2 * sb + 2), matches, 1);
    push(Role::Control, mux(2), matches, 1 + sb + PHASE_BITS);

    adders.total += adders.mix + adders.subkey + adders.key_schedule;
    Inventory {
        style: CoreStyle::Generated,
        adders,
        rotation_sets: 0,
        items,
    }
}

/// ROM output bits of a slot's pools: the load bit, per layer the unit select, and where it
/// has adders the first word, the adder enables, the subkey and the rotation select.
fn pool_rom_bits(pool: &PoolSlot) -> u32 {
    let mut bits = u32::from(pool.load);
    for l in &pool.layers {
        bits += bit_len(l.units);
        if l.adders > 0 {
            let offs = l.alts.keys().fold(0, |a, (_, f)| a | f);
            bits += bit_len(offs) + l.adders;
            let sk = l
                .alts
                .iter()
                .filter(|((u, _), _)| matches!(u, Unit::Add(_)))
                .flat_map(|(_, v)| v.iter())
                .fold(0, |a, v| a | v);
            bits += bit_len(sk).min(5);
            if l.alts.keys().any(|(u, _)| matches!(u, Unit::Mix(_))) {
                bits += 3;
            }
        }
    }
    bits
}

/// The elements of a slot's pools (Long 3.4): subkey 0's load bank, then per layer its pool
/// adders with their operand selects over the layer's alternatives, the subkey words they
/// pick, the rotation and XOR of the MIX results and the write-back select per word.
fn pool_items(
    pool: &PoolSlot,
    nw: u32,
    push: &mut impl FnMut(Role, Kind, u32, u32),
    adders: &mut Adders,
    key_adds: &mut BTreeSet<(u32, u32, u32)>,
) {
    let adder = Kind::Adder {
        fused_select: false,
    };
    let logic = |inputs: u32| Kind::Logic { inputs };
    let mux = |fan_in: u32| Kind::Mux {
        fan_in,
        fused: false,
    };
    let fused2 = Kind::Mux {
        fan_in: 2,
        fused: true,
    };
    let note_key = |s: u32, i: u32, key_adds: &mut BTreeSet<(u32, u32, u32)>| {
        let src = subkey_source(nw, s, i);
        if src.1.is_some() || src.2 != 0 {
            key_adds.insert((src.0, src.1.map_or(u32::MAX, |t| t), src.2));
        }
        src
    };
    if pool.load {
        for i in 0..nw {
            note_key(0, i, key_adds);
            push(Role::SubkeyInjection, adder, 1, W);
            push(Role::SubkeyEnable, logic(3), 1, W);
        }
        adders.subkey += nw;
    }
    for l in &pool.layers {
        // Writers of each state word (pool results, the permutation), for the write-back.
        let mut writers = vec![0u32; nw as usize];
        for i in 0..l.adders {
            let mut alts = 0;
            let mut key_words = BTreeSet::new();
            let mut rots = BTreeSet::new();
            let mut mix = false;
            let mut has_add = false;
            for ((unit, off), values) in &l.alts {
                let w = off + i;
                match unit {
                    Unit::Add(_) if w < nw => {
                        alts += 1;
                        has_add = true;
                        writers[w as usize] += 1;
                        for &s in values {
                            key_words.insert(note_key(s, w, key_adds));
                        }
                    }
                    Unit::Mix(_) if w < nw / 2 => {
                        alts += 1;
                        mix = true;
                        writers[2 * w as usize] += 1;
                        writers[2 * w as usize + 1] += 1;
                        for &d in values {
                            rots.insert((w, rotation(nw as usize, d as usize, w as usize)));
                        }
                    }
                    _ => {}
                }
            }
            // Alternatives of one kind (words or pairs at other offsets) select the operands
            // in the LUT in front of the carry chain ((s ? a0 : a1) ^ (s ? b0 : b1), five
            // inputs): no LUT of their own in the netlists of long-outshare-256 and
            // long-inshare-256. A subkey word and a MIX pair on one adder (the overlap) need
            // the operand selects and, the sum going to different words, two more selects.
            if alts > 1 && mix && has_add {
                push(Role::InputSelect, mux(alts), 2, W);
                push(Role::SubkeyEnable, logic(2 * alts), 2, W);
            }
            let d = key_words.len() as u32;
            if d > 1 {
                push(Role::RoundKeySelect, logic(2 * d), 1, W);
            }
            push(
                if mix {
                    Role::Mix
                } else {
                    Role::SubkeyInjection
                },
                adder,
                1,
                W,
            );
            if mix {
                adders.mix += 1;
                let r = rots.len() as u32;
                if r > 2 {
                    push(Role::RotationSelect, mux(r), 1, W);
                }
                push(Role::MixXor, logic(if r > 2 { 2 } else { 4 }), 1, W);
            } else {
                adders.subkey += 1;
            }
        }
        // Each word: its writers or the word passed through.
        for &n in &writers {
            if n > 0 {
                push(Role::SubkeyEnable, logic(2 * n + 2), 1, W);
            }
        }
        if l.perm {
            let pi = permutation(nw as usize);
            let moved = pi.iter().enumerate().filter(|(w, p)| *w != **p).count() as u32;
            push(Role::Permutation, fused2, moved, W);
        }
    }
}
