//! The controller: the clock loop that issues blocks of the streams into the datapath, steps
//! every block in flight once per cycle, takes finished blocks out, and hands each cycle's
//! registers to the sink.
//!
//! Issue rule (one input multiplexer in front of module 0, stage 0): a new block enters when
//! no block in flight is about to pass through that stage, which is when the block of that
//! lane left the module. The lowest-numbered stream that has no block in flight goes first, so
//! a stream keeps its lane until it is done (Athanasiou's FSM goes from Output back to Message
//! with the next message), and p x s streams fill the p x s pipeline registers.

use crate::schedule::Schedule;
use crate::sim::SimError;
use crate::sim::datapath::{Block, Datapath};
use crate::sim::feed::Feed;
use crate::sim::program::Program;
use crate::sim::record::{
    AdderBusy, CycleRecord, MAX_WORDS, OutputRecord, Phase, SlotRecord, TRACE_SCHEMA_VERSION,
    TraceHeader,
};
use crate::sim::report::{BlockTiming, BusyTotals, SimReport};
use crate::sim::sink::TraceSink;

/// Runs `programs` (one per stream) on `schedule`'s datapath until every stream is done.
pub(crate) fn run<const N: usize>(
    schedule: &Schedule,
    programs: Vec<Program<N>>,
    sink: &mut dyn TraceSink,
) -> Result<SimReport, SimError> {
    run_queued(
        schedule,
        programs.into_iter().map(|p| vec![p]).collect(),
        sink,
    )
}

