//! The event matcher both algorithms share: where each mapped register view's words are in the
//! samples (built from the map), how a view is read on an edge (its `when` qualifiers, known
//! values only, a held value counted once), and which expected event a new value is (the
//! nearest one at or after the next expected of its family, over every stream). What a match
//! or a miss then means (Threefish's runs of equal events, where a gap is kept) and the report
//! stay with each family: `event` and `shabal_event`, through the
//! [`EventSource`] that the engine's queues implement.

use std::collections::{BTreeMap, HashMap};

use crate::error::DiffError;
use crate::map::SignalMap;
use crate::report::{DiffReport, Divergence, Verdict};
use crate::wave::{Bits, Probe};

/// The expected events of one algorithm, as the matcher reads them: per stream, per register
/// family, a list of events in order, and the next one not yet seen.
pub(crate) trait EventSource {
    /// What a register view holds (Threefish: state, state before, key, tweak; Shabal: A, B, C).
    type Family: Copy;

    /// The streams, in order.
    fn stream_ids(&self) -> Vec<u32>;

    /// The words of event `j` of `family` in `stream` (None past the last).
    fn words(&self, stream: u32, family: Self::Family, j: usize) -> Option<&[u64]>;

    /// The index of the next event of `family` expected in `stream`.
    fn next(&self, stream: u32, family: Self::Family) -> usize;

    /// The block event `j` of `family` in `stream` belongs to (None past the last).
    fn block(&self, stream: u32, family: Self::Family, j: usize) -> Option<usize>;

    /// Event `j` of `family` in `stream` was matched.
    fn seen(&self, stream: u32, family: Self::Family, j: usize) -> bool;
}

/// One mapped register view: a family's words at positions of the sample list.
#[derive(Clone, Debug)]
pub struct View<F> {
    /// The register family.
    pub family: F,
    /// The field names (for the report).
    pub fields: Vec<String>,
    /// (word index within the event, position in the samples) of each mapped word.
    pub words: Vec<(usize, usize)>,
    /// Positions of the qualifier samples (all must be 1).
    pub when: Vec<usize>,
}

/// The probes a layout samples, each once.
#[derive(Default)]
pub(crate) struct ProbeList(pub(crate) Vec<Probe>);

impl ProbeList {
    /// The position of `p` in the sample list (added if new).
    pub(crate) fn index_of(&mut self, p: &Probe) -> usize {
        match self.0.iter().position(|q| q == p) {
            Some(i) => i,
            None => {
                self.0.push(p.clone());
                self.0.len() - 1
            }
        }
    }
}

/// The register views of `map`: `classify` names a field's view (a key to group by, its
/// family) and word, or None for a field that is no register view; each view's words sorted.
pub(crate) fn views_of_map<K: Ord, F>(
    map: &SignalMap,
    probes: &mut ProbeList,
    classify: impl Fn(&str) -> Option<(K, F, usize)>,
) -> Vec<View<F>> {
    let mut groups: BTreeMap<K, View<F>> = BTreeMap::new();
    for (field, probe) in &map.fields {
        let Some((key, family, w)) = classify(field) else {
            continue;
        };
        let pos = probes.index_of(probe);
        let view = groups.entry(key).or_insert_with(|| View {
            family,
            fields: Vec::new(),
            words: Vec::new(),
            when: Vec::new(),
        });
        view.fields.push(field.clone());
        view.words.push((w, pos));
        if let Some(q) = map.when.get(field) {
            let qpos = probes.index_of(q);
            if !view.when.contains(&qpos) {
                view.when.push(qpos);
            }
        }
    }
    for view in groups.values_mut() {
        let mut order: Vec<usize> = (0..view.words.len()).collect();
        order.sort_by_key(|&i| view.words[i].0);
        view.words = order.iter().map(|&i| view.words[i]).collect();
        view.fields = order.iter().map(|&i| view.fields[i].clone()).collect();
    }
    groups.into_values().collect()
}

/// The parallel digest port of `map`: `out_valid`'s position and each mapped `out_data_<w>`
/// (w < `words`) with its position.
pub(crate) fn digest_port(
    map: &SignalMap,
    words: usize,
    probes: &mut ProbeList,
) -> Option<(usize, Vec<(usize, usize)>)> {
    let valid = map.fields.get("out_valid")?;
    let v = probes.index_of(valid);
    let ws = (0..words)
        .filter_map(|w| map.fields.get(&format!("out_data_{w}")).map(|p| (w, p)))
        .map(|(w, p)| (w, probes.index_of(p)))
        .collect();
    Some((v, ws))
}

/// A known 1.
pub(crate) fn is_one(b: &Bits) -> bool {
    b.unknown.is_none() && b.words.first() == Some(&1)
}

