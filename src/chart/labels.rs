//! Where the chart's texts go: each text is offered candidate boxes in the
//! order it prefers them, and takes the first that covers nothing already
//! on the chart (another text, a marker, a line), or else the one that
//! covers least. Lines and markers are registered before any text, so no
//! text's white halo hides a point or a roof.

/// A box in pixels: left, top, right, bottom.
pub type Rect = (i32, i32, i32, i32);

/// A line in pixels.
pub type Segment = ((i32, i32), (i32, i32));

/// Whether two boxes overlap.
pub fn overlaps(a: Rect, b: Rect) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Whether a segment crosses (or lies in) a box.
pub fn crosses(s: Segment, r: Rect) -> bool {
    // Clip the segment to the box's x range, then compare its y range there.
    let ((ax, ay), (bx, by)) = s;
    let (ax, ay, bx, by) = (ax as f64, ay as f64, bx as f64, by as f64);
    let (x0, x1) = (r.0 as f64, r.2 as f64);
    let (lo, hi) = if ax <= bx { (ax, bx) } else { (bx, ax) };
    if hi < x0 || lo > x1 {
        return false;
    }
    let y_at = |x: f64| {
        if (bx - ax).abs() < 1e-9 {
            ay
        } else {
            ay + (by - ay) * (x - ax) / (bx - ax)
        }
    };
    let (c0, c1) = (lo.max(x0), hi.min(x1));
    let (ya, yb) = if (bx - ax).abs() < 1e-9 {
        (ay.min(by), ay.max(by))
    } else {
        let (p, q) = (y_at(c0), y_at(c1));
        (p.min(q), p.max(q))
    };
    yb >= r.1 as f64 && ya <= r.3 as f64
}

/// Everything already on the chart that a text should not cover.
#[derive(Debug)]
pub struct Placer {
    /// Where texts may go.
    area: Rect,
    texts: Vec<Rect>,
    marks: Vec<Rect>,
    lines: Vec<Segment>,
}

/// What covering one thing costs: a text hides another text, a marker, or
/// only a line it crosses.
const COST_TEXT: u32 = 1000;
const COST_MARK: u32 = 20;
const COST_LINE: u32 = 3;

impl Placer {
    /// A placer for texts inside `area`.
    pub fn new(area: Rect) -> Self {
        Placer {
            area,
            texts: Vec::new(),
            marks: Vec::new(),
            lines: Vec::new(),
        }
    }

    /// A box already taken by a text (or the legend).
    pub fn text(&mut self, r: Rect) {
        self.texts.push(r);
    }

    /// A marker (a point), `radius` pixels around `at`.
    pub fn mark(&mut self, at: (i32, i32), radius: i32) {
        self.marks
            .push((at.0 - radius, at.1 - radius, at.0 + radius, at.1 + radius));
    }

    /// A line drawn on the chart.
    pub fn line(&mut self, s: Segment) {
        self.lines.push(s);
    }

    /// What placing a text in `r` would cover; `None` outside the area.
    pub fn cost(&self, r: Rect) -> Option<u32> {
        let a = self.area;
        if r.0 < a.0 || r.1 < a.1 || r.2 > a.2 || r.3 > a.3 {
            return None;
        }
        let n = |v: &[Rect]| v.iter().filter(|q| overlaps(**q, r)).count() as u32;
        let lines = self.lines.iter().filter(|s| crosses(**s, r)).count() as u32;
        Some(COST_TEXT * n(&self.texts) + COST_MARK * n(&self.marks) + COST_LINE * lines)
    }

    /// The first candidate that covers nothing, taken; `None` when every
    /// candidate covers something.
    pub fn choose_free(&mut self, candidates: &[Rect]) -> Option<usize> {
        let i = candidates.iter().position(|r| self.cost(*r) == Some(0))?;
        self.texts.push(candidates[i]);
        Some(i)
    }

