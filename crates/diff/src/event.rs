//! Event alignment, for RTL of another schedule or latency (a design someone else wrote): the
//! golden trace is reduced to the architectural events of each UBI block, in the spec's terms,
//! computed with the library's Threefish from the block's key, tweak and output:
//!
//! - the state after each subkey injection s = 0..Nr/4 (optional: a design registers only some),
//! - the chaining value after the feed-forward (optional),
//! - each digest block leaving the design (mandatory).
//!
//! The RTL's mapped state registers are scanned edge by edge; each stream's events must appear
//! in order (skipping the optional ones a design never registers). A digest block that matches
//! no expected one, or an expected digest never seen, is a divergence, reported with the last
//! event that did match: the fault lies between the two.

use std::collections::BTreeMap;
use std::path::Path;

use skeinhw_sched::sim::{OwnedCycleRecord, TraceHeader};
use skeinhw_skein::threefish::{KeySchedule, decrypt, inject_subkey, round};
use skeinhw_trace::names;

use crate::cycle::CycleOptions;
use crate::error::DiffError;
use crate::map::SignalMap;
use crate::report::{ContextRow, DiffReport, Divergence, FieldDiff, SlotWhere, Verdict};
use crate::wave::{Bits, Probe, sample_rising_edges};

/// What an event is, in the spec's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The state after subkey s was added.
    AfterSubkey(u32),
    /// The chaining value after the feed-forward.
    FeedForward,
}

#[derive(Clone, Debug)]
struct Event {
    block: u64,
    kind: Kind,
    words: Vec<u64>,
}

#[derive(Clone, Debug, Default)]
struct Stream {
    events: Vec<Event>,
    next: usize,
    last_matched: Option<(usize, u64)>,
    digests: Vec<(u64, Vec<u64>)>,
    next_digest: usize,
}

fn threefish_events<const N: usize>(
    key: &[u64],
    tweak: [u64; 2],
    out: &[u64],
) -> Vec<(Kind, Vec<u64>)> {
    let key: [u64; N] = key[..N].try_into().expect("N key words");
    let cipher: [u64; N] = out[..N].try_into().expect("N state words");
    let plain = decrypt(&key, tweak, &cipher);
    let ks = KeySchedule::new(&key, tweak);
    let rounds = skeinhw_skein::constants::rounds(N);
    let mut state = plain;
    let mut v = Vec::new();
    for d in 0..rounds {
        if d % 4 == 0 {
            inject_subkey(&mut state, &ks, d / 4);
            v.push((Kind::AfterSubkey((d / 4) as u32), state.to_vec()));
        }
        round(&mut state, d);
    }
    inject_subkey(&mut state, &ks, rounds / 4);
    v.push((Kind::AfterSubkey((rounds / 4) as u32), state.to_vec()));
    let ff: Vec<u64> = (0..N).map(|i| state[i] ^ plain[i]).collect();
    v.push((Kind::FeedForward, ff));
    v
}

/// Reads the golden trace and lists each stream's events and digest blocks.
fn golden_events<E: std::fmt::Display>(
    header: &TraceHeader,
    golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
) -> Result<(BTreeMap<u32, Stream>, u64), DiffError> {
    let nw = header.words;
    let rounds = header.schedule.rounds();
    let subkeys = header.schedule.subkeys();
    let mut streams: BTreeMap<u32, Stream> = BTreeMap::new();
    let mut cycles = 0;
    let mut seen: std::collections::HashSet<(u32, u64)> = Default::default();
    for r in golden {
        let r = r.map_err(|e| DiffError::Invalid(format!("golden trace: {e}")))?;
        cycles += 1;
        for s in r.slots.iter().filter(|s| s.valid) {
            if s.round == rounds && s.subkey == subkeys && seen.insert((s.stream, s.block)) {
                let tweak = [s.tweak[0], s.tweak[1]];
                let evs = match nw {
                    4 => threefish_events::<4>(&s.key, tweak, &s.state),
                    8 => threefish_events::<8>(&s.key, tweak, &s.state),
                    _ => threefish_events::<16>(&s.key, tweak, &s.state),
                };
                let st = streams.entry(s.stream).or_default();
                st.events.extend(evs.into_iter().map(|(kind, words)| Event {
                    block: s.block,
                    kind,
                    words,
                }));
            }
        }
        if let Some(o) = r.out {
            streams
                .entry(o.stream)
                .or_default()
                .digests
                .push((o.index, o.data[..nw].to_vec()));
        }
    }
    Ok((streams, cycles))
}