/// A known value of at most 64 bits.
pub(crate) fn known(b: &Bits) -> Option<u64> {
    if b.unknown.is_some() || b.words.iter().skip(1).any(|w| *w != 0) {
        None
    } else {
        Some(b.words.first().copied().unwrap_or(0))
    }
}

/// A stream whose current block (that of its last matched event of `family`) has an event
/// already seen with the view's value: (stream, its last matched event).
fn repeat<S: EventSource>(
    src: &S,
    family: S::Family,
    same: &dyn Fn(&[u64]) -> bool,
) -> Option<(u32, usize)> {
    src.stream_ids().into_iter().find_map(|k| {
        let last = src.next(k, family).checked_sub(1)?;
        let block = src.block(k, family, last);
        (0..=last)
            .rev()
            .take_while(|&j| src.block(k, family, j) == block)
            .any(|j| src.seen(k, family, j) && src.words(k, family, j).is_some_and(same))
            .then_some((k, last))
    })
}

/// What a view showed on an edge.
pub(crate) enum Seen {
    /// Not compared (a qualifier at 0, or an unknown word), or the value it already held.
    Nothing,
    /// Event `j` of `stream`: the nearest one at or after the next expected.
    Event(u32, usize),
    /// A new value that is no expected event.
    Other {
        /// The value's words, in view order.
        value: Vec<u64>,
    },
}

/// Per view: the lookup from its first mapped word to the events with that word, its value at
/// the last compared edge, the stream and event of its last match, and the edges compared.
pub(crate) struct Matcher {
    lookup: Vec<HashMap<u64, Vec<(u32, usize)>>>,
    last: Vec<Option<Vec<u64>>>,
    /// Per view: the stream and event index of its last match (the family decides when to
    /// set and clear it).
    pub(crate) armed: Vec<Option<(u32, usize)>>,
    /// Per view: the stream and event index of its last match, kept when a value that is no
    /// event disarms it (the values after it are where the next events were due).
    pub(crate) last_match: Vec<Option<(u32, usize)>>,
    /// Per view: edges on which it was compared with known values.
    pub(crate) compared: Vec<u64>,
}

impl Matcher {
    /// A matcher of `views` against the events of `src`.
    pub(crate) fn new<S: EventSource>(src: &S, views: &[View<S::Family>]) -> Matcher {
        let lookup = views
            .iter()
            .map(|v| {
                let first = v.words[0].0;
                let mut m: HashMap<u64, Vec<(u32, usize)>> = HashMap::new();
                for stream in src.stream_ids() {
                    let mut j = 0;
                    while let Some(words) = src.words(stream, v.family, j) {
                        m.entry(words[first]).or_default().push((stream, j));
                        j += 1;
                    }
                }
                m
            })
            .collect();
        let n = views.len();
        Matcher {
            lookup,
            last: vec![None; n],
            armed: vec![None; n],
            last_match: vec![None; n],
            compared: vec![0; n],
        }
    }

    /// Reads view `vi` on one edge and looks its value up among the events of `src`.
    pub(crate) fn see<S: EventSource>(
        &mut self,
        src: &S,
        views: &[View<S::Family>],
        vi: usize,
        samples: &[Bits],
    ) -> Seen {
        let view = &views[vi];
        if !view.when.iter().all(|&q| is_one(&samples[q])) {
            return Seen::Nothing;
        }
        let Some(value): Option<Vec<u64>> = view
            .words
            .iter()
            .map(|&(_, p)| known(&samples[p]))
            .collect()
        else {
            return Seen::Nothing;
        };
        self.compared[vi] += 1;
        let family = view.family;
        let same = |words: &[u64]| {
            view.words
                .iter()
                .zip(&value)
                .all(|(&(w, _), v)| words[w] == *v)
        };
        if self.last[vi].as_ref() == Some(&value) {
            // Streams taking turns in one register may hold equal values (every stream's
            // Config block is the same): the register did not change but holds another block.
            return match self.other_stream_next(src, vi, family, &same) {
                Some((stream, j)) => Seen::Event(stream, j),
                None => Seen::Nothing,
            };
        }
        // The nearest event with these words, first among those of the block its stream is
        // in: several streams may expect equal values.
        let mut best: Option<((bool, usize), u32, usize)> = None;
        for &(stream, j) in self.lookup[vi].get(&value[0]).into_iter().flatten() {
            let next = src.next(stream, family);
            if j < next || !src.words(stream, family, j).is_some_and(same) {
                continue;
            }
            let key = (
                src.block(stream, family, next) != src.block(stream, family, j),
                j - next,
            );
            if best.is_none_or(|(k, _, _)| key < k) {
                best = Some((key, stream, j));
            }
        }
        // A block coming back into the register shows a value already matched in its block:
        // nothing new, unless a stream expects that value in the block it is in. Otherwise an
        // event of a later block (another stream's equal Output tweak) is taken for it.
        if best.is_none_or(|((later_block, _), _, _)| later_block)
            && let Some(at) = repeat(src, family, &same)
        {
            self.armed[vi] = Some(at);
            self.last[vi] = Some(value);
            return Seen::Nothing;
        }
        let best = best.map(|(key, stream, j)| (stream, j, key.1));
        match best {
            Some((stream, j, _)) => {
                self.last[vi] = Some(value);
                Seen::Event(stream, j)
            }
            None => {
                self.last[vi] = Some(value.clone());
                Seen::Other { value }
            }
        }
    }