    /// The first candidate that covers no text and no marker (a roof line
    /// under it is fine), taken; `None` when there is none.
    pub fn choose_clear(&mut self, candidates: &[Rect]) -> Option<usize> {
        let a = self.area;
        let inside = |r: &Rect| r.0 >= a.0 && r.1 >= a.1 && r.2 <= a.2 && r.3 <= a.3;
        let clear = |r: &Rect| {
            !self
                .texts
                .iter()
                .chain(&self.marks)
                .any(|q| overlaps(*q, *r))
        };
        let i = candidates.iter().position(|r| inside(r) && clear(r))?;
        self.texts.push(candidates[i]);
        Some(i)
    }

    /// Among the first `near` candidates, the one covering least, if it
    /// covers no other text (a label next to its point, even across a line,
    /// reads better than one moved away); else as [`Placer::choose`] over all.
    pub fn choose_near(&mut self, candidates: &[Rect], near: usize) -> Option<usize> {
        let best = candidates
            .iter()
            .take(near)
            .enumerate()
            .filter_map(|(i, r)| self.cost(*r).map(|c| (c, i)))
            .min();
        match best {
            Some((c, i)) if c < COST_TEXT => {
                self.texts.push(candidates[i]);
                Some(i)
            }
            _ => self.choose(candidates),
        }
    }

    /// The first candidate that covers nothing, else the one covering
    /// least (the earlier among equals); it is taken. Returns its index,
    /// or `None` when every candidate lies outside the area.
    pub fn choose(&mut self, candidates: &[Rect]) -> Option<usize> {
        let mut best: Option<(u32, usize)> = None;
        for (i, r) in candidates.iter().enumerate() {
            let Some(c) = self.cost(*r) else { continue };
            if best.is_none_or(|b| c < b.0) {
                best = Some((c, i));
            }
            if c == 0 {
                break;
            }
        }
        let (_, i) = best?;
        self.texts.push(candidates[i]);
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_boxes() {
        let r = (10, 10, 20, 20);
        // Through the box, diagonally.
        assert!(crosses(((0, 30), (30, 0)), r));
        // Passing beside it: below-right of the corner.
        assert!(!crosses(((0, 50), (50, 21)), r));
        // Horizontal just above the top edge, and one along it.
        assert!(!crosses(((0, 9), (40, 9)), r));
        assert!(crosses(((0, 10), (40, 10)), r));
        // Vertical through it, and one left of it.
        assert!(crosses(((15, 0), (15, 40)), r));
        assert!(!crosses(((5, 0), (5, 40)), r));
        // Ends before the box starts.
        assert!(!crosses(((0, 15), (9, 15)), r));
    }

    #[test]
    fn a_text_takes_the_first_free_place_else_the_least_covered() {
        let mut p = Placer::new((0, 0, 100, 100));
        p.text((0, 0, 50, 20));
        p.mark((70, 10), 3);
        p.line(((0, 50), (100, 50)));
        let a = (10, 5, 40, 15); // on a text
        let b = (60, 5, 90, 15); // on a marker
        let c = (10, 45, 40, 55); // on a line
        let d = (10, 70, 40, 80); // free
        let outside = (90, 90, 120, 110);
        assert_eq!(p.choose(&[outside, a, b, c, d]), Some(4));
        // d is now taken: the least covering of the rest is on the line.
        assert_eq!(p.choose(&[a, b, d, c]), Some(3));
        assert_eq!(p.choose(&[outside]), None);
        // Near its point: a line crossed is fine, another text is not.
        let e = (10, 25, 40, 35);
        p.line(((0, 30), (100, 30)));
        assert_eq!(p.choose_near(&[a, e, (60, 85, 90, 95)], 2), Some(1));
        assert_eq!(p.choose_near(&[a, (60, 85, 90, 95)], 1), Some(1));
        // Only a free place will do: none left among these.
        assert_eq!(p.choose_free(&[a, b, c, d]), None);
        assert_eq!(p.choose_free(&[a, (60, 70, 90, 80)]), Some(1));
    }
}
