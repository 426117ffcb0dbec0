//! Reading a VCD trace this crate wrote back into records (the `vcd` crate's parser).

use std::collections::HashMap;
use std::io::BufRead;

use skeinhw_sched::sim::{
    AdderBusy, MAX_WORDS, OutputRecord, OwnedCycleRecord, Phase, SlotRecord, TraceHeader,
};
use vcd::{IdCode, ScopeItem, Value};

use crate::error::TraceError;
use crate::names;
use crate::vcd::HEADER_COMMENT;
use crate::wave::PERIOD;

/// Reads a VCD trace this crate wrote back into records, sampling every signal at each rising
/// edge of `clk` (values changed at the edge's time stamp count, as the writer puts them
/// there).
pub fn read_vcd<R: BufRead>(input: R) -> Result<(TraceHeader, Vec<OwnedCycleRecord>), TraceError> {
    let mut parser = vcd::Parser::new(input);
    let header = parser
        .parse_header()
        .map_err(|e| TraceError::Vcd(format!("header: {e}")))?;
    let mut trace_header = None;
    let mut vars: HashMap<String, IdCode> = HashMap::new();
    for item in &header.items {
        match item {
            ScopeItem::Comment(c) => {
                if let Some(json) = c.trim().strip_prefix(HEADER_COMMENT) {
                    trace_header = Some(
                        serde_json::from_str::<TraceHeader>(json)
                            .map_err(|e| TraceError::Vcd(format!("header comment: {e}")))?,
                    );
                }
            }
            ScopeItem::Scope(s) if s.identifier == names::SCOPE => {
                for v in &s.items {
                    if let ScopeItem::Var(v) = v {
                        vars.insert(v.reference.clone(), v.code);
                    }
                }
            }
            _ => {}
        }
    }
    let th = trace_header.ok_or_else(|| {
        TraceError::Vcd("no `skeinhw-trace` header comment: not a skeinhw trace".into())
    })?;
    let sigs = names::trace_signals(&th);
    let mut index: HashMap<IdCode, usize> = HashMap::new();
    for (i, s) in sigs.iter().enumerate() {
        let id = vars
            .get(&s.name)
            .ok_or_else(|| TraceError::Vcd(format!("signal `{}` is missing", s.name)))?;
        index.insert(*id, i);
    }
    let mut values = vec![0u64; sigs.len()];
    let mut records = Vec::new();
    let mut time = 0u64;
    let mut rose = false;
    let sample = |time: u64, values: &[u64], out: &mut Vec<OwnedCycleRecord>| {
        if time.is_multiple_of(PERIOD) && time > 0 {
            out.push(record_of(&th, time / PERIOD, values));
        }
    };
    for cmd in parser {
        let cmd = cmd.map_err(|e| TraceError::Vcd(e.to_string()))?;
        match cmd {
            vcd::Command::Timestamp(t) => {
                if rose {
                    sample(time, &values, &mut records);
                }
                rose = false;
                time = t;
            }
            vcd::Command::ChangeScalar(id, v) => {
                if let Some(&i) = index.get(&id) {
                    values[i] = u64::from(v == Value::V1);
                    if i == 0 && v == Value::V1 {
                        rose = true;
                    }
                }
            }
            vcd::Command::ChangeVector(id, v) => {
                if let Some(&i) = index.get(&id) {
                    let mut x = 0u64;
                    for b in &v {
                        match b {
                            Value::V0 => x <<= 1,
                            Value::V1 => x = (x << 1) | 1,
                            other => {
                                return Err(TraceError::Vcd(format!(
                                    "time {time}: signal `{}` is {other}, expected 0 or 1",
                                    sigs[i].name
                                )));
                            }
                        }
                    }
                    values[i] = x;
                }
            }
            _ => {}
        }
    }
    if rose {
        sample(time, &values, &mut records);
    }
    Ok((th, records))
}

fn record_of(th: &TraceHeader, cycle: u64, v: &[u64]) -> OwnedCycleRecord {
    let nw = th.words;
    let phase = |c: u64| Phase::from_code(c as u8).unwrap_or_default();
    let out = if v[2] == 1 {
        let mut data = [0u64; MAX_WORDS];
        data[..nw].copy_from_slice(&v[5..5 + nw]);
        Some(OutputRecord {
            stream: v[3] as u32,
            index: v[4],
            data,
        })
    } else {
        None
    };
    let b = 5 + nw;
    let busy = AdderBusy {
        mix: v[b] as u32,
        subkey: v[b + 1] as u32,
        key_schedule: v[b + 2] as u32,
        first_subkey: v[b + 3] as u32,
    };
    let per_slot = names::slot_fields(nw).len();
    let ready = b + 4 + th.slots * per_slot;
    let slots = (0..th.slots)
        .map(|s| {
            let f = &v[b + 4 + s * per_slot..b + 4 + (s + 1) * per_slot];
            let mut slot = SlotRecord {
                valid: f[0] == 1,
                stream: f[1] as u32,
                phase: phase(f[2]),
                block: f[3],
                round: f[4] as u32,
                subkey: f[5] as u32,
                ..SlotRecord::default()
            };
            slot.state[..nw].copy_from_slice(&f[6..6 + nw]);
            slot.key[..=nw].copy_from_slice(&f[6 + nw..7 + 2 * nw]);
            slot.tweak.copy_from_slice(&f[7 + 2 * nw..10 + 2 * nw]);
            slot
        })
        .collect();
    OwnedCycleRecord {
        cycle,
        phase: phase(v[1]),
        words: nw,
        slots,
        busy,
        out,
        in_ready: v[ready..ready + th.in_ready]
            .iter()
            .map(|&b| b == 1)
            .collect(),
    }
}
