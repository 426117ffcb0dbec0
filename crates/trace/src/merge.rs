//! One FST holding a divergence's golden and RTL signals side by side, under the scopes
//! `golden` and `rtl` (each keeping its own hierarchy below), with a GTKWave save file and a
//! Surfer command file that show them (see [`crate::viewer`]): wave viewers load one dump
//! file per window. Both waveforms are read with wellen (VCD or FST); only the named signals
//! are loaded and written. Times are converted to the finer of the two time units, and the
//! golden waveform is shifted so that its divergent cycle rises on the RTL's divergent edge.

use std::collections::BTreeMap;
use std::io::{Cursor, Seek, Write};
use std::path::{Path, PathBuf};

use fst_writer::{
    FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalType, FstVarDirection, FstVarType,
};
use skeinhw_outfile::OutDir;
use wellen::simple::Waveform;
use wellen::{SignalRef, Timescale};

use crate::error::TraceError;
use crate::viewer::{self, View, ViewGroup, ViewSignal};

/// The names of the files [`write_viewer_dir`] writes in its directory.
pub const VIEW_FST: &str = "view.fst";
/// See [`VIEW_FST`]: `gtkwave -a view.gtkw`.
pub const VIEW_GTKW: &str = "view.gtkw";
/// See [`VIEW_FST`]: `surfer --command-file view.sucl`.
pub const VIEW_SUCL: &str = "view.sucl";

/// What the diff found, to be shown. Signal pairs are (golden, RTL) full names
/// (`skeinhw.slot0_state_3`, `tb.dut.slot0_state_3`).
#[derive(Clone, Debug)]
pub struct Divergence<'a> {
    /// The golden waveform (`skeinhw trace -o golden.fst` or `.vcd`).
    pub golden: &'a Path,
    /// The RTL simulation's waveform.
    pub rtl: &'a Path,
    /// Put in front of an RTL name where the file has that name (Verilator's `TOP.`, a
    /// `--strip-prefix`); else the name is looked up as given.
    pub rtl_prefix: Option<&'a str>,
    /// Shown above the groups: the two clocks, to see the edges.
    pub top: &'a [(String, String)],
    /// The fields diverging at the first divergent edge: the first group, each golden signal
    /// beside its RTL signal.
    pub diverging: &'a [(String, String)],
    /// Further compared fields, for context: the second group, likewise in pairs.
    pub context: &'a [(String, String)],
    /// The time of the first divergent edge, in the RTL waveform's time units.
    pub rtl_time: u64,
    /// The golden waveform's time of the divergent cycle (its own units), moved onto
    /// `rtl_time`; `None` leaves the golden times as they are (event alignment).
    pub golden_time: Option<u64>,
    /// About how much time (RTL units) the viewers show around the cursor.
    pub window: u64,
}

/// The files [`write_viewer_files`] or [`write_viewer_dir`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewerFiles {
    /// The merged waveform (`<stem>.fst`).
    pub merged: PathBuf,
    /// The GTKWave save file (`<stem>.gtkw`): `gtkwave -a <stem>.gtkw`.
    pub gtkw: PathBuf,
    /// The Surfer command file (`<stem>.sucl`): `surfer --command-file <stem>.sucl`.
    pub surfer: PathBuf,
    /// The cursor, in the merged waveform's time units (the finer of the two sides').
    pub cursor: u64,
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

