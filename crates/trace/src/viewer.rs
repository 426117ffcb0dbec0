//! Save files for wave viewers, to look at a divergence the diff found: signals in named
//! groups (the diff's are `diverging`, then `context`, each field's golden signal beside its
//! RTL signal), the cursor on the first divergent edge. GTKWave and Surfer show one dump file per window, so [`crate::write_viewer_dir`] first writes
//! one FST holding both sides' signals under the scopes `golden` and `rtl`; the save files
//! below name that file (or any one file holding both).
//!
//! - GTKWave (`gtkwave -a view.gtkw`): `[dumpfile]`, `[timestart]`, the zoom and marker line
//!   `*<zoom> <marker> -1 ...` (the 26 named markers unset), `[treeopen]` per scope, then the
//!   traces: `@200` and `-golden` is a comment row heading a group, `@28` a 1-bit signal in
//!   binary, `@22` a vector in hex; a vector's name carries its range, `name[63:0]`, as
//!   GTKWave's VCD and FST loaders name it.
//! - Surfer (`surfer --command-file view.sucl`): the commands of its documented command
//!   language, one per line: `load_file`, `divider_add`, `variable_add`, `cursor_set`,
//!   `goto_cursor` (vectors show in hex, Surfer's default).

use std::fmt::Write as _;
use std::path::Path;

/// One signal of a save file: its full hierarchical name (scopes joined with `.`, as the
/// viewers show them) and width in bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewSignal {
    /// `golden.skeinhw.slot0_state_3`.
    pub path: String,
    /// Width in bits (1 is shown in binary, more in hex).
    pub width: u32,
}

/// A named group of signals (a comment row, then the signals).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewGroup {
    /// The heading: `golden`, `rtl`.
    pub name: String,
    /// The signals, in order.
    pub signals: Vec<ViewSignal>,
}

/// What a save file shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View<'a> {
    /// The dump file the viewer loads (written as given; give an absolute path for a save
    /// file that works from any directory).
    pub dumpfile: &'a Path,
    /// Signals shown before the groups (the clock).
    pub top: Vec<ViewSignal>,
    /// The groups, in order.
    pub groups: Vec<ViewGroup>,
    /// Cursor (GTKWave's marker): the time of the first divergent edge, in the dump file's
    /// time units.
    pub cursor: u64,
    /// About how many time units the window shows around the cursor (GTKWave's zoom).
    pub span: u64,
}

/// The GTKWave zoom that shows about `span` time units in a window about 1000 pixels wide:
/// GTKWave draws 2^zoom pixels per time unit.
fn gtkwave_zoom(span: u64) -> i32 {
    let units_per_pixel = span.max(1) as f64 / 1000.0;
    -(units_per_pixel.log2().ceil() as i32)
}

/// The name GTKWave gives a signal: a vector's carries its range.
fn gtkwave_name(s: &ViewSignal) -> String {
    if s.width > 1 {
        format!("{}[{}:0]", s.path, s.width - 1)
    } else {
        s.path.clone()
    }
}

/// The scopes to open in GTKWave's tree: every prefix of every signal's path, in order of
/// first appearance, each ending in `.`.
fn open_scopes(view: &View<'_>) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    let all = view
        .top
        .iter()
        .chain(view.groups.iter().flat_map(|g| &g.signals));
    for s in all {
        let mut end = 0;
        while let Some(dot) = s.path[end..].find('.') {
            end += dot + 1;
            let scope = &s.path[..end];
            if !scopes.iter().any(|x| x == scope) {
                scopes.push(scope.to_owned());
            }
        }
    }
    scopes
}

