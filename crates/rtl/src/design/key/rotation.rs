//! The rotating key register of a lean slot 0 ([`Rotation`]): where the slot's key injections
//! add their subkeys in step, the key words held in the order of the subkey being added and
//! rotated after each, each injection reading it some steps on (wiring), instead of an
//! (Nw+1)-way key select per bit.

use skeinhw_sched::sim::{AdderPool, MicroOp, PoolOp, Unit};

use super::super::plan::{KeyForm, Plan, cycle_source, subkey_sources_n};
use super::super::slot::loads_on_issue;
use super::injection_uses;

/// A lean slot 0's key schedule as a rotating register (`r0_ky`): the key injections that read
/// the slot's own key add subkeys s0, s0 + k, ... in turn (each at a fixed offset from the
/// others: ath-8r's second injection adds the subkey after the first's), so rather than select
/// each subkey word's key word on the subkey number (a (Nw+1)-way select per bit), the register
/// holds the key words in the order of the subkey being added and rotates after each subkey
/// (by k steps); an injection an offset ahead reads it that many steps on, which is wiring. The
/// trace's `slot0_key_*` keep the block's key unrotated. The tweak words stay selected on the
/// subkey (a rotating tweak would not share t2's bits with t0's: more flip-flops). The
/// positions and the rotation are read off the library's key schedule ([`subkey_sources_n`])
/// and checked there for every subkey an injection adds.
pub(crate) struct Rotation {
    /// The key injections that read the register.
    pub(crate) readers: Vec<Reader>,
    /// Key word (0..=Nw) in each register position when the block is issued.
    pub(crate) key_load: Vec<usize>,
    /// The position each position takes its word from at one step.
    pub(crate) key_step: Vec<usize>,
    /// Steps per rotation.
    pub(crate) stride: usize,
    /// The cycles after which the register rotates (the last cycle of a subkey).
    pub(crate) rot_cycles: Vec<u32>,
}

/// An injection's working cycles, each with the subkey it adds then, in order.
type Uses = Vec<(u32, usize)>;

/// A key injection that reads the rotating key register.
pub(crate) struct Reader {
    /// The injection (`None`: a shared datapath's subkey layers, which all read it).
    pub(crate) unit: Option<u32>,
    /// Steps ahead of the register: the injection's subkey is the register's plus this.
    pub(crate) offset: usize,
    /// The subkey the injection adds on the cycle that issues a block, if it works then: that
    /// cycle reads the issue's key (the register is loaded at its end), selected by the ROM's
    /// `c<j>_k<a>_iss`.
    pub(crate) on_issue: Option<usize>,
}

/// Fills `load` (the words in position order) with the words missing from it, and returns the
/// step: position m takes the word that `next[m]` names (the rest in order after them).
fn rotation_step(load: &mut Vec<usize>, next: &[usize], total: usize) -> Option<Vec<usize>> {
    let rest: Vec<usize> = (0..total).filter(|w| !load.contains(w)).collect();
    load.extend(rest);
    let mut targets: Vec<usize> = next.to_vec();
    targets.extend((0..total).filter(|w| !next.contains(w)));
    targets
        .iter()
        .map(|w| load.iter().position(|x| x == w))
        .collect()
}

/// The positions `steps` steps of `step` take each position's word from.
pub(crate) fn steps_of(step: &[usize], steps: usize) -> Vec<usize> {
    (0..steps).fold((0..step.len()).collect(), |pos: Vec<usize>, _| {
        step.iter().map(|&m| pos[m]).collect()
    })
}

/// The key injections of `r` that also work on the cycle that issues a block.
pub(crate) fn issue_readers(r: &Rotation) -> impl Iterator<Item = u32> + '_ {
    r.readers
        .iter()
        .filter(|x| x.on_issue.is_some())
        .filter_map(|x| x.unit)
}