/// Finds each of `names` (with `prefix` put in front where the file has that name); a name
/// given twice is found once. Returns the signals and, per name, its index among them.
fn find(
    wave: &Waveform,
    file: &Path,
    names: &[&str],
    prefix: Option<&str>,
) -> Result<(Vec<Found>, Vec<usize>), TraceError> {
    let h = wave.hierarchy();
    let mut by_name = BTreeMap::new();
    for r in h.all_vars() {
        let v = &h[r];
        by_name.entry(v.full_name(h)).or_insert(r);
    }
    let mut out: Vec<Found> = Vec::new();
    let mut index = Vec::with_capacity(names.len());
    for &name in names {
        let prefixed = prefix.map(|p| format!("{p}{name}"));
        let (path, r) = prefixed
            .as_deref()
            .and_then(|p| by_name.get(p).map(|r| (p, r)))
            .or_else(|| by_name.get(name).map(|r| (name, r)))
            .ok_or_else(|| wave_error(file, format!("no signal `{name}`")))?;
        if let Some(i) = out.iter().position(|f| f.path == path) {
            index.push(i);
            continue;
        }
        let v = &h[*r];
        let width = v
            .length(h)
            .ok_or_else(|| wave_error(file, format!("`{name}` is not a bit vector")))?;
        index.push(out.len());
        out.push(Found {
            path: path.to_owned(),
            width,
            signal: v.signal_ref(),
        });
    }
    Ok((out, index))
}

/// The time unit as (exponent of ten, factor).
fn unit(wave: &Waveform) -> (i8, u64) {
    match wave.hierarchy().timescale() {
        Some(Timescale { factor, unit }) => (unit.to_exponent().unwrap_or(0), u64::from(factor)),
        None => (0, 1),
    }
}

/// One side's signals, loaded, with the factor that converts its times to the common unit
/// and the shift added then (times below 0 are clamped to 0).
struct Side {
    scope: &'static str,
    wave: Waveform,
    found: Vec<Found>,
    /// Per name asked for (top, diverging, context, in order), its index in `found`.
    index: Vec<usize>,
    scale: u64,
    shift: i128,
}

impl Side {
    /// The signal shown for name `k` (in the order asked for): `golden.skeinhw.clk`.
    fn shown(&self, k: usize) -> ViewSignal {
        let f = &self.found[self.index[k]];
        ViewSignal {
            path: format!("{}.{}", self.scope, f.path),
            width: f.width,
        }
    }
}

