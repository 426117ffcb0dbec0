//! The golden model as a handle: the cycle-accurate simulator of `skeinhw-sched`, run lazily in
//! a thread by `skeinhw_diff::Golden::simulate` (records cross a bounded channel, so a long run
//! is never held whole), stepped one clock cycle per call. Field names are the trace's signal
//! names (`skeinhw_trace::names`), which are also the generated Verilog's register names.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{CString, c_char, c_int};
use std::iter::Peekable;

use skeinhw_diff::Golden;
use skeinhw_diff::golden::{OwnedJob, Records};
use skeinhw_sched::sim::{OwnedCycleRecord, TraceHeader};
use skeinhw_sched::{AnySchedule, Schedule};
use skeinhw_trace::names;

use crate::error::{
    CError, HasError, SKEINHW_END, SKEINHW_OK, free_handle, guard, guard_handle, handle_error,
    message, out, put_handle, slice_mut, string,
};
use crate::hash::le_word;

/// Event bit: an Output block completed in this cycle (`out_valid`; the `out_*` fields hold
/// it).
pub const SKEINHW_EVENT_OUTPUT: u32 = 1;
/// Event bit: the output block of this cycle completed its stream's digest
/// (`skeinhw_golden_digest` has it from now on).
pub const SKEINHW_EVENT_DIGEST: u32 = 2;
/// Event bit: this is the last cycle of the run (the next step returns `SKEINHW_END`).
pub const SKEINHW_EVENT_LAST: u32 = 4;

/// A golden-model run (opaque): a schedule, the messages, and the current cycle.
pub struct SkeinhwGolden {
    schedule: Schedule,
    jobs: Vec<OwnedJob>,
    run: Option<Run>,
    error: CString,
}

impl HasError for SkeinhwGolden {
    fn error_slot(&mut self) -> &mut CString {
        &mut self.error
    }
}

struct Run {
    header: TraceHeader,
    records: Peekable<Records>,
    /// Field name -> indices into `values` (one for a signal, several for a word group).
    fields: HashMap<String, Vec<usize>>,
    current: Option<OwnedCycleRecord>,
    values: Vec<u64>,
    events: u32,
    /// Output blocks of each stream so far, by output counter.
    outputs: Vec<BTreeMap<u64, Vec<u64>>>,
    digests: Vec<Option<Vec<u8>>>,
    ended: bool,
}

/// The fields of a trace: every signal by name, and each numbered word group (`slot0_state`,
/// `slot0_key`, `slot0_tweak`, `out_data`) as all its words in order.
fn field_index(header: &TraceHeader) -> HashMap<String, Vec<usize>> {
    let mut fields: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, s) in names::signals(header.words, header.slots)
        .into_iter()
        .enumerate()
    {
        if let Some((group, n)) = s.name.rsplit_once('_')
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
        {
            fields.entry(group.to_owned()).or_default().push(i);
        }
        fields.insert(s.name, vec![i]);
    }
    fields
}

impl Run {
    fn start(schedule: &Schedule, jobs: &[OwnedJob]) -> Result<Run, CError> {
        if jobs.is_empty() {
            return Err(CError::State(
                "no message: add one with skeinhw_golden_add_message before the first step".into(),
            ));
        }
        let golden = Golden::simulate(schedule.clone(), jobs.to_vec())
            .map_err(|e| CError::Argument(e.to_string()))?;
        Ok(Run {
            fields: field_index(&golden.header),
            header: golden.header,
            records: golden.records.peekable(),
            current: None,
            values: Vec::new(),
            events: 0,
            outputs: vec![BTreeMap::new(); jobs.len()],
            digests: vec![None; jobs.len()],
            ended: false,
        })
    }

