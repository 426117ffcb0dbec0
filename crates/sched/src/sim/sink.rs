//! Where the simulator puts its records: a trait, so that the same run can fill memory (tests,
//! speed measurements), a JSONL or VCD file (`skeinhw-trace`), or nothing at all.

use std::io;

use crate::sim::record::{CycleRecord, OwnedCycleRecord, TraceHeader};

/// Receives a trace: the header once, then one record per cycle, then `finish`.
///
/// Errors are I/O errors because writing is the only thing a sink does that can fail; the
/// simulator stops at the first one.
pub trait TraceSink {
    /// Called once before the first cycle.
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()>;
    /// Called once per clock cycle, in order.
    fn cycle(&mut self, record: &CycleRecord<'_>) -> io::Result<()>;
    /// Called once after the last cycle (flush here).
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<S: TraceSink + ?Sized> TraceSink for &mut S {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        (**self).begin(header)
    }
    fn cycle(&mut self, record: &CycleRecord<'_>) -> io::Result<()> {
        (**self).cycle(record)
    }
    fn finish(&mut self) -> io::Result<()> {
        (**self).finish()
    }
}

/// Discards everything: for runs that only want the digests and the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullSink;

impl TraceSink for NullSink {
    fn begin(&mut self, _: &TraceHeader) -> io::Result<()> {
        Ok(())
    }
    fn cycle(&mut self, _: &CycleRecord<'_>) -> io::Result<()> {
        Ok(())
    }
}

/// Keeps the header and every record in memory.
#[derive(Clone, Debug, Default)]
pub struct MemorySink {
    /// The header, once `begin` was called.
    pub header: Option<TraceHeader>,
    /// Every record, in cycle order.
    pub records: Vec<OwnedCycleRecord>,
}

impl MemorySink {
    /// An empty sink.
    pub fn new() -> Self {
        MemorySink::default()
    }
}

impl TraceSink for MemorySink {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        self.header = Some(header.clone());
        Ok(())
    }
    fn cycle(&mut self, record: &CycleRecord<'_>) -> io::Result<()> {
        self.records.push(record.to_owned());
        Ok(())
    }
}
