//! FST traces, written with `fst-writer` (by the author of wellen): the same scope, signal
//! names and value changes as the VCD ([`crate::wave`] feeds both), compressed in blocks.
//! FST has no comment a reader could find the trace header in: a reader of an FST trace
//! gets the schedule elsewhere (the JSON-lines golden trace, or the command line).
//!
//! The writer seeks back to complete the header, so it writes into `Write + Seek`; the
//! command line writes a spool file and copies it into place (see `skeinhw trace`).

use std::io::{self, Seek, Write};

use fst_writer::{
    FstBodyWriter, FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalId, FstSignalType,
    FstVarDirection, FstVarType,
};
use skeinhw_sched::sim::{CycleRecord, TraceHeader, TraceSink};

use crate::names::{self, Signal};
use crate::vcd::binary_digits;
use crate::wave::{SkeinWave, WaveFormat};

/// Value changes are compressed and written out as a block once this many bytes are buffered
/// (fst-writer's own estimate): memory stays bounded on long traces.
const BLOCK_BYTES: usize = 32 << 20;

/// The FST file-header version string.
const VERSION: &str = "skeinhw-trace";

fn fst_error(e: fst_writer::FstWriteError) -> io::Error {
    match e {
        fst_writer::FstWriteError::Io(e) => e,
        other => io::Error::other(other),
    }
}

/// Where the writer is: before the header, writing changes, or done.
enum Stage<W: Write + Seek> {
    Start(W),
    Body(Box<FstBodyWriter<W>>),
    Done(W),
    /// Only while moving between the others (or after an error).
    Poisoned,
}

/// The FST of a trace.
pub(crate) struct FstFormat<W: Write + Seek> {
    stage: Stage<W>,
    ids: Vec<FstSignalId>,
    widths: Vec<u32>,
}

impl<W: Write + Seek> FstFormat<W> {
    pub(crate) fn new(out: W) -> Self {
        FstFormat {
            stage: Stage::Start(out),
            ids: Vec::new(),
            widths: Vec::new(),
        }
    }

    fn body(&mut self) -> io::Result<&mut FstBodyWriter<W>> {
        match &mut self.stage {
            Stage::Body(b) => Ok(b),
            _ => Err(io::Error::other(
                "FST: no signals declared, or already finished",
            )),
        }
    }

    /// The output, once finished.
    pub(crate) fn into_inner(self) -> Option<W> {
        match self.stage {
            Stage::Done(w) => Some(w),
            _ => None,
        }
    }
}

impl<W: Write + Seek> WaveFormat for FstFormat<W> {
    fn declare(&mut self, _header_json: &str, signals: &[Signal]) -> io::Result<()> {
        let Stage::Start(out) = std::mem::replace(&mut self.stage, Stage::Poisoned) else {
            return Err(io::Error::other("FST: signals declared twice"));
        };
        let info = FstInfo {
            start_time: 0,
            timescale_exponent: -9, // 1 ns, as the VCD
            version: VERSION.into(),
            date: String::new(),
            file_type: FstFileType::Verilog,
        };
        let mut h = FstHeaderWriter::new(out, &info).map_err(fst_error)?;
        h.scope(names::SCOPE, "", FstScopeType::Module)
            .map_err(fst_error)?;
        for sig in signals {
            let id = h
                .var(
                    &sig.name,
                    FstSignalType::bit_vec(sig.width),
                    FstVarType::Wire,
                    FstVarDirection::Implicit,
                    None,
                )
                .map_err(fst_error)?;
            self.ids.push(id);
            self.widths.push(sig.width);
        }
        h.up_scope().map_err(fst_error)?;
        let mut body = h.finish().map_err(fst_error)?;
        // `Edges` writes only changes; fst-writer need not compare again.
        body.set_deduplicate(false);
        self.stage = Stage::Body(Box::new(body));
        Ok(())
    }

    fn time(&mut self, t: u64) -> io::Result<()> {
        let body = self.body()?;
        // fst-writer flushes a block only right before a new time step.
        if t > 0 && body.size() >= BLOCK_BYTES {
            body.flush().map_err(fst_error)?;
        }
        body.time_change(t).map_err(fst_error)
    }

    #[inline]
    fn change(&mut self, i: usize, v: u64) -> io::Result<()> {
        let (id, width) = (self.ids[i], self.widths[i]);
        let mut digits = [0u8; 64];
        let bits = binary_digits(v, width, &mut digits);
        self.body()?.signal_change(id, bits).map_err(fst_error)
    }

    fn finish(&mut self) -> io::Result<()> {
        let Stage::Body(body) = std::mem::replace(&mut self.stage, Stage::Poisoned) else {
            return Err(io::Error::other(
                "FST: no signals declared, or already finished",
            ));
        };
        let mut out = body.finish().map_err(fst_error)?;
        out.flush()?;
        self.stage = Stage::Done(out);
        Ok(())
    }
}

/// Writes an FST trace to `W` (a file, or a `Cursor<Vec<u8>>`: it must seek).
pub struct FstWriter<W: Write + Seek> {
    wave: SkeinWave<FstFormat<W>>,
}

impl<W: Write + Seek> std::fmt::Debug for FstWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FstWriter")
            .field("signals", &self.wave.edges.signal_count())
            .finish()
    }
}

impl<W: Write + Seek> FstWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> Self {
        FstWriter {
            wave: SkeinWave::new(FstFormat::new(out)),
        }
    }

    /// The output, once the trace is finished (`None` before).
    pub fn into_inner(self) -> Option<W> {
        self.wave.edges.format.into_inner()
    }
}

impl<W: Write + Seek> TraceSink for FstWriter<W> {
    fn begin(&mut self, header: &TraceHeader) -> io::Result<()> {
        self.wave.begin(header)
    }

    fn cycle(&mut self, r: &CycleRecord<'_>) -> io::Result<()> {
        self.wave.cycle(r)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.wave.edges.finish()
    }
}