    fn step(&mut self, jobs: &[OwnedJob]) -> Result<c_int, CError> {
        if self.ended {
            return Ok(SKEINHW_END);
        }
        let record = match self.records.next() {
            None => {
                self.ended = true;
                self.events = 0;
                return Ok(SKEINHW_END);
            }
            Some(r) => r.map_err(CError::State)?,
        };
        names::values(&record.as_record(), &mut self.values);
        self.events = 0;
        if let Some(o) = &record.out {
            self.events |= SKEINHW_EVENT_OUTPUT;
            let stream = o.stream as usize;
            let words = self.header.words;
            let job = &jobs[stream];
            let out_bytes = job.out_bits.div_ceil(8);
            let blocks = out_bytes.div_ceil(words as u64 * 8);
            let outputs = &mut self.outputs[stream];
            outputs.insert(o.index, o.data[..words].to_vec());
            if outputs.len() as u64 == blocks {
                let mut digest: Vec<u8> = outputs
                    .values()
                    .flat_map(|b| b.iter().flat_map(|w| w.to_le_bytes()))
                    .collect();
                digest.truncate(out_bytes as usize);
                let rest = (job.out_bits % 8) as u32;
                if let (true, Some(last)) = (rest != 0, digest.last_mut()) {
                    *last &= 0xFFu8 << (8 - rest);
                }
                self.digests[stream] = Some(digest);
                self.outputs[stream].clear();
                self.events |= SKEINHW_EVENT_DIGEST;
            }
        }
        if self.records.peek().is_none() {
            self.events |= SKEINHW_EVENT_LAST;
        }
        self.current = Some(record);
        Ok(SKEINHW_OK)
    }

    fn field(&self, name: &str) -> Result<Vec<u64>, CError> {
        let Some(record) = &self.current else {
            return Err(no_cycle());
        };
        if name == "cycle" {
            return Ok(vec![record.cycle]);
        }
        let indices = self.fields.get(name).ok_or_else(|| {
            CError::Field(format!(
                "field {name:?} does not exist in a trace of {} ({} words, {} slots); fields are \
                 the trace's signal names, e.g. phase, out_valid, out_data_0, slot0_state_0, \
                 slot0_state, slot0_key, slot0_tweak, cycle",
                self.header.schedule.name(),
                self.header.words,
                self.header.slots
            ))
        })?;
        Ok(indices.iter().map(|&i| self.values[i]).collect())
    }
}

fn no_cycle() -> CError {
    CError::State("no cycle yet: call skeinhw_golden_step first".into())
}

fn schedule(text: &str) -> Result<Schedule, CError> {
    let trimmed = text.trim_start();
    let any = if trimmed.starts_with('{') {
        AnySchedule::from_json_str(trimmed)
    } else {
        AnySchedule::from_name_or_file(text)
    }
    .map_err(|e| CError::Schedule(e.to_string()))?;
    match any {
        AnySchedule::Skein(s) => Ok(s),
        AnySchedule::Shabal(s) => Err(CError::Schedule(format!(
            "{} is a Shabal schedule; the golden handle runs Skein schedules",
            s.name()
        ))),
    }
}

impl SkeinhwGolden {
    fn run(&self) -> Result<&Run, CError> {
        self.run.as_ref().ok_or_else(no_cycle)
    }

    fn add(&mut self, job: OwnedJob) -> Result<c_int, CError> {
        if self.run.is_some() {
            return Err(CError::State(
                "the run has started: add every message before the first step".into(),
            ));
        }
        if job.out_bits == 0 {
            return Err(skeinhw_skein::Error::ZeroOutputLength.into());
        }
        self.jobs.push(job);
        Ok(SKEINHW_OK)
    }

    fn out_bits(&self, out_bits: u64) -> u64 {
        if out_bits == 0 {
            u64::from(self.schedule.size().bits())
        } else {
            out_bits
        }
    }

    fn digest(&self, stream: u32) -> Result<&[u8], CError> {
        let run = self.run()?;
        let d = run.digests.get(stream as usize).ok_or_else(|| {
            CError::Argument(format!(
                "stream {stream} does not exist: the run has {} messages",
                run.digests.len()
            ))
        })?;
        d.as_deref().ok_or_else(|| {
            CError::State(format!(
                "stream {stream}'s digest is not complete yet (wait for SKEINHW_EVENT_DIGEST)"
            ))
        })
    }
}

/// A golden model of `schedule`: a preset name (`skeinhw schedules` lists them), a schedule
/// JSON file's path, or schedule JSON text (starting with `{`). `*out` receives the handle; add
/// the messages, then step.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_new(
    schedule: *const c_char,
    out: *mut *mut SkeinhwGolden,
) -> c_int {
    guard(|| unsafe {
        let text = string(schedule, "schedule")?;
        let schedule = self::schedule(text)?;
        put_handle(
            out,
            SkeinhwGolden {
                schedule,
                jobs: Vec::new(),
                run: None,
                error: CString::default(),
            },
        )
    })
}