/// The key words (positions 0..Nw-1) that `reader` of slot `j` adds: the rotating register
/// `offset` steps on, or on the cycle that issues a block, the issue's key in the order of the
/// subkey it adds then.
pub(crate) fn rotated_key(plan: &Plan, j: u32, r: &Rotation, reader: &Reader) -> String {
    let n = plan.words as usize;
    let held = if reader.offset == 0 {
        format!("r{j}_ky[{}:0]", plan.nbits() - 1)
    } else {
        words_in_order(
            &format!("r{j}_ky"),
            &steps_of(&r.key_step, reader.offset)[..n],
        )
    };
    match (reader.on_issue, reader.unit) {
        (Some(s), Some(a)) => {
            let issued: Vec<String> = (0..n)
                .rev()
                .map(|i| match subkey_sources_n(plan.words, s, i).0 {
                    w if w == n => "iss_parity".to_owned(),
                    w => format!("iss_chain[{} +: 64]", 64 * w),
                })
                .collect();
            format!("(c{j}_k{a}_iss ? {{{}}} : {held})", issued.join(", "))
        }
        _ => held,
    }
}

/// Slot `j`'s rotating key register (see [`Rotation`]), where the schedule allows one.
pub(crate) fn key_rotation(plan: &Plan, j: u32) -> Option<Rotation> {
    if plan.key_form() != KeyForm::Selected || !loads_on_issue(plan, j) {
        return None;
    }
    let readers = match &plan.pool {
        Some(pool) => vec![(None, pool_injection_uses(plan, pool, j)?)],
        None => rotating_units(plan, j),
    };
    rotation_of(plan, &readers)
}

/// The key injections of slot `j` whose working cycles all read the slot's own key, but for
/// the cycle that issues a block, with their uses.
fn rotating_units(plan: &Plan, j: u32) -> Vec<(Option<u32>, Uses)> {
    let ops = plan.dp.cycle_ops();
    plan.placement.stage_units[j as usize]
        .iter()
        .filter_map(|u| match u {
            Unit::Add(a) => {
                let uses = injection_uses(plan, j, *a);
                let own = |e: u32| cycle_source(plan, e as usize) == Some(j as usize);
                let readable = uses.iter().all(|&(e, _)| {
                    ops[e as usize].slot == j as usize
                        && (own(e) || cycle_source(plan, e as usize).is_none())
                });
                (readable && uses.iter().any(|&(e, _)| own(e))).then_some((Some(*a), uses))
            }
            _ => None,
        })
        .collect()
}

/// The cycles of a shared slot `j`'s subkey layers with the subkey each adds, in order, if they
/// all read the slot's own key (the load bank's subkey 0 reads the issue's) and no cycle adds
/// two subkeys.
fn pool_injection_uses(plan: &Plan, pool: &AdderPool, j: u32) -> Option<Vec<(u32, usize)>> {
    let ops = plan.dp.cycle_ops();
    let mut uses: Vec<(u32, usize)> = Vec::new();
    for (e, cycle) in pool.cycles.iter().enumerate() {
        for op in cycle {
            if let PoolOp::Layer {
                op: MicroOp::AddSubkey { subkey, .. },
                ..
            } = op
            {
                if ops[e].slot != j as usize {
                    continue;
                }
                if cycle_source(plan, e) != Some(j as usize) {
                    return None;
                }
                match uses.last() {
                    Some(&(le, ls)) if le == e as u32 && ls != *subkey as usize => return None,
                    Some(&(le, _)) if le == e as u32 => {}
                    _ => uses.push((e as u32, *subkey as usize)),
                }
            }
        }
    }
    (!uses.is_empty()).then_some(uses)
}

