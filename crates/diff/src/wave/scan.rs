//! A waveform opened for `skeinhw map`'s search: every variable, then every value change.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use wellen::stream::{self, Filter};
use wellen::{LoadOptions, ScopeType, SignalRef, VarType};

use super::Bits;
use super::counted::Counted;
use super::precheck::precheck;
use super::wellen_values::decode_words;
use crate::error::DiffError;
use crate::options::ReadProgress;
use crate::vcd;

/// A signal of a waveform as `skeinhw map` keys it: the VCD id number with our reader,
/// wellen's signal index with wellen. Variables that are one signal share it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SignalKey(usize);

impl SignalKey {
    /// The key as a number (a table index).
    pub(crate) fn index(self) -> usize {
        self.0
    }
}

/// A variable of a waveform as `skeinhw map` sees it.
pub(crate) struct ScanVar {
    /// Full hierarchical name.
    pub name: String,
    /// Declared width (1 for a real or string).
    pub width: u32,
    /// A net (wire, tri, port, wand, wor) rather than a register.
    pub net: bool,
    /// Declared inside a function or task: a scratch copy, not a place.
    pub in_function: bool,
    /// Its signal.
    pub key: SignalKey,
}

/// A waveform opened for `skeinhw map`'s search: every variable, then every value change of
/// the signals asked for. A VCD is read by our own reader (as the diff reads it); an FST, or
/// a VCD whose header our reader leaves alone, by wellen.
pub(crate) enum Scan {
    Ours {
        input: BufReader<Counted>,
        header: vcd::Header,
        vars: Vec<ScanVar>,
    },
    Wellen {
        stream: stream::StreamingWaveform<BufReader<Counted>>,
        vars: Vec<ScanVar>,
    },
}

impl Scan {
    /// Opens `path`, naming it `file` in errors; `progress` follows the reading.
    pub(crate) fn open(
        path: &Path,
        file: &str,
        progress: &ReadProgress,
    ) -> Result<Scan, DiffError> {
        let wave_error = |message: String| DiffError::Wave {
            file: file.to_string(),
            message,
        };
        let open = || {
            File::open(path)
                .map(|f| BufReader::with_capacity(1 << 16, Counted::new(f, progress.clone())))
                .map_err(|e| wave_error(e.to_string()))
        };
        let mut input = open()?;
        let fst = precheck(&mut input, false).map_err(wave_error)?;
        if !fst
            && let Some(header) = vcd::read_header(&mut input)
            && header.ambiguous.is_empty()
            && header.vars.iter().all(|v| v.kind == vcd::Kind::Bits)
        {
            let vars = header
                .vars
                .iter()
                .map(|v| ScanVar {
                    name: v.name.clone(),
                    width: v.width,
                    net: matches!(v.tpe.as_str(), "wire" | "tri" | "port" | "wand" | "wor"),
                    in_function: v.in_function,
                    key: SignalKey(v.id as usize),
                })
                .collect();
            return Ok(Scan::Ours {
                input,
                header,
                vars,
            });
        }
        let load = LoadOptions {
            multi_thread: false,
            remove_scopes_with_empty_name: false,
        };
        let stream = stream::read(open()?, &load)
            .map_err(|e| wave_error(e.to_string().replace('\n', " ")))?;
        let h = stream.hierarchy();
        // A function's or task's variables (Icarus dumps them) are scratch copies.
        let mut scratch = std::collections::HashSet::new();
        let mut scopes: Vec<wellen::ScopeRef> = h.scopes().collect();
        while let Some(sr) = scopes.pop() {
            let scope = &h[sr];
            if matches!(
                scope.scope_type(),
                ScopeType::Function
                    | ScopeType::Task
                    | ScopeType::VhdlFunction
                    | ScopeType::VhdlProcedure
            ) {
                scratch.extend(scope.all_vars(h));
            } else {
                scopes.extend(scope.scopes(h));
            }
        }
        let vars = h
            .all_vars()
            .map(|var_ref| {
                let var = &h[var_ref];
                ScanVar {
                    name: var.full_name(h),
                    width: var.length(h).unwrap_or(1),
                    net: matches!(
                        var.var_type(),
                        VarType::Wire | VarType::Tri | VarType::Port | VarType::WAnd | VarType::WOr
                    ),
                    in_function: scratch.contains(&var_ref),
                    key: SignalKey(var.signal_ref().index()),
                }
            })
            .collect();
        Ok(Scan::Wellen { stream, vars })
    }