/// The job of a message of `msg_bits` bits with `params`' optional arguments.
unsafe fn job(
    h: &SkeinhwGolden,
    message: Vec<u8>,
    msg_bits: u64,
    out_bits: u64,
    params: *const crate::hash::skeinhw_params,
) -> Result<OwnedJob, CError> {
    let p = unsafe { crate::hash::params(params)? };
    Ok(OwnedJob {
        message,
        msg_bits,
        out_bits: h.out_bits(out_bits),
        key: p.key.to_vec(),
        personalization: p.personalization.map(<[u8]>::to_vec),
        public_key: p.public_key.map(<[u8]>::to_vec),
        key_id: p.key_id.map(<[u8]>::to_vec),
        nonce: p.nonce.map(<[u8]>::to_vec),
        tree: p.tree,
    })
}

/// The bytes of a hex message.
unsafe fn hex_message(hex: *const c_char) -> Result<Vec<u8>, CError> {
    let text = unsafe { string(hex, "hex")? };
    hex::decode(text.trim()).map_err(|e| CError::Argument(format!("hex message {text:?}: {e}")))
}

/// The first `msg_bits` bits of a hex message: its first ceil(msg_bits / 8) bytes.
unsafe fn hex_bits(hex: *const c_char, msg_bits: u64) -> Result<Vec<u8>, CError> {
    let mut message = unsafe { hex_message(hex)? };
    let have = message.len() as u64 * 8;
    if msg_bits > have {
        return Err(CError::Argument(format!(
            "msg_bits is {msg_bits}; the hex message has {have} bits"
        )));
    }
    message.truncate(msg_bits.div_ceil(8) as usize);
    Ok(message)
}

/// Adds a message (the next stream): the first `msg_bits` bits of `msg`, `out_bits` output
/// bits (0: the state size, as `skeinhw trace`), the optional arguments (`params` may be NULL).
/// Only before the first step.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_add_message(
    h: *mut SkeinhwGolden,
    msg: *const u8,
    msg_bits: u64,
    out_bits: u64,
    params: *const crate::hash::skeinhw_params,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let message = message(msg, msg_bits, "msg")?.to_vec();
        let job = job(h, message, msg_bits, out_bits, params)?;
        h.add(job)
    })
}

/// Adds a whole-byte message given as hex text (for DPI-C callers, which pass strings):
/// `out_bits` as in `skeinhw_golden_add_message`, no optional arguments.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_add_message_hex(
    h: *mut SkeinhwGolden,
    hex: *const c_char,
    out_bits: u64,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let message = hex_message(hex)?;
        let msg_bits = message.len() as u64 * 8;
        let job = job(h, message, msg_bits, out_bits, std::ptr::null())?;
        h.add(job)
    })
}

/// `skeinhw_golden_add_message` for DPI-C callers: the first `msg_bits` bits of the hex
/// message (most significant bit of each byte first), with `params` (NULL, or a handle from
/// `skeinhw_params_new`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_add_message_hex_params(
    h: *mut SkeinhwGolden,
    hex: *const c_char,
    msg_bits: u64,
    out_bits: u64,
    params: *const crate::hash::skeinhw_params,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let message = hex_bits(hex, msg_bits)?;
        let job = job(h, message, msg_bits, out_bits, params)?;
        h.add(job)
    })
}

/// Advances one clock cycle: `SKEINHW_OK` with the new cycle's registers readable, or
/// `SKEINHW_END` when the run is over (the last cycle stays readable). The first step starts
/// the simulation (an invalid message is reported here).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_step(h: *mut SkeinhwGolden) -> c_int {
    guard_handle(h, |h| {
        if h.run.is_none() {
            h.run = Some(Run::start(&h.schedule, &h.jobs)?);
        }
        let run = h.run.as_mut().expect("started");
        run.step(&h.jobs)
    })
}

