//! Driving the engine: each edge's register views read and their values taken in the queues,
//! the waveform sampled edge by edge, and the pieces of a divergence both algorithms report
//! alike.

use std::collections::BTreeMap;
use std::path::Path;

use super::matcher::{Matcher, Seen, View};
use super::queue::{FamilyIndex, StreamQueue};
use crate::error::DiffError;
use crate::map::SignalMap;
use crate::options::{CycleOptions, WaveOptions};
use crate::report::{Divergence, FieldDiff};
use crate::wave::{Bits, Probe, sample_rising_edges};

/// A value a view took that is no expected event, handed to the algorithm to keep as a gap.
pub(crate) struct Taken {
    /// The view.
    pub(crate) vi: usize,
    pub(crate) edge: u64,
    pub(crate) time: u64,
    /// The value's words, in view order.
    pub(crate) value: Vec<u64>,
    /// The stream and event of the view's last match, if any.
    pub(crate) armed: Option<(u32, usize)>,
    /// The same, kept after the first value that was no event.
    pub(crate) last_match: Option<(u32, usize)>,
}

/// A digest that differed, or was never seen.
#[derive(Clone, Debug)]
pub(crate) struct DigestFault {
    pub(crate) stream: u32,
    pub(crate) edge: u64,
    pub(crate) time: u64,
    pub(crate) expected: Vec<u64>,
    pub(crate) got: Option<Vec<Bits>>,
    pub(crate) what: String,
}

/// The state of one event comparison besides its expected events: the matcher, the edges
/// counted, and the first digest fault.
pub(crate) struct Engine {
    pub(crate) matcher: Matcher,
    /// RTL edges (the last one's index + 1, or the waveform's count at the end).
    pub(crate) edges: u64,
    pub(crate) last_time: u64,
    pub(crate) compared_edges: u64,
    pub(crate) digest_fault: Option<DigestFault>,
    /// Per view: an event of a later block not yet taken (see [`Engine::views_edge`]).
    pending: Vec<Option<Pending>>,
}

/// An event a view showed ahead of its stream's current block, held until the view's next
/// value says whether the design really moved on (issue 33: a register's 0 after reset equals
/// the Output block's input while the Config and message blocks are still due).
#[derive(Clone, Copy, Debug)]
struct Pending {
    stream: u32,
    family: usize,
    j: usize,
    edge: u64,
    time: u64,
}

impl Engine {
    /// An engine matching `views` against `streams`.
    pub(crate) fn new<S: StreamQueue>(
        streams: &BTreeMap<u32, S>,
        views: &[View<S::Family>],
    ) -> Engine {
        Engine {
            matcher: Matcher::new(streams, views),
            edges: 0,
            last_time: 0,
            compared_edges: 0,
            digest_fault: None,
            pending: vec![None; views.len()],
        }
    }

    /// Takes event `j` of `family` in `stream`'s queue for view `vi` (unless the queue has
    /// moved past it).
    #[allow(clippy::too_many_arguments)]
    fn take<S: StreamQueue>(
        &mut self,
        streams: &mut BTreeMap<u32, S>,
        vi: usize,
        family: usize,
        (stream, j): (u32, usize),
        (edge, time): (u64, u64),
        runs: bool,
    ) {
        // Events of the stream held by other views (a pipeline shows one stream's events in
        // several slots) come first: a later event of theirs confirms them.
        let mut earlier: Vec<(usize, usize)> = (0..self.pending.len())
            .filter_map(|w| {
                let p = self.pending[w]?;
                (w != vi && p.stream == stream && p.family == family && p.j < j).then_some((p.j, w))
            })
            .collect();
        earlier.sort_unstable();
        for (_, w) in earlier {
            let p = self.pending[w].take().expect("held");
            self.take(streams, w, family, (p.stream, p.j), (p.edge, p.time), runs);
        }
        let st = streams.get_mut(&stream).expect("stream");
        if j < st.queue().next(family) {
            return;
        }
        let last = st.queue_mut().take(family, j, edge, time, runs);
        self.matcher.armed[vi] = Some((stream, last));
        self.matcher.last_match[vi] = Some((stream, last));
    }

    /// Whether event `j` of `family` lies in a later block than its stream's current one (that
    /// of the next event expected).
    fn ahead<S: StreamQueue>(st: &S, family: usize, j: usize) -> bool {
        let q = st.queue();
        let evs = q.events(family);
        let (Some(cur), Some(at)) = (evs.get(q.next(family)), evs.get(j)) else {
            return false;
        };
        at.block > cur.block
    }