fn words_of(samples: &[Bits]) -> Option<Vec<u64>> {
    samples
        .iter()
        .map(|b| {
            b.unknown
                .is_none()
                .then(|| b.words.first().copied().unwrap_or(0))
        })
        .collect()
}

fn describe(e: &Event) -> String {
    match e.kind {
        Kind::AfterSubkey(s) => format!("block {} after subkey {s}", e.block),
        Kind::FeedForward => format!("block {} after the feed-forward", e.block),
    }
}

/// Compares at architectural events (see the module documentation).
pub fn compare_events<E: std::fmt::Display>(
    header: &TraceHeader,
    golden: impl Iterator<Item = Result<OwnedCycleRecord, E>>,
    wave: &Path,
    map: &SignalMap,
    options: &CycleOptions,
) -> Result<DiffReport, DiffError> {
    let nw = header.words;
    let (mut streams, golden_cycles) = golden_events(header, golden)?;
    // The state registers the map provides: every slot whose Nw words are all mapped.
    let mut probes: Vec<Probe> = Vec::new();
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    for slot in 0..header.slots.max(1) {
        let fields: Vec<String> = (0..nw)
            .map(|w| names::slot(slot, &format!("state_{w}")))
            .collect();
        if fields.iter().all(|f| map.fields.contains_key(f)) {
            let start = probes.len();
            probes.extend(fields.iter().map(|f| map.fields[f].clone()));
            groups.push(start..probes.len());
        }
    }
    let out_fields: Vec<String> = std::iter::once(names::OUT_VALID.to_string())
        .chain((0..nw).map(names::out_data))
        .collect();
    let has_out = out_fields.iter().all(|f| map.fields.contains_key(f));
    let out_start = probes.len();
    if has_out {
        probes.extend(out_fields.iter().map(|f| map.fields[f].clone()));
    }
    if groups.is_empty() && !has_out {
        return Err(DiffError::Invalid(format!(
            "event alignment needs the state words (slot0_state_0..slot0_state_{}) or the \
             digest (out_valid, out_data_*) in the map",
            nw - 1
        )));
    }
    let mut wave_options = options.wave.clone();
    if let Some(c) = &map.clock {
        wave_options.clock = c.clone();
    }
    let mut divergence: Option<Divergence> = None;
    let mut edges_seen = 0u64;
    let stats = sample_rising_edges(wave, &wave_options, &probes, |edge, time, samples| {
        edges_seen = edge + 1;
        if edge < options.reset_cycles {
            return true;
        }
        for g in &groups {
            let Some(state) = words_of(&samples[g.clone()]) else {
                continue;
            };
            for st in streams.values_mut() {
                if let Some(j) = (st.next..st.events.len()).find(|&j| st.events[j].words == state) {
                    st.last_matched = Some((j, edge));
                    st.next = j + 1;
                    break;
                }
            }
        }
        if has_out {
            let out = &samples[out_start..];
            let valid = out[0].unknown.is_none() && out[0].words.first() == Some(&1);
            if valid {
                let data = words_of(&out[1..]);
                let matched = data.as_ref().and_then(|d| {
                    streams.values_mut().find_map(|st| {
                        let ok = st.digests.get(st.next_digest).is_some_and(|(_, w)| w == d);
                        if ok {
                            st.next_digest += 1;
                        }
                        ok.then_some(())
                    })
                });
                if matched.is_none() {
                    let (stream, st) = streams
                        .iter()
                        .find(|(_, st)| st.next_digest < st.digests.len())
                        .map(|(k, v)| (*k, v.clone()))
                        .unwrap_or_default();
                    let expected = st.digests.get(st.next_digest).cloned().unwrap_or_default();
                    divergence = Some(event_divergence(
                        edge,
                        time,
                        stream,
                        &st,
                        Some((&expected.1, &out[1..])),
                    ));
                    return false;
                }
            }
        }
        true
    })?;
    if stats.edges == 0 {
        return Err(DiffError::Invalid(format!(
            "{}: no rising edge of clock '{}'",
            wave.display(),
            wave_options.clock
        )));
    }
    if divergence.is_none() {
        // Every digest block must have left the design.
        if let Some((stream, st)) = streams
            .iter()
            .find(|(_, st)| has_out && st.next_digest < st.digests.len())
        {
            divergence = Some(event_divergence(
                stats.edges,
                stats.last_time,
                *stream,
                st,
                None,
            ));
        } else if !has_out {
            // Without the digest, the last event of every stream must have been seen.
            if let Some((stream, st)) = streams.iter().find(|(_, st)| {
                st.last_matched.map(|m| m.0 + 1) != Some(st.events.len()) && !st.events.is_empty()
            }) {
                divergence = Some(event_divergence(
                    stats.edges,
                    stats.last_time,
                    *stream,
                    st,
                    None,
                ));
            }
        }
    }
    let matched: usize = streams
        .values()
        .map(|s| s.last_matched.map_or(0, |m| m.0 + 1))
        .sum();
    let digests: usize = streams.values().map(|s| s.next_digest).sum();
    let (verdict, summary) = match &divergence {
        Some(d) => (
            Verdict::Divergent,
            format!(
                "DIVERGENT (event alignment) at RTL edge {}: {}",
                d.rtl_edge, d.phase
            ),
        ),
        None => (
            Verdict::Identical,
            format!(
                "IDENTICAL (event alignment): {digests} digest block(s) and the state through \
                 {matched} architectural events matched over {} RTL cycles",
                stats.edges
            ),
        ),
    };
    let _ = edges_seen;
    Ok(DiffReport {
        verdict,
        compared_cycles: stats.edges.saturating_sub(options.reset_cycles),
        golden_cycles,
        rtl_edges: stats.edges,
        fields: probes.len(),
        first_divergence: divergence,
        summary,
    })
}

