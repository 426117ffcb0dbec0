//! One FST holding a divergence's golden and RTL signals side by side, under the scopes
//! `golden` and `rtl` (each keeping its own hierarchy below), with a GTKWave save file and a
//! Surfer command file that show them (see [`crate::viewer`]): wave viewers load one dump
//! file per window. Both waveforms are read with wellen (VCD or FST); only the named signals
//! are loaded and written. Times are converted to the finer of the two time units.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use fst_writer::{
    FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalType, FstVarDirection, FstVarType,
};
use wellen::simple::Waveform;
use wellen::{SignalRef, Timescale};

use crate::error::TraceError;
use crate::output::AtomicFile;
use crate::viewer::{self, View, ViewGroup, ViewSignal};

/// What the diff found, to be shown.
#[derive(Clone, Debug)]
pub struct Divergence<'a> {
    /// The golden waveform (`skeinhw trace -o golden.fst` or `.vcd`).
    pub golden: &'a Path,
    /// The RTL simulation's waveform.
    pub rtl: &'a Path,
    /// The diverging fields as (golden signal, RTL signal) full names (`skeinhw.slot0_state_3`,
    /// `TOP.dut.slot0_state_3`), those diverging at the first divergent edge first. Put the
    /// two clocks first to see the edges.
    pub fields: &'a [(String, String)],
    /// The time of the first divergent edge, in the RTL waveform's time units.
    pub rtl_time: u64,
    /// Added to the golden waveform's times (in the RTL's units) so that its edges line up
    /// with the RTL's (reset cycles, another clock period): 0 when they already do.
    pub golden_shift: u64,
    /// About how much time (RTL units) the viewers show around the cursor.
    pub window: u64,
}

/// The files [`write_viewer_files`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewerFiles {
    /// The merged waveform (`<stem>.fst`).
    pub merged: PathBuf,
    /// The GTKWave save file (`<stem>.gtkw`): `gtkwave -a <stem>.gtkw`.
    pub gtkw: PathBuf,
    /// The Surfer command file (`<stem>.sucl`): `surfer --command-file <stem>.sucl`.
    pub surfer: PathBuf,
}

fn wave_error(path: &Path, e: impl std::fmt::Display) -> TraceError {
    TraceError::Wave(format!("{}: {e}", path.display()))
}

/// A signal found in a waveform: its full name, width, and wellen reference.
struct Found {
    path: String,
    width: u32,
    signal: SignalRef,
}

fn find(wave: &Waveform, file: &Path, names: &[&str]) -> Result<Vec<Found>, TraceError> {
    let h = wave.hierarchy();
    let mut by_name = BTreeMap::new();
    for r in h.all_vars() {
        let v = &h[r];
        by_name.entry(v.full_name(h)).or_insert(r);
    }
    let mut out: Vec<Found> = Vec::new();
    for &name in names {
        if out.iter().any(|f| f.path == name) {
            continue;
        }
        let r = by_name
            .get(name)
            .ok_or_else(|| wave_error(file, format!("no signal `{name}`")))?;
        let v = &h[*r];
        let width = v
            .length(h)
            .ok_or_else(|| wave_error(file, format!("`{name}` is not a bit vector")))?;
        out.push(Found {
            path: name.to_owned(),
            width,
            signal: v.signal_ref(),
        });
    }
    Ok(out)
}

/// The time unit as (exponent of ten, factor).
fn unit(wave: &Waveform) -> (i8, u64) {
    match wave.hierarchy().timescale() {
        Some(Timescale { factor, unit }) => (unit.to_exponent().unwrap_or(0), u64::from(factor)),
        None => (0, 1),
    }
}

/// One side's signals, loaded, with the factor that converts its times to the common unit.
struct Side {
    scope: &'static str,
    wave: Waveform,
    found: Vec<Found>,
    scale: u64,
    shift: u64,
}

fn open(path: &Path, names: &[&str]) -> Result<(Waveform, Vec<Found>), TraceError> {
    let mut wave = wellen::simple::read(path).map_err(|e| wave_error(path, e))?;
    let found = find(&wave, path, names)?;
    let refs: Vec<SignalRef> = found.iter().map(|f| f.signal).collect();
    wave.load_signals(&refs);
    Ok((wave, found))
}

/// Declares `side`'s signals under its scope, opening the scopes of each name's path.
fn declare<W: Write + Seek>(
    h: &mut FstHeaderWriter<W>,
    side: &Side,
) -> fst_writer::Result<Vec<fst_writer::FstSignalId>> {
    h.scope(side.scope, "", FstScopeType::Module)?;
    let mut order: Vec<usize> = (0..side.found.len()).collect();
    order.sort_by(|&a, &b| side.found[a].path.cmp(&side.found[b].path));
    let mut ids = vec![None; side.found.len()];
    let mut open: Vec<&str> = Vec::new();
    for i in order {
        let parts: Vec<&str> = side.found[i].path.split('.').collect();
        let (name, scopes) = parts.split_last().expect("split yields one part");
        let common = open.iter().zip(scopes).take_while(|(a, b)| a == b).count();
        for _ in common..open.len() {
            h.up_scope()?;
        }
        open.truncate(common);
        for s in &scopes[common..] {
            h.scope(*s, "", FstScopeType::Module)?;
            open.push(s);
        }
        let tpe = FstSignalType::bit_vec(side.found[i].width);
        let dir = FstVarDirection::Implicit;
        ids[i] = Some(h.var(*name, tpe, FstVarType::Wire, dir, None)?);
    }
    for _ in 0..open.len() {
        h.up_scope()?;
    }
    h.up_scope()?;
    Ok(ids.into_iter().map(|i| i.expect("declared")).collect())
}