    /// Whether the stream may leave its current block (that of its next expected event of
    /// `family`) for a value that is no event: none of the block's events was seen (a design
    /// without that block), or at most its last one is still unseen (the feed-forward, which
    /// not every design registers). A block with more of its events due is not left.
    fn may_leave<S: StreamQueue>(st: &S, family: usize) -> bool {
        let q = st.queue();
        let evs = q.events(family);
        let Some(cur) = evs.get(q.next(family)) else {
            return true;
        };
        let in_block = || (0..evs.len()).filter(|&k| evs[k].block == cur.block);
        let last = in_block().max().unwrap_or(0);
        match in_block().filter(|&k| evs[k].seen.is_some()).max() {
            None => true,
            Some(seen) => seen + 1 >= last,
        }
    }

    /// Takes the pending events of every view whose stream may leave its current block: the
    /// waveform ended.
    pub(crate) fn settle<S: StreamQueue>(
        &mut self,
        streams: &mut BTreeMap<u32, S>,
        views: &[View<S::Family>],
        runs: bool,
    ) {
        for (vi, view) in views.iter().enumerate() {
            let family = view.family.index();
            if let Some(p) = self.pending[vi].take()
                && Self::may_leave(&streams[&p.stream], family)
            {
                self.take(streams, vi, family, (p.stream, p.j), (p.edge, p.time), runs);
            }
        }
    }

    /// One RTL edge's register views: the edge is counted, each view read; a match is taken
    /// in its stream's queue (`runs`: see [`super::queue::Queue::take`]), a value that is no
    /// event goes to `gap` (`disarm`: the view forgets its last match then).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn views_edge<S: StreamQueue>(
        &mut self,
        streams: &mut BTreeMap<u32, S>,
        views: &[View<S::Family>],
        (edge, time): (u64, u64),
        samples: &[Bits],
        runs: bool,
        disarm: bool,
        mut gap: impl FnMut(&mut BTreeMap<u32, S>, Taken),
    ) {
        self.edges = self.edges.max(edge + 1);
        self.last_time = time;
        self.compared_edges += 1;
        for vi in 0..views.len() {
            let family = views[vi].family.index();
            let seen = self.matcher.see(&*streams, views, vi, samples);
            match seen {
                Seen::Nothing => {}
                Seen::Event(stream, j) => {
                    // An event of a later block is held: taken once the view's next value is
                    // an event that is not of an earlier block of the stream, or is no event
                    // while the stream may leave its current block (see `Other`). A value seen before
                    // its event is due (reset, idle, a round's word equal to a later one) is
                    // never a reason to jump ahead.
                    if let Some(p) = self.pending[vi].take() {
                        let evs = streams[&p.stream].queue().events(family);
                        let earlier = stream == p.stream
                            && streams[&stream].queue().events(family)[j].block < evs[p.j].block;
                        if !earlier {
                            self.take(streams, vi, family, (p.stream, p.j), (p.edge, p.time), runs);
                        }
                    }
                    // All zeros (what a register resets to) ahead of the stream's block: the
                    // Output block's input, the empty message's block, never a later block's
                    // event seen early (issue 33: a core computing a Config block the golden
                    // schedule precomputes held its reset 0 while that block ran).
                    let zeros = || {
                        let ev = &streams[&stream].queue().events(family)[j];
                        views[vi].words.iter().all(|&(w, _)| ev.words[w] == 0)
                    };
                    if Self::ahead(&streams[&stream], family, j) && zeros() {
                        continue;
                    }
                    if Self::ahead(&streams[&stream], family, j) {
                        self.pending[vi] = Some(Pending {
                            stream,
                            family,
                            j,
                            edge,
                            time,
                        });
                    } else {
                        self.take(streams, vi, family, (stream, j), (edge, time), runs);
                    }
                }
                Seen::Other { value } => {
                    // No event follows the held one: taken if its stream may leave its current
                    // block (a design without that block, its first value faulty), else a
                    // value that only happened to equal a later event.
                    if let Some(p) = self.pending[vi].take()
                        && Self::may_leave(&streams[&p.stream], family)
                    {
                        self.take(streams, vi, family, (p.stream, p.j), (p.edge, p.time), runs);
                    }
                    let armed = if disarm {
                        self.matcher.armed[vi].take()
                    } else {
                        self.matcher.armed[vi]
                    };
                    gap(
                        streams,
                        Taken {
                            vi,
                            edge,
                            time,
                            value,
                            armed,
                            last_match: self.matcher.last_match[vi],
                        },
                    );
                }
            }
        }
    }

    /// An error when nothing was compared, or a view never was.
    pub(crate) fn check_compared<F>(&self, views: &[View<F>]) -> Result<(), DiffError> {
        self.matcher
            .check_compared(views, self.compared_edges, self.edges)
    }

    /// The digest port showed `got` at (`edge`, `time`) where `expected` (the first digest of
    /// `stream` not yet seen) was due.
    pub(crate) fn wrong_digest(
        &mut self,
        (stream, expected): (u32, Vec<u64>),
        (edge, time): (u64, u64),
        got: Vec<Bits>,
        what: &str,
    ) {
        self.digest_fault = Some(DigestFault {
            stream,
            edge,
            time,
            expected,
            got: Some(got),
            what: what.into(),
        });
    }

    /// At the end: `missing` (stream, its first digest not seen, what) is a fault unless an
    /// earlier one was found.
    pub(crate) fn digest_missing(&mut self, missing: Option<(u32, Vec<u64>, String)>) {
        if self.digest_fault.is_some() {
            return;
        }
        if let Some((stream, expected, what)) = missing.filter(|m| !m.1.is_empty()) {
            self.digest_fault = Some(DigestFault {
                stream,
                edge: self.edges,
                time: self.last_time,
                expected,
                got: None,
                what: format!("{what} never left the design"),
            });
        }
    }

    /// Where a divergence whose RTL value was never taken is reported: after the last edge.
    pub(crate) fn end(&self) -> (u64, u64) {
        (self.edges, self.last_time)
    }
}