/// A GTKWave save file (`.gtkw`) for `view`.
pub fn gtkw(view: &View<'_>) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "[*] skeinhw: golden and RTL signals at the first divergence"
    );
    let _ = writeln!(w, "[dumpfile] \"{}\"", view.dumpfile.display());
    let start = view.cursor.saturating_sub(view.span / 2);
    let _ = writeln!(w, "[timestart] {start}");
    let _ = write!(w, "*{}.000000 {}", gtkwave_zoom(view.span), view.cursor);
    for _ in 0..26 {
        let _ = write!(w, " -1");
    }
    let _ = writeln!(w);
    for scope in open_scopes(view) {
        let _ = writeln!(w, "[treeopen] {scope}");
    }
    // A format flag line is written when the flag changes (as GTKWave writes its own files).
    let mut flag = "";
    for (heading, signals) in std::iter::once((None, &view.top))
        .chain(view.groups.iter().map(|g| (Some(&g.name), &g.signals)))
    {
        if let Some(name) = heading {
            let _ = writeln!(w, "@200\n-{name}");
            flag = "@200";
        }
        for s in signals {
            let want = if s.width > 1 { "@22" } else { "@28" };
            if flag != want {
                let _ = writeln!(w, "{want}");
                flag = want;
            }
            let _ = writeln!(w, "{}", gtkwave_name(s));
        }
    }
    out
}

/// A Surfer command file (`.sucl`, for `surfer --command-file`) for `view`.
pub fn surfer_commands(view: &View<'_>) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "load_file {}", view.dumpfile.display());
    let add = |w: &mut String, s: &ViewSignal| {
        let _ = writeln!(w, "variable_add {}", s.path);
    };
    for s in &view.top {
        add(w, s);
    }
    for g in &view.groups {
        let _ = writeln!(w, "divider_add {}", g.name);
        for s in &g.signals {
            add(w, s);
        }
    }
    let _ = writeln!(w, "cursor_set {}", view.cursor);
    let _ = writeln!(w, "goto_cursor");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(path: &str, width: u32) -> ViewSignal {
        ViewSignal {
            path: path.into(),
            width,
        }
    }

    fn view(dump: &Path) -> View<'_> {
        View {
            dumpfile: dump,
            top: vec![sig("rtl.tb.clk", 1)],
            groups: vec![
                ViewGroup {
                    name: "golden".into(),
                    signals: vec![sig("golden.skeinhw.slot0_state_3", 64)],
                },
                ViewGroup {
                    name: "rtl".into(),
                    signals: vec![
                        sig("rtl.tb.dut.slot0_state_3", 64),
                        sig("rtl.tb.dut.slot0_valid", 1),
                    ],
                },
            ],
            cursor: 4710,
            span: 200,
        }
    }

    #[test]
    fn gtkw_names_the_file_marker_scopes_groups_and_formats() {
        let dump = Path::new("/w/merged.fst");
        let text = gtkw(&view(dump));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "[dumpfile] \"/w/merged.fst\"");
        assert_eq!(lines[2], "[timestart] 4610");
        let marker: Vec<&str> = lines[3].split(' ').collect();
        assert_eq!(
            marker[0], "*2.000000",
            "200 units in 1000 pixels: 4 pixels a unit"
        );
        assert_eq!(marker[1], "4710");
        assert_eq!(marker.len(), 2 + 26);
        assert!(marker[2..].iter().all(|m| *m == "-1"));
        assert_eq!(
            lines[4..],
            [
                "[treeopen] rtl.",
                "[treeopen] rtl.tb.",
                "[treeopen] golden.",
                "[treeopen] golden.skeinhw.",
                "[treeopen] rtl.tb.dut.",
                "@28",
                "rtl.tb.clk",
                "@200",
                "-golden",
                "@22",
                "golden.skeinhw.slot0_state_3[63:0]",
                "@200",
                "-rtl",
                "@22",
                "rtl.tb.dut.slot0_state_3[63:0]",
                "@28",
                "rtl.tb.dut.slot0_valid",
            ]
        );
    }

    #[test]
    fn surfer_commands_load_add_and_set_the_cursor() {
        let dump = Path::new("/w/merged.fst");
        let text = surfer_commands(&view(dump));
        assert_eq!(
            text.lines().collect::<Vec<_>>(),
            [
                "load_file /w/merged.fst",
                "variable_add rtl.tb.clk",
                "divider_add golden",
                "variable_add golden.skeinhw.slot0_state_3",
                "divider_add rtl",
                "variable_add rtl.tb.dut.slot0_state_3",
                "variable_add rtl.tb.dut.slot0_valid",
                "cursor_set 4710",
                "goto_cursor",
            ]
        );
    }

    #[test]
    fn zoom_shows_about_the_span() {
        assert_eq!(gtkwave_zoom(1000), 0);
        assert_eq!(gtkwave_zoom(4000), -2);
        assert_eq!(gtkwave_zoom(250), 2);
    }
}
