//! Whether a key or tweak register declared a fixed ring rotates: after it held a block's key
//! (tweak) at subkey 0, it took the same words rotated, as a rotating ring holds them at a
//! later subkey. A fixed register never does, so a map that says "fixed" of a rotating ring
//! is a divergence (issue 33: it passed, its subkey-0 words matching once per block).

use super::{EventComparator, Family, Kind};
use crate::engine::queue::FamilyIndex;
use crate::engine::run::{divergence, hex};
use crate::map::Ring;
use crate::report::{Divergence, FieldDiff};

impl EventComparator {
    /// The first value of a register declared a fixed ring that was its block's ring rotated.
    pub(super) fn rotated_fixed_ring(&self) -> Option<Divergence> {
        let mut found: Option<(u64, Divergence)> = None;
        for (family, ring, name) in [
            (Family::Key, self.ex.key_ring, "key"),
            (Family::Tweak, self.ex.tweak_ring, "tweak"),
        ] {
            if ring != Ring::Fixed {
                continue;
            }
            for (&stream, st) in &self.ex.streams {
                let evs = st.queue.events(family.index());
                for gap in st.queue.gaps(family.index()) {
                    let Some(m) = gap.matched else { continue };
                    if !matches!(evs[m].kind, Kind::Key(0) | Kind::Tweak(0)) {
                        continue;
                    }
                    let view = &self.layout.views[gap.view];
                    let words = &evs[m].words;
                    let n = words.len();
                    let Some(s) = (1..n).find(|s| {
                        view.words
                            .iter()
                            .zip(&gap.words)
                            .all(|(&(w, _), v)| words[(w + s) % n] == *v)
                    }) else {
                        continue;
                    };
                    if found.as_ref().is_some_and(|(e, _)| *e <= gap.edge) {
                        continue;
                    }
                    let fields = view
                        .words
                        .iter()
                        .zip(&view.fields)
                        .zip(&gap.words)
                        .map(|((&(w, _), field), v)| FieldDiff {
                            field: field.clone(),
                            golden: hex(words[w], 16),
                            rtl: hex(*v, 16),
                            unknown: false,
                        })
                        .collect();
                    let phase = format!(
                        "stream {stream}, {}, {name} ring at subkey 0: the register then held \
                         the ring rotated by {s} word(s), as a rotating ring holds it at subkey \
                         {s}: the map declares \"{name}_ring\": \"fixed\"",
                        st.blocks[evs[m].block].name()
                    );
                    found = Some((gap.edge, divergence((gap.edge, gap.time), phase, fields)));
                }
            }
        }
        found.map(|(_, d)| d)
    }
}