/// A word as hex of `digits` digits (16 for Skein's 64-bit words, 8 for Shabal's 32-bit ones).
pub(crate) fn hex(v: u64, digits: usize) -> String {
    format!("{v:0digits$x}")
}

/// An event divergence at RTL edge `edge` (event alignment has no golden cycle): the phase
/// text names the block, so no slot positions or context rows.
pub(crate) fn divergence(
    (edge, time): (u64, u64),
    phase: String,
    fields: Vec<FieldDiff>,
) -> Divergence {
    Divergence {
        cycle: edge,
        rtl_edge: edge,
        time,
        phase,
        location: Vec::new(),
        fields,
        context: Vec::new(),
        event: true,
    }
}

impl DigestFault {
    /// The divergence of a digest: word w named `field(w)`, golden words of `digits` hex digits.
    pub(crate) fn divergence(&self, field: impl Fn(usize) -> String, digits: usize) -> Divergence {
        let fields = self
            .expected
            .iter()
            .enumerate()
            .map(|(w, e)| {
                let got = self.got.as_ref().and_then(|g| g.get(w));
                FieldDiff {
                    field: field(w),
                    golden: hex(*e, digits),
                    rtl: got.map_or_else(|| "(not seen)".into(), Bits::to_hex),
                    unknown: got.is_some_and(|b| b.unknown.is_some()),
                }
            })
            .collect();
        divergence(
            (self.edge, self.time),
            format!(
                "stream {}: {} (every mapped state event matched)",
                self.stream, self.what
            ),
            fields,
        )
    }
}

/// Event alignment has no cycles to line up: `--offset` is refused.
pub(crate) fn refuse_offset(options: &CycleOptions) -> Result<(), DiffError> {
    if options.offset != 0 {
        return Err(DiffError::Invalid(
            "--offset lines up cycles; event alignment has no cycles to line up (use \
             --reset-cycles to skip the first RTL edges)"
                .into(),
        ));
    }
    Ok(())
}

/// Samples `probes` of `wave` at each rising edge of the map's clock (else the options'),
/// handing the edges after reset to `edge`; returns the edges in the file (an error if none).
pub(crate) fn sample_events(
    wave: &Path,
    map: &SignalMap,
    options: &CycleOptions,
    probes: &[Probe],
    mut edge: impl FnMut(u64, u64, &[Bits]),
) -> Result<u64, DiffError> {
    let mut wave_options: WaveOptions = options.wave.clone();
    if let Some(c) = &map.clock {
        wave_options.clock = c.clone();
    }
    let stats = sample_rising_edges(wave, &wave_options, probes, |e, time, samples| {
        if e >= options.reset_cycles {
            edge(e, time, samples);
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
    Ok(stats.edges)
}