/// The current cycle number (from 1, as in the trace).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_cycle(h: *mut SkeinhwGolden, cycle: *mut u64) -> c_int {
    guard_handle(h, |h| unsafe {
        let cycle = out(cycle, "cycle")?;
        *cycle = h.run()?.current.as_ref().ok_or_else(no_cycle)?.cycle;
        Ok(SKEINHW_OK)
    })
}

/// The current value of trace field `name` as 64-bit words into `words` (room for
/// `max_words`); `*n_words` receives the field's word count (1 for a signal, Nw for
/// `slot<i>_state` or `out_data`, Nw + 1 for `slot<i>_key`, 3 for `slot<i>_tweak`). A buffer
/// too short is an error that still sets `*n_words`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_field(
    h: *mut SkeinhwGolden,
    name: *const c_char,
    words: *mut u64,
    max_words: usize,
    n_words: *mut usize,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let name = string(name, "name")?;
        let n_words = out(n_words, "n_words")?;
        let dst = slice_mut(words, max_words, "words")?;
        let values = h.run()?.field(name)?;
        *n_words = values.len();
        if dst.len() < values.len() {
            return Err(CError::Buffer(format!(
                "field {name} has {} words; max_words is {max_words}",
                values.len()
            )));
        }
        dst[..values.len()].copy_from_slice(&values);
        Ok(SKEINHW_OK)
    })
}

/// Word `index` of trace field `name` (index 0 for a one-word signal): the scalar form for
/// DPI-C.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_field_u64(
    h: *mut SkeinhwGolden,
    name: *const c_char,
    index: u32,
    word: *mut u64,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let name = string(name, "name")?;
        let word = out(word, "word")?;
        let values = h.run()?.field(name)?;
        *word = *values.get(index as usize).ok_or_else(|| {
            CError::Argument(format!(
                "field {name} has {} words; there is no word {index}",
                values.len()
            ))
        })?;
        Ok(SKEINHW_OK)
    })
}

/// The events of the current cycle: `SKEINHW_EVENT_*` bits.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_events(h: *mut SkeinhwGolden, events: *mut u32) -> c_int {
    guard_handle(h, |h| unsafe {
        let events = out(events, "events")?;
        let run = h.run()?;
        run.current.as_ref().ok_or_else(no_cycle)?;
        *events = run.events;
        Ok(SKEINHW_OK)
    })
}

/// Stream `stream`'s digest (ceil(out_bits / 8) bytes, as `skeinhw_skein_hash` gives it) into
/// `out`, once complete (`SKEINHW_EVENT_DIGEST`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_digest(
    h: *mut SkeinhwGolden,
    stream: u32,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let dst = slice_mut(out, out_len, "out")?;
        let digest = h.digest(stream)?;
        if dst.len() < digest.len() {
            return Err(CError::Buffer(format!(
                "out_len is {out_len} bytes; the digest has {}",
                digest.len()
            )));
        }
        dst[..digest.len()].copy_from_slice(digest);
        Ok(SKEINHW_OK)
    })
}

/// Word `index` of stream `stream`'s digest, little-endian (the form of `out_data_*`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_digest_u64(
    h: *mut SkeinhwGolden,
    stream: u32,
    index: u32,
    word: *mut u64,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let word = out(word, "word")?;
        let digest = h.digest(stream)?;
        *word = le_word(digest, index as usize).ok_or_else(|| {
            CError::Argument(format!(
                "word {index} is past the {}-byte digest",
                digest.len()
            ))
        })?;
        Ok(SKEINHW_OK)
    })
}

/// The datapath's shape: state words Nw and pipeline registers (`slot<i>_*`, i < slots).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_shape(
    h: *mut SkeinhwGolden,
    words: *mut u32,
    slots: *mut u32,
) -> c_int {
    guard_handle(h, |h| unsafe {
        let words = out(words, "words")?;
        let slots = out(slots, "slots")?;
        *words = h.schedule.words();
        *slots = h.schedule.functional_stages() * h.schedule.structural_stages();
        Ok(SKEINHW_OK)
    })
}

/// The message of the handle's last failed call ("" if none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_error(h: *mut SkeinhwGolden) -> *const c_char {
    handle_error(h)
}

/// Frees the handle, stopping its simulation (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skeinhw_golden_free(h: *mut SkeinhwGolden) {
    free_handle(h)
}