    /// Every variable, in declaration order.
    pub(crate) fn vars(&self) -> &[ScanVar] {
        match self {
            Scan::Ours { vars, .. } | Scan::Wellen { vars, .. } => vars,
        }
    }

    /// Calls `on_change(time, signal, words)` for every value change of the signals `watch`,
    /// `words` its value least significant word first, or `None` if it is not a known value
    /// (X, Z, ...). An error of `on_change` ends the reading and is returned.
    pub(crate) fn stream(
        self,
        file: &str,
        watch: &[SignalKey],
        mut on_change: impl FnMut(u64, SignalKey, Option<&[u64]>) -> Result<(), DiffError>,
    ) -> Result<(), DiffError> {
        let wave_error = |message: String| DiffError::Wave {
            file: file.to_string(),
            message,
        };
        match self {
            Scan::Ours {
                mut input, header, ..
            } => {
                let ids: Vec<u64> = watch.iter().map(|k| k.0 as u64).collect();
                let widths: Vec<u32> = watch
                    .iter()
                    .map(|k| {
                        header
                            .vars
                            .iter()
                            .find(|v| v.id as usize == k.0)
                            .map_or(1, |v| v.width)
                    })
                    .collect();
                struct Sink<'a, F> {
                    keys: &'a [SignalKey],
                    widths: Vec<u32>,
                    value: Bits,
                    on_change: F,
                    failed: Option<DiffError>,
                }
                impl<F> vcd::Sink for Sink<'_, F>
                where
                    F: FnMut(u64, SignalKey, Option<&[u64]>) -> Result<(), DiffError>,
                {
                    fn change(
                        &mut self,
                        time: u64,
                        slot: usize,
                        value: &[u8],
                    ) -> Result<bool, String> {
                        vcd::decode(value, self.widths[slot], &mut self.value)?;
                        let words = self
                            .value
                            .unknown
                            .is_none()
                            .then_some(self.value.words.as_slice());
                        match (self.on_change)(time, self.keys[slot], words) {
                            Ok(()) => Ok(true),
                            Err(e) => {
                                self.failed = Some(e);
                                Ok(false)
                            }
                        }
                    }
                }
                let mut sink = Sink {
                    keys: watch,
                    widths,
                    value: Bits::known(vec![], 0),
                    on_change,
                    failed: None,
                };
                let lookup = vcd::Lookup::new(&ids);
                vcd::stream_body(&mut input, header.body_line, &lookup, &mut sink)
                    .map_err(wave_error)?;
                match sink.failed {
                    Some(e) => Err(e),
                    None => Ok(()),
                }
            }
            Scan::Wellen { mut stream, .. } => {
                let refs: Vec<SignalRef> = watch
                    .iter()
                    .map(|k| SignalRef::from_index(k.0).expect("a signal index"))
                    .collect();
                let filter = Filter::include_signals(&refs);
                let mut words = Vec::new();
                let result = stream.stream_changes(filter, |time, signal, value| {
                    let known = decode_words(value, &mut words);
                    on_change(
                        time,
                        SignalKey(signal.index()),
                        known.then_some(words.as_slice()),
                    )
                });
                match result {
                    Ok(()) => Ok(()),
                    Err(stream::StreamError::Callback(e)) => Err(e),
                    Err(stream::StreamError::Wellen(e)) => {
                        Err(wave_error(e.to_string().replace('\n', " ")))
                    }
                }
            }
        }
    }
}