fn open(
    scope: &'static str,
    path: &Path,
    names: &[&str],
    prefix: Option<&str>,
) -> Result<Side, TraceError> {
    let mut wave = wellen::simple::read(path).map_err(|e| wave_error(path, e))?;
    let (found, index) = find(&wave, path, names, prefix)?;
    let refs: Vec<SignalRef> = found.iter().map(|f| f.signal).collect();
    wave.load_signals(&refs);
    Ok(Side {
        scope,
        wave,
        found,
        index,
        scale: 1,
        shift: 0,
    })
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
                let time = i128::from(times[t as usize] * side.scale) + side.shift;
                let time = u64::try_from(time.max(0)).unwrap_or(u64::MAX);
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

/// The merged waveform and what the save files show, from the divergence.
struct Merged {
    fst: Vec<u8>,
    groups: Vec<ViewGroup>,
    top: Vec<ViewSignal>,
    cursor: u64,
    span: u64,
}

/// Reads both sides and writes the merged FST (in memory: only the shown signals).
fn merge(d: &Divergence<'_>) -> Result<Merged, TraceError> {
    let pairs: Vec<&(String, String)> = d.top.iter().chain(d.diverging).chain(d.context).collect();
    let golden_names: Vec<&str> = pairs.iter().map(|f| f.0.as_str()).collect();
    let rtl_names: Vec<&str> = pairs.iter().map(|f| f.1.as_str()).collect();
    let mut g = open("golden", d.golden, &golden_names, None)?;
    let mut r = open("rtl", d.rtl, &rtl_names, d.rtl_prefix)?;
    let ((ge, gs), (re, rs)) = (unit(&g.wave), unit(&r.wave));
    let exponent = ge.min(re);
    let pow = |e: i8| 10u64.pow((e - exponent) as u32);
    (g.scale, r.scale) = (gs * pow(ge), rs * pow(re));
    let cursor = d.rtl_time * r.scale;
    if let Some(t) = d.golden_time {
        g.shift = i128::from(cursor) - i128::from(t * g.scale);
    }
    let sides = [g, r];
    let fst_err = |e: fst_writer::FstWriteError| wave_error(d.rtl, e);
    let fst = write_merged(Cursor::new(Vec::new()), &sides, exponent)
        .map_err(fst_err)?
        .into_inner();
    let [g, r] = &sides;
    let pair = |range: std::ops::Range<usize>| -> Vec<ViewSignal> {
        range.flat_map(|k| [g.shown(k), r.shown(k)]).collect()
    };
    let (t, dv) = (d.top.len(), d.diverging.len());
    let mut groups = vec![ViewGroup {
        name: "diverging".into(),
        signals: pair(t..t + dv),
    }];
    if !d.context.is_empty() {
        groups.push(ViewGroup {
            name: "context".into(),
            signals: pair(t + dv..pairs.len()),
        });
    }
    Ok(Merged {
        fst,
        top: pair(0..t),
        groups,
        cursor,
        span: d.window * sides[1].scale,
    })
}

/// The GTKWave save file and the Surfer command file of `m`, loading `dumpfile`.
fn save_files(m: &Merged, dumpfile: &Path) -> (String, String) {
    let view = View {
        dumpfile,
        top: m.top.clone(),
        groups: m.groups.clone(),
        cursor: m.cursor,
        span: m.span,
    };
    (viewer::gtkw(&view), viewer::surfer_commands(&view))
}

/// Writes `<stem>.fst` (both sides' signals), `<stem>.gtkw` and `<stem>.sucl` (the clocks, the
/// `diverging` group, then the `context` group, the cursor on the first divergent edge),
/// replacing files that are there.
pub fn write_viewer_files(d: &Divergence<'_>, stem: &Path) -> Result<ViewerFiles, TraceError> {
    let m = merge(d)?;
    let with_ext = |ext: &str| {
        let mut p = stem.as_os_str().to_owned();
        p.push(ext);
        PathBuf::from(p)
    };
    let files = ViewerFiles {
        merged: with_ext(".fst"),
        gtkw: with_ext(".gtkw"),
        surfer: with_ext(".sucl"),
        cursor: m.cursor,
    };
    let (gtkw, sucl) = save_files(&m, &std::path::absolute(&files.merged)?);
    for (path, bytes) in [
        (&files.merged, m.fst.as_slice()),
        (&files.gtkw, gtkw.as_bytes()),
        (&files.surfer, sucl.as_bytes()),
    ] {
        let options = skeinhw_outfile::Options::new().force(true);
        skeinhw_outfile::write_file(path, bytes, options)?;
    }
    Ok(files)
}

/// Writes [`VIEW_FST`], [`VIEW_GTKW`] and [`VIEW_SUCL`] into the directory `dir` under the
/// rules of an output directory (`skeinhw_outfile::OutDir`): created if missing; a directory
/// holding anything skeinhw did not write there is refused, one holding only what skeinhw
/// wrote is replaced only with `force`; each file is written whole, then renamed into place.
pub fn write_viewer_dir(
    d: &Divergence<'_>,
    dir: &Path,
    force: bool,
) -> Result<ViewerFiles, TraceError> {
    check_viewer_dir(dir, force)?;
    let m = merge(d)?;
    let files = ViewerFiles {
        merged: dir.join(VIEW_FST),
        gtkw: dir.join(VIEW_GTKW),
        surfer: dir.join(VIEW_SUCL),
        cursor: m.cursor,
    };
    let (gtkw, sucl) = save_files(&m, &std::path::absolute(&files.merged)?);
    let mut out = OutDir::open(dir, force)?;
    out.write_files(&[
        (VIEW_FST, &m.fst),
        (VIEW_GTKW, gtkw.as_bytes()),
        (VIEW_SUCL, sucl.as_bytes()),
    ])?;
    Ok(files)
}

/// Refuses a viewer directory [`write_viewer_dir`] would refuse, without creating it: for a
/// check before a long diff.
pub fn check_viewer_dir(dir: &Path, force: bool) -> Result<(), TraceError> {
    if std::fs::symlink_metadata(dir).is_ok() {
        OutDir::open(dir, force)?;
    }
    Ok(())
}