fn event_divergence(
    edge: u64,
    time: u64,
    stream: u32,
    st: &Stream,
    digest: Option<(&Vec<u64>, &[Bits])>,
) -> Divergence {
    let last = st
        .last_matched
        .map(|(j, e)| format!("{} (RTL edge {e})", describe(&st.events[j])));
    let next = st.events.get(st.next).map(describe);
    let phase = match (&last, &next) {
        (Some(l), Some(n)) => format!(
            "stream {stream}: last matching event {l}; never seen: {n} (the fault lies between)"
        ),
        (None, Some(n)) => format!("stream {stream}: no event matched; never seen: {n}"),
        (Some(l), None) => {
            format!("stream {stream}: every state event matched up to {l}; the digest differs")
        }
        (None, None) => format!("stream {stream}: the digest differs"),
    };
    let mut fields = Vec::new();
    if let Some((expected, got)) = digest {
        for (w, (e, g)) in expected.iter().zip(got).enumerate() {
            let rtl = g.to_hex();
            let golden = format!("{e:016x}");
            if rtl != golden {
                fields.push(FieldDiff {
                    field: names::out_data(w),
                    golden,
                    rtl,
                    unknown: g.unknown.is_some(),
                });
            }
        }
    }
    let location = st
        .events
        .get(st.next)
        .map(|e| SlotWhere {
            slot: 0,
            stream,
            phase: "event".into(),
            block: e.block,
            round: match e.kind {
                Kind::AfterSubkey(s) => 4 * s,
                Kind::FeedForward => 0,
            },
            subkey: match e.kind {
                Kind::AfterSubkey(s) => s,
                Kind::FeedForward => 0,
            },
        })
        .into_iter()
        .collect();
    Divergence {
        cycle: edge,
        rtl_edge: edge,
        time,
        phase,
        location,
        fields,
        context: Vec::<ContextRow>::new(),
    }
}