/// The rotation that serves `readers` (each injection's cycles and the subkeys it adds, in
/// order), if on the slot's own cycles they all start together and each adds the subkey a
/// fixed offset from the others', the subkeys advance by a fixed stride, and the library's key
/// schedule agrees at every one. An injection may also work on the cycle that issues a block.
fn rotation_of(plan: &Plan, readers: &[(Option<u32>, Uses)]) -> Option<Rotation> {
    let n = plan.words as usize;
    let issued = |e: u32| cycle_source(plan, e as usize).is_none();
    // Each reader's uses on the slot's own cycles, and the subkey it adds on the issue's.
    let mut own: Vec<Uses> = Vec::new();
    let mut on_issue: Vec<Option<usize>> = Vec::new();
    for (_, uses) in readers {
        let (iss, mine): (Vec<_>, Vec<_>) = uses.iter().partition(|u| issued(u.0));
        match iss[..] {
            [] => on_issue.push(None),
            [(_, s)] => on_issue.push(Some(s)),
            _ => return None,
        }
        own.push(mine);
    }
    let first = own
        .iter()
        .map(|u| u.first().map(|f| f.0))
        .collect::<Option<Vec<_>>>()?;
    let e0 = *first.first()?;
    if first.iter().any(|&e| e != e0) {
        return None;
    }
    let base0 = own.iter().map(|u| u[0].1).min()?;
    let offsets: Vec<usize> = own.iter().map(|u| u[0].1 - base0).collect();
    // The register's subkey on each own cycle, the same for every reader working then.
    let mut bases: Vec<(u32, usize)> = own
        .iter()
        .zip(&offsets)
        .flat_map(|(uses, &o)| uses.iter().map(move |&(e, s)| (e, s.checked_sub(o))))
        .map(|(e, s)| s.map(|s| (e, s)))
        .collect::<Option<Vec<_>>>()?;
    bases.sort_unstable();
    bases.dedup();
    if bases
        .windows(2)
        .any(|w| w[0].0 == w[1].0 || w[1].1 < w[0].1)
    {
        return None;
    }
    let mut strides: Vec<usize> = bases.windows(2).map(|w| w[1].1 - w[0].1).collect();
    strides.retain(|&k| k != 0);
    strides.dedup();
    let [stride] = strides[..] else { return None };
    let table = |s: usize, i: usize| subkey_sources_n(plan.words, s, i);
    let mut key_load: Vec<usize> = (0..n).map(|i| table(base0, i).0).collect();
    let key_next: Vec<usize> = (0..n).map(|i| table(base0 + 1, i).0).collect();
    let key_step = rotation_step(&mut key_load, &key_next, n + 1)?;
    let rot_cycles: Vec<u32> = bases
        .windows(2)
        .filter(|w| w[1].1 != w[0].1)
        .map(|w| w[0].0)
        .collect();
    // Check every subkey each injection adds against the key schedule.
    let rotate = steps_of(&key_step, stride);
    let ahead: Vec<Vec<usize>> = offsets.iter().map(|&o| steps_of(&key_step, o)).collect();
    let mut keys = key_load.clone();
    for &(e, _) in &bases {
        for (uses, pos) in own.iter().zip(&ahead) {
            let view: Vec<usize> = pos.iter().map(|&m| keys[m]).collect();
            for &(_, s) in uses.iter().filter(|u| u.0 == e) {
                if (0..n).any(|i| view[i] != table(s, i).0) {
                    return None;
                }
            }
        }
        if rot_cycles.contains(&e) {
            keys = rotate.iter().map(|&m| keys[m]).collect();
        }
    }
    let readers = readers
        .iter()
        .zip(offsets)
        .zip(on_issue)
        .map(|(((unit, _), offset), on_issue)| Reader {
            unit: *unit,
            offset,
            on_issue,
        })
        .collect();
    Some(Rotation {
        readers,
        key_load,
        key_step,
        stride,
        rot_cycles,
    })
}

/// `{w[pos[last]], ..., w[pos[0]]}`: the 64-bit words of `w` in the order `pos` gives.
pub(crate) fn words_in_order(w: &str, pos: &[usize]) -> String {
    let parts: Vec<String> = pos
        .iter()
        .rev()
        .map(|p| format!("{w}[{} +: 64]", 64 * p))
        .collect();
    format!("{{{}}}", parts.join(", "))
}
