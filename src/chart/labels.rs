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

/// Side of a grid cell, pixels: about a label's height, so a query looks
/// at a few cells.
const CELL: i32 = 32;

/// Things of one kind on the chart, found by the grid cells they touch:
/// what a box covers is looked up in its own cells, not in every thing
/// drawn (a chart of 100,000 points places its labels in seconds).
#[derive(Debug)]
struct Index<T> {
    items: Vec<T>,
    /// Each cell's items, row by row over the area.
    cells: Vec<Vec<u32>>,
    /// The last query each item was counted in (counted once however many
    /// cells it touches).
    seen: std::cell::RefCell<(u32, Vec<u32>)>,
}

impl<T: Copy> Index<T> {
    fn new(cells: usize) -> Self {
        Index {
            items: Vec::new(),
            cells: vec![Vec::new(); cells],
            seen: std::cell::RefCell::new((0, Vec::new())),
        }
    }

    /// Add `item`, in the cells `at` gives.
    fn add(&mut self, item: T, at: impl IntoIterator<Item = usize>) {
        let id = self.items.len() as u32;
        self.items.push(item);
        for c in at {
            self.cells[c].push(id);
        }
        self.seen.borrow_mut().1.push(0);
    }

    /// Whether any item in the cells `at` satisfies `hit`.
    fn any(&self, at: impl IntoIterator<Item = usize>, hit: impl Fn(&T) -> bool) -> bool {
        at.into_iter().any(|c| {
            self.cells[c]
                .iter()
                .any(|&id| hit(&self.items[id as usize]))
        })
    }

    /// How many items in the cells `at` satisfy `hit`, each counted once.
    fn count(&self, at: impl IntoIterator<Item = usize>, hit: impl Fn(&T) -> bool) -> u32 {
        let mut seen = self.seen.borrow_mut();
        seen.0 = seen.0.wrapping_add(1);
        let stamp = seen.0;
        let mut n = 0;
        for c in at {
            for &id in &self.cells[c] {
                let s = &mut seen.1[id as usize];
                if *s != stamp {
                    *s = stamp;
                    n += u32::from(hit(&self.items[id as usize]));
                }
            }
        }
        n
    }
}

/// Everything already on the chart that a text should not cover.
#[derive(Debug)]
pub struct Placer {
    /// Where texts may go.
    area: Rect,
    /// Its grid: columns and rows of [`CELL`] pixels.
    grid: (usize, usize),
    texts: Index<Rect>,
    marks: Index<Rect>,
    lines: Index<Segment>,
}

/// What covering one thing costs: a text hides another text, a marker, or
/// only a line it crosses.
const COST_TEXT: u32 = 1000;
const COST_MARK: u32 = 20;
const COST_LINE: u32 = 3;

impl Placer {
    /// A placer for texts inside `area`.
    pub fn new(area: Rect) -> Self {
        let span = |a: i32, b: i32| ((b - a).max(1) as usize).div_ceil(CELL as usize);
        let grid = (span(area.0, area.2), span(area.1, area.3));
        let cells = grid.0 * grid.1;
        Placer {
            area,
            grid,
            texts: Index::new(cells),
            marks: Index::new(cells),
            lines: Index::new(cells),
        }
    }

    /// The grid cells `r` touches (those inside the area).
    fn cells(&self, r: Rect) -> impl Iterator<Item = usize> + use<> {
        let (a, (cols, rows)) = (self.area, self.grid);
        let at =
            |v: i32, o: i32, n: usize| ((v - o).div_euclid(CELL)).clamp(0, n as i32 - 1) as usize;
        let outside = r.2 < a.0 || r.0 > a.2 || r.3 < a.1 || r.1 > a.3;
        let (c0, c1) = (at(r.0, a.0, cols), at(r.2, a.0, cols));
        let (r0, r1) = (at(r.1, a.1, rows), at(r.3, a.1, rows));
        let rows = if outside { 1..1 } else { r0..r1 + 1 };
        rows.flat_map(move |y| (c0..=c1).map(move |x| y * cols + x))
    }

    /// The cell's box.
    fn cell_box(&self, c: usize) -> Rect {
        let (x, y) = ((c % self.grid.0) as i32, (c / self.grid.0) as i32);
        let (l, t) = (self.area.0 + x * CELL, self.area.1 + y * CELL);
        (l, t, l + CELL, t + CELL)
    }

    /// A box already taken by a text (or the legend).
    pub fn text(&mut self, r: Rect) {
        let at: Vec<usize> = self.cells(r).collect();
        self.texts.add(r, at);
    }

    /// A marker (a point), `radius` pixels around `at`.
    pub fn mark(&mut self, at: (i32, i32), radius: i32) {
        let r = (at.0 - radius, at.1 - radius, at.0 + radius, at.1 + radius);
        let cells: Vec<usize> = self.cells(r).collect();
        self.marks.add(r, cells);
    }

    /// A line drawn on the chart.
    pub fn line(&mut self, s: Segment) {
        let ((ax, ay), (bx, by)) = s;
        let bbox = (ax.min(bx), ay.min(by), ax.max(bx), ay.max(by));
        let at: Vec<usize> = (self.cells(bbox))
            .filter(|&c| crosses(s, self.cell_box(c)))
            .collect();
        self.lines.add(s, at);
    }

    /// Whether `r` lies in the area and covers nothing.
    fn free(&self, r: Rect) -> bool {
        let a = self.area;
        let inside = r.0 >= a.0 && r.1 >= a.1 && r.2 <= a.2 && r.3 <= a.3;
        let hit = |q: &Rect| overlaps(*q, r);
        inside
            && !self.texts.any(self.cells(r), hit)
            && !self.marks.any(self.cells(r), hit)
            && !self.lines.any(self.cells(r), |s| crosses(*s, r))
    }

    /// What placing a text in `r` would cover; `None` outside the area.
    pub fn cost(&self, r: Rect) -> Option<u32> {
        let a = self.area;
        if r.0 < a.0 || r.1 < a.1 || r.2 > a.2 || r.3 > a.3 {
            return None;
        }
        let texts = self.texts.count(self.cells(r), |q| overlaps(*q, r));
        let marks = self.marks.count(self.cells(r), |q| overlaps(*q, r));
        let lines = self.lines.count(self.cells(r), |s| crosses(*s, r));
        Some(COST_TEXT * texts + COST_MARK * marks + COST_LINE * lines)
    }

    /// The first candidate that covers nothing, taken; `None` when every
    /// candidate covers something.
    pub fn choose_free(&mut self, candidates: &[Rect]) -> Option<usize> {
        let i = candidates.iter().position(|r| self.free(*r))?;
        self.text(candidates[i]);
        Some(i)
    }

    /// The first candidate that covers no text and no marker (a roof line
    /// under it is fine), taken; `None` when there is none.
    pub fn choose_clear(&mut self, candidates: &[Rect]) -> Option<usize> {
        let a = self.area;
        let inside = |r: &Rect| r.0 >= a.0 && r.1 >= a.1 && r.2 <= a.2 && r.3 <= a.3;
        let clear = |r: &Rect| {
            let hit = |q: &Rect| overlaps(*q, *r);
            !self.texts.any(self.cells(*r), hit) && !self.marks.any(self.cells(*r), hit)
        };
        let i = candidates.iter().position(|r| inside(r) && clear(r))?;
        self.text(candidates[i]);
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
                self.text(candidates[i]);
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
        self.text(candidates[i]);
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