    /// The nearest event with the view's value that a stream other than the one last matched
    /// on view `vi` expects next in the block it is in: (stream, event index).
    fn other_stream_next<S: EventSource>(
        &self,
        src: &S,
        vi: usize,
        family: S::Family,
        same: &dyn Fn(&[u64]) -> bool,
    ) -> Option<(u32, usize)> {
        let last_stream = self.armed[vi].map(|(s, _)| s);
        src.stream_ids()
            .into_iter()
            .filter(|&k| Some(k) != last_stream)
            .filter_map(|k| {
                let next = src.next(k, family);
                let block = src.block(k, family, next)?;
                let j = (next..)
                    .take_while(|&j| src.block(k, family, j) == Some(block))
                    .find(|&j| src.words(k, family, j).is_some_and(same))?;
                Some((j - next, k, j))
            })
            .min()
            .map(|(_, k, j)| (k, j))
    }

    /// An error when nothing was compared, or a view never was (named by its first field).
    pub(crate) fn check_compared<F>(
        &self,
        views: &[View<F>],
        compared_edges: u64,
        edges: u64,
    ) -> Result<(), DiffError> {
        if compared_edges == 0 {
            return Err(DiffError::Invalid(format!(
                "nothing compared: the RTL has {edges} rising edge(s), all skipped as reset cycles"
            )));
        }
        for (vi, view) in views.iter().enumerate() {
            if self.compared[vi] == 0 {
                return Err(DiffError::Invalid(format!(
                    "map field '{}' was never compared: on no edge did it hold a known value{}",
                    view.fields[0],
                    if view.when.is_empty() {
                        ""
                    } else {
                        " with its 'when' qualifier at 1"
                    }
                )));
            }
        }
        Ok(())
    }
}

/// What an event comparison found, made into its [`DiffReport`] by [`report`].
pub(crate) struct Tally<'a, F> {
    pub(crate) views: &'a [View<F>],
    pub(crate) divergence: Option<Divergence>,
    /// "4 digest word(s)", "1 digest(s)", "no digest port mapped", ...
    pub(crate) digest_text: String,
    /// Digest port signals compared (valid included).
    pub(crate) digest_fields: usize,
    pub(crate) expected: u64,
    pub(crate) matched: u64,
    pub(crate) edges: u64,
    pub(crate) compared_edges: u64,
    pub(crate) golden_cycles: u64,
    /// Per block, the kinds seen.
    pub(crate) blocks: Vec<String>,
    pub(crate) left_out: &'a [String],
}

/// The verdict and its one-line summary: DIVERGENT at the first divergence, else IDENTICAL
/// with the true counts ("digest only" when no register view was mapped), and what a partial
/// map left out.
pub(crate) fn report<F>(t: Tally<'_, F>) -> DiffReport {
    let left_out = if t.left_out.is_empty() {
        String::new()
    } else {
        format!("; partial map, not compared: {}", t.left_out.join(", "))
    };
    let (verdict, summary) = match &t.divergence {
        Some(d) => (
            Verdict::Divergent,
            format!("DIVERGENT (event alignment): {}{left_out}", d.phase),
        ),
        None if t.views.is_empty() => (
            Verdict::Identical,
            format!(
                "IDENTICAL (event alignment, digest only): {} matched over {} RTL \
                 cycles{left_out}",
                t.digest_text, t.edges
            ),
        ),
        None => (
            Verdict::Identical,
            format!(
                "IDENTICAL (event alignment): {} of {} expected events matched, {}, over {} \
                 RTL cycles{left_out}",
                t.matched, t.expected, t.digest_text, t.edges
            ),
        ),
    };
    DiffReport {
        verdict,
        compared_cycles: t.compared_edges,
        golden_cycles: t.golden_cycles,
        rtl_edges: t.edges,
        fields: t.views.iter().map(|v| v.words.len()).sum::<usize>() + t.digest_fields,
        first_divergence: t.divergence,
        events_expected: t.expected,
        events_matched: t.matched,
        blocks: t.blocks,
        left_out: t.left_out.to_vec(),
        summary,
    }
}
