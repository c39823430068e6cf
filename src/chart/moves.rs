//! Points that moved between two profiles (`plot --before`): an arrow from
//! where each was to where it is, the earlier place a hollow ring.

use super::canvas::{Canvas, Plot, draw_px_line, err as e, palette};
use super::select::Selection;
use super::tips::Tip;
use plotters::prelude::*;

/// Length of an arrowhead's sides, pixels.
const HEAD: f64 = 12.0;

/// The two ends of an arrowhead's sides at `to`, for an arrow from `from`:
/// back along the arrow, 25° either side.
pub fn head(from: (i32, i32), to: (i32, i32)) -> [(i32, i32); 2] {
    let (dx, dy) = ((from.0 - to.0) as f64, (from.1 - to.1) as f64);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    let (ux, uy) = (dx / len, dy / len);
    let side = |a: f64| {
        let (c, s) = (a.cos(), a.sin());
        (
            to.0 + (HEAD * (ux * c - uy * s)).round() as i32,
            to.1 + (HEAD * (ux * s + uy * c)).round() as i32,
        )
    };
    let a = 25f64.to_radians();
    [side(a), side(-a)]
}

/// The moves of `changes` with a place before and after: a GPU kernel's
/// (`gpu`), drawn on its GPU's chart, or the others, on the CPU's.
pub fn of(changes: &[crate::compare::profiles::Change], gpu: bool) -> Vec<super::Move> {
    (changes.iter())
        .filter(|c| c.before.placeable() && c.after.placeable())
        .filter(|c| c.after.kernel().is_some() == gpu)
        .map(|c| super::Move {
            name: c.after.name.clone(),
            from: (c.before.ai(), c.before.gflop_per_s()),
            to: (c.after.ai(), c.after.gflop_per_s()),
        })
        .collect()
}

/// An arrow from `from` to `to` on the canvas, its shaft `dash`ed (none:
/// solid), its head solid; no text goes over it.
pub fn arrow<DB: DrawingBackend>(
    c: &mut Canvas<'_, DB>,
    (from, to): ((i32, i32), (i32, i32)),
    dash: &[u32],
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    draw_px_line(c.root, from, to, palette::MOVE, dash).map_err(e)?;
    for end in head(from, to) {
        draw_px_line(c.root, to, end, palette::MOVE, &[]).map_err(e)?;
    }
    c.placer.line((from, to));
    Ok(())
}

/// Draw every move of `sel`.
pub fn draw_moves<DB: DrawingBackend>(
    sel: &Selection,
    chart: &Plot<'_, DB>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    for m in &sel.moves {
        let (from, to) = (chart.backend_coord(&m.from), chart.backend_coord(&m.to));
        c.root
            .draw(&Circle::new(from, 5, palette::MOVE.stroke_width(2)))
            .map_err(e)?;
        c.placer.mark(from, 5);
        if from == to {
            continue;
        }
        arrow(c, (from, to), &[])?;
        c.tips.push(Tip::dot(
            from,
            5,
            format!(
                "{} before: {:.3} flop/B, {:.3} GFLOP/s (now {:.3}, {:.3})",
                m.name, m.from.0, m.from.1, m.to.0, m.to.1
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_points_the_way_the_arrow_goes() {
        // Right and up on screen (y grows down): the head's sides trail back
        // to the left and below.
        let [a, b] = head((0, 100), (100, 0));
        for p in [a, b] {
            assert!(p.0 < 100 && p.1 > 0, "{p:?}");
            let d = (((p.0 - 100).pow(2) + p.1.pow(2)) as f64).sqrt();
            assert!((d - HEAD).abs() < 1.0);
        }
        // Straight left: sides to the right, one above, one below.
        let [a, b] = head((100, 50), (0, 50));
        assert!(a.0 > 0 && b.0 > 0 && (a.1 - 50) * (b.1 - 50) < 0);
    }
}