/// Runs `queues` (per stream, its programs back to back) on `schedule`'s datapath until every
/// stream is done. A stream starts its next program in the cycle after the previous one's last
/// Output block left, with its block counter back at 0 (the generated design's `s<k>_blk`).
/// The report's digests are every program's, stream by stream, each stream's in order.
pub(crate) fn run_queued<const N: usize>(
    schedule: &Schedule,
    queues: Vec<Vec<Program<N>>>,
    sink: &mut dyn TraceSink,
) -> Result<SimReport, SimError> {
    let mut finished: Vec<Vec<Program<N>>> = queues.iter().map(|_| Vec::new()).collect();
    let mut queues: Vec<std::collections::VecDeque<Program<N>>> =
        queues.into_iter().map(Into::into).collect();
    let mut programs: Vec<Program<N>> = queues
        .iter_mut()
        .map(|q| q.pop_front().expect("every stream has a program"))
        .collect();
    let dp = Datapath::new(schedule);
    let slots_len = schedule.blocks_in_flight() as usize;
    let mut feed = feed_of(&programs, &queues, slots_len);
    sink.begin(&TraceHeader {
        schema_version: TRACE_SCHEMA_VERSION,
        schedule: schedule.clone(),
        words: N,
        slots: slots_len,
        streams: programs.len(),
        in_ready: feed.as_ref().map_or(0, Feed::width),
    })?;
    let streams = programs.len();
    let mut slots = vec![SlotRecord::default(); slots_len];
    let mut in_flight: Vec<Block<N>> = Vec::with_capacity(slots_len);
    let mut busy_stream = vec![false; streams];
    let mut blocks_issued = vec![0u64; streams];
    let mut outputs_done = vec![0u64; streams];
    let mut first_open = 0usize;
    let mut timings = Vec::new();
    let mut totals = BusyTotals::default();
    let mut cycle: u64 = 0;
    loop {
        while first_open < streams && programs[first_open].is_done() {
            first_open += 1;
        }
        if first_open == streams && in_flight.is_empty() {
            break;
        }
        cycle += 1;

        // Issue into module 0, stage 0 if no block in flight is about to use it.
        if !in_flight.iter().any(|b| dp.holds_input(b.elapsed)) {
            let ready = (first_open..streams).find(|&s| !busy_stream[s] && !programs[s].is_done());
            if let Some(s) = ready {
                let job = programs[s].next_block().expect("stream is not done");
                in_flight.push(Block::new(s as u32, blocks_issued[s], cycle, &job));
                if let Some(f) = feed.as_mut() {
                    f.issue(s);
                }
                blocks_issued[s] += 1;
                busy_stream[s] = true;
            }
        }

        // One clock edge for every block in flight.
        let mut busy = AdderBusy::default();
        for slot in slots.iter_mut() {
            slot.valid = false;
        }
        let mut phase_stream = u32::MAX;
        let mut phase = Phase::Idle;
        for b in in_flight.iter_mut() {
            let slot = dp.slot(b.elapsed);
            busy.add(b.step(&dp));
            write_slot(&mut slots[slot], b);
            if b.stream < phase_stream {
                phase_stream = b.stream;
                phase = b.phase;
            }
        }
        totals.add(busy);

        // Blocks whose last round is done leave; their chaining value goes back to the stream.
        let mut out = None;
        let mut i = 0;
        while i < in_flight.len() {
            if !in_flight[i].is_done(&dp) {
                i += 1;
                continue;
            }
            let b = in_flight.swap_remove(i);
            let s = b.stream as usize;
            let chain = b.output();
            timings.push(BlockTiming {
                stream: b.stream,
                index: b.index,
                phase: b.phase,
                issued: b.issued,
                completed: cycle,
            });
            if b.phase == Phase::Output {
                let mut data = [0u64; MAX_WORDS];
                data[..N].copy_from_slice(&chain);
                out = Some(OutputRecord {
                    stream: b.stream,
                    index: outputs_done[s],
                    data,
                });
                outputs_done[s] += 1;
            }
            programs[s].complete(chain);
            if let Some(f) = feed.as_mut() {
                f.complete(s);
            }
            busy_stream[s] = false;
            if programs[s].is_done()
                && let Some(next) = queues[s].pop_front()
            {
                finished[s].push(std::mem::replace(&mut programs[s], next));
                blocks_issued[s] = 0;
                outputs_done[s] = 0;
            }
        }
        let in_ready = match feed.as_mut() {
            Some(f) => f.edge(cycle),
            None => &[],
        };
        sink.cycle(&CycleRecord {
            cycle,
            phase,
            words: N,
            slots: &slots,
            busy,
            out,
            in_ready,
        })?;
    }
    sink.finish()?;
    Ok(SimReport {
        cycles: cycle,
        digests: finished
            .into_iter()
            .zip(programs)
            .flat_map(|(mut done, last)| {
                done.push(last);
                done
            })
            .map(|p| p.digest())
            .collect(),
        blocks: timings,
        busy: totals,
        adders: schedule.adders(),
    })
}

/// The feed of a run: every stream's blocks, the running program's then its queue's, and as
/// many streams as the design has (`slots`: one per block in flight) or the run has, if more;
/// `None` for raw blocks, which no host feeds through the port.
fn feed_of<const N: usize>(
    programs: &[Program<N>],
    queues: &[std::collections::VecDeque<Program<N>>],
    slots: usize,
) -> Option<Feed> {
    let mut blocks = Vec::with_capacity(programs.len().max(slots));
    for (p, q) in programs.iter().zip(queues) {
        let mut list = p.feed_blocks()?;
        for next in q {
            list.extend(next.feed_blocks()?);
        }
        blocks.push(list);
    }
    blocks.resize(programs.len().max(slots), Vec::new());
    Some(Feed::new(blocks))
}

fn write_slot<const N: usize>(slot: &mut SlotRecord, b: &Block<N>) {
    slot.valid = true;
    slot.stream = b.stream;
    slot.phase = b.phase;
    slot.block = b.index;
    slot.round = b.round;
    slot.subkey = b.subkey;
    slot.state[..N].copy_from_slice(&b.state);
    slot.key[..N].copy_from_slice(&b.keys.key);
    slot.key[N] = b.keys.key_parity;
    slot.tweak = b.keys.tweak;
}
