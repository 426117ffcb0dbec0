//! Labels beside points: each placed at the first spot around its point that is inside the
//! plot and clear of the labels, markers and legend already there; a label with no such spot
//! is left out (its point still names itself on hover).

/// A box in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x0: f64,
    /// Top.
    pub y0: f64,
    /// Right.
    pub x1: f64,
    /// Bottom.
    pub y1: f64,
}

impl Rect {
    /// The box of a marker of radius `r` at `(x, y)`.
    pub fn around(x: f64, y: f64, r: f64) -> Rect {
        Rect {
            x0: x - r,
            y0: y - r,
            x1: x + r,
            y1: y + r,
        }
    }

    /// Whether the two boxes share any area.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn inside(&self, o: &Rect) -> bool {
        self.x0 >= o.x0 && self.x1 <= o.x1 && self.y0 >= o.y0 && self.y1 <= o.y1
    }
}

/// A placed label: its box, and whether it sits left of its point (text anchored at its end).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    /// The label's box.
    pub rect: Rect,
    /// Left of the point: the text ends at `rect.x1`.
    pub left: bool,
    /// Far enough from its point to need a line back to it.
    pub leader: bool,
}

/// Places labels one after another, each clear of everything placed or blocked before.
pub struct Placer {
    bounds: Rect,
    taken: Vec<Rect>,
}

impl Placer {
    /// A placer for labels inside `bounds`.
    pub fn new(bounds: Rect) -> Placer {
        Placer {
            bounds,
            taken: Vec::new(),
        }
    }

    /// Keeps labels off `r` (a marker, the legend).
    pub fn block(&mut self, r: Rect) {
        self.taken.push(r);
    }

    /// Places a `w` x `h` label for the point at `(x, y)`: right of it, left of it, then
    /// diagonally, above and below, and further out; `None` when every spot is taken.
    pub fn place(&mut self, (x, y): (f64, f64), w: f64, h: f64) -> Option<Placed> {
        for (i, d) in [5.0, 16.0, 30.0].into_iter().enumerate() {
            let diag = d * 0.7;
            let spots = [
                (x + d, y - h / 2.0, false),
                (x - d - w, y - h / 2.0, true),
                (x + diag, y - diag - h, false),
                (x + diag, y + diag, false),
                (x - diag - w, y - diag - h, true),
                (x - diag - w, y + diag, true),
                (x - w / 2.0, y - d - h, false),
                (x - w / 2.0, y + d, false),
            ];
            for (x0, y0, left) in spots {
                let rect = Rect {
                    x0,
                    y0,
                    x1: x0 + w,
                    y1: y0 + h,
                };
                if rect.inside(&self.bounds) && !self.taken.iter().any(|t| t.overlaps(&rect)) {
                    self.taken.push(rect);
                    return Some(Placed {
                        rect,
                        left,
                        leader: i > 0,
                    });
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crowded_labels_never_overlap() {
        let bounds = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 400.0,
            y1: 300.0,
        };
        let mut placer = Placer::new(bounds);
        let points: Vec<(f64, f64)> = (0..30)
            .map(|i| (100.0 + 5.0 * i as f64, 150.0 - 3.0 * i as f64))
            .collect();
        for &(x, y) in &points {
            placer.block(Rect::around(x, y, 3.0));
        }
        let placed: Vec<Placed> = points
            .iter()
            .filter_map(|&p| placer.place(p, 80.0, 11.0))
            .collect();
        assert!(placed.len() >= 8, "{}", placed.len());
        for (i, a) in placed.iter().enumerate() {
            assert!(a.rect.inside(&bounds));
            for b in &placed[i + 1..] {
                assert!(!a.rect.overlaps(&b.rect), "{a:?} {b:?}");
            }
            for &(x, y) in &points {
                assert!(!a.rect.overlaps(&Rect::around(x, y, 3.0)));
            }
        }
    }

    #[test]
    fn a_lone_point_is_labelled_on_its_right() {
        let mut placer = Placer::new(Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 400.0,
            y1: 300.0,
        });
        let p = placer.place((100.0, 100.0), 50.0, 10.0).unwrap();
        assert!(!p.left && !p.leader && p.rect.x0 > 100.0);
        // At the right edge it goes left.
        let p = placer.place((390.0, 200.0), 50.0, 10.0).unwrap();
        assert!(p.left && p.rect.x1 < 390.0);
    }
}