/// Writes the merged FST of both sides into `out`.
fn write_merged<W: Write + Seek>(out: W, sides: &[Side], exponent: i8) -> fst_writer::Result<W> {
    let info = FstInfo {
        start_time: 0,
        timescale_exponent: exponent,
        version: "skeinhw-trace merge".into(),
        date: String::new(),
        file_type: FstFileType::Verilog,
    };
    let mut h = FstHeaderWriter::new(out, &info)?;
    let mut ids = Vec::new();
    for side in sides {
        ids.push(declare(&mut h, side)?);
    }
    let mut body = h.finish()?;
    // One cursor per signal over its changes, as (time, value); merged by time.
    let mut cursors = Vec::new();
    for (side, ids) in sides.iter().zip(ids) {
        let times = side.wave.time_table();
        for (f, id) in side.found.iter().zip(ids) {
            let signal = side.wave.get_signal(f.signal).expect("loaded");
            let changes = signal.iter_changes().map(move |(t, v)| {
                let time = times[t as usize] * side.scale + side.shift;
                (time, v.to_bit_string().unwrap_or_default())
            });
            cursors.push((id, changes.peekable()));
        }
    }
    loop {
        let next = cursors
            .iter_mut()
            .filter_map(|(_, c)| c.peek().map(|(t, _)| *t))
            .min();
        let Some(t) = next else { break };
        if t > 0 && body.size() >= 32 << 20 {
            body.flush()?;
        }
        body.time_change(t)?;
        for (id, c) in &mut cursors {
            while let Some((_, v)) = c.next_if(|(ct, _)| *ct == t) {
                body.signal_change(*id, v.as_bytes())?;
            }
        }
    }
    body.finish()
}

/// Writes `<stem>.fst` (both sides' signals), `<stem>.gtkw` and `<stem>.sucl` (the `golden`
/// group, then the `rtl` group, the cursor on the first divergent edge).
pub fn write_viewer_files(d: &Divergence<'_>, stem: &Path) -> Result<ViewerFiles, TraceError> {
    let golden_names: Vec<&str> = d.fields.iter().map(|f| f.0.as_str()).collect();
    let rtl_names: Vec<&str> = d.fields.iter().map(|f| f.1.as_str()).collect();
    let (gw, gf) = open(d.golden, &golden_names)?;
    let (rw, rf) = open(d.rtl, &rtl_names)?;
    let ((ge, gs), (re, rs)) = (unit(&gw), unit(&rw));
    let exponent = ge.min(re);
    let pow = |e: i8| 10u64.pow((e - exponent) as u32);
    let (gscale, rscale) = (gs * pow(ge), rs * pow(re));
    let sides = [
        Side {
            scope: "golden",
            wave: gw,
            found: gf,
            scale: gscale,
            shift: d.golden_shift * rscale,
        },
        Side {
            scope: "rtl",
            wave: rw,
            found: rf,
            scale: rscale,
            shift: 0,
        },
    ];
    let with_ext = |ext: &str| {
        let mut p = stem.as_os_str().to_owned();
        p.push(ext);
        PathBuf::from(p)
    };
    let files = ViewerFiles {
        merged: with_ext(".fst"),
        gtkw: with_ext(".gtkw"),
        surfer: with_ext(".sucl"),
    };
    let dir = match files.merged.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let spool = tempfile::tempfile_in(&dir).map_err(|e| TraceError::Io {
        path: dir.clone(),
        source: e,
    })?;
    let fst_err = |e: fst_writer::FstWriteError| wave_error(&files.merged, e);
    let spool = write_merged(BufWriter::new(spool), &sides, exponent).map_err(fst_err)?;
    let mut spool = spool.into_inner().map_err(|e| e.into_error())?;
    spool.seek(SeekFrom::Start(0))?;
    let mut merged = AtomicFile::create(&files.merged)?;
    io::copy(&mut spool, &mut merged).map_err(|e| TraceError::Io {
        path: files.merged.clone(),
        source: e,
    })?;
    merged.commit()?;

    let group = |side: &Side| ViewGroup {
        name: side.scope.to_owned(),
        signals: side
            .found
            .iter()
            .map(|f| ViewSignal {
                path: format!("{}.{}", side.scope, f.path),
                width: f.width,
            })
            .collect(),
    };
    let dumpfile = std::path::absolute(&files.merged)?;
    let view = View {
        dumpfile: &dumpfile,
        top: Vec::new(),
        groups: sides.iter().map(group).collect(),
        cursor: d.rtl_time * rscale,
        span: d.window * rscale,
    };
    for (path, text) in [
        (&files.gtkw, viewer::gtkw(&view)),
        (&files.surfer, viewer::surfer_commands(&view)),
    ] {
        let mut f = AtomicFile::create(path)?;
        f.write_all(text.as_bytes()).map_err(|e| TraceError::Io {
            path: path.clone(),
            source: e,
        })?;
        f.commit()?;
    }
    Ok(files)
}
