//! A program's phases (`profile --timeline`): each a diamond marker named
//! by its number and hottest function, and the program's path through them
//! in time order, an arrow from each phase to the next.

use super::canvas::{Canvas, Plot, err as e};
use super::select::{Move, Selection};
use super::tips::Tip;
use crate::results::apps::{AppPoint, PhaseInfo};
use plotters::prelude::*;

/// Half the height of a phase's diamond, pixels.
const HALF: i32 = 8;

/// The dash of the path's arrows, pixels on and off: apart from the
/// solid arrows of `plot --before`.
pub const DASH: [u32; 2] = [7, 4];

/// Each program's path: an arrow from each of its placeable phases to the
/// next, in time order.
pub fn trajectory(apps: &[AppPoint]) -> Vec<Move> {
    let mut phases: Vec<(&AppPoint, &PhaseInfo)> = (apps.iter())
        .filter(|a| a.placeable())
        .filter_map(|a| a.phase().map(|x| (a, x)))
        .collect();
    phases.sort_by(|a, b| (&a.1.program, a.1.index).cmp(&(&b.1.program, b.1.index)));
    (phases.windows(2))
        .filter(|w| w[0].1.program == w[1].1.program)
        .map(|w| Move {
            name: format!("{} to {}", w[0].0.name, w[1].0.name),
            from: (w[0].0.ai(), w[0].0.gflop_per_s()),
            to: (w[1].0.ai(), w[1].0.gflop_per_s()),
        })
        .collect()
}

/// Draw the path of `sel`'s phases.
pub fn draw_trajectory<DB: DrawingBackend>(
    sel: &Selection,
    chart: &Plot<'_, DB>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    for m in &sel.trajectory {
        let (from, to) = (chart.backend_coord(&m.from), chart.backend_coord(&m.to));
        if from != to {
            super::moves::arrow(c, (from, to), &DASH)?;
        }
    }
    Ok(())
}

/// Draw phase `a` (`x` its phase) at `p` in `col`: its short label.
pub fn draw_marker<DB: DrawingBackend>(
    c: &mut Canvas<'_, DB>,
    p: (i32, i32),
    col: RGBColor,
    (a, x): (&AppPoint, &PhaseInfo),
    under: &str,
) -> std::result::Result<String, String>
where
    DB::ErrorType: 'static,
{
    diamond(c.root, p, col).map_err(e)?;
    c.placer.mark(p, HALF + 1);
    let hottest = x
        .functions
        .first()
        .map_or(String::new(), |f| format!(" {}", f.name));
    let tip = format!(
        "{}: {:.3} s to {:.3} s; {:.2} flop/B, {:.2} GFLOP/s{under}",
        a.name,
        x.start,
        x.end,
        a.ai(),
        a.gflop_per_s()
    );
    c.tips.push(Tip::dot(p, HALF + 1, tip).naming(&a.name));
    Ok(format!("{}{hottest}", x.index))
}

/// A phase's marker at `p`: a diamond in `col`, edged in black.
pub fn diamond<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    p: (i32, i32),
    col: RGBColor,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let at = |h: i32| {
        vec![
            (p.0, p.1 - h),
            (p.0 + h, p.1),
            (p.0, p.1 + h),
            (p.0 - h, p.1),
        ]
    };
    root.draw(&Polygon::new(at(HALF + 1), BLACK.filled()))?;
    root.draw(&Polygon::new(at(HALF - 1), col.filled()))
}

/// The legend's key of a phase at `(x, y)`: the path's dash under a
/// diamond.
pub fn key<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    (x, y): (i32, i32),
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    use super::canvas::{draw_px_line, palette};
    draw_px_line(root, (x, y), (x + 44, y), palette::MOVE, &DASH)?;
    diamond(root, (x + 22, y), palette::GREY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::Of;

    fn phase(program: &str, index: usize, flops: f64) -> AppPoint {
        let x = PhaseInfo {
            program: program.into(),
            index,
            start: index as f64,
            end: index as f64 + 1.0,
            functions: vec![],
            windows: vec![],
        };
        AppPoint {
            of: Of::Phase(x),
            ..AppPoint::new(format!("{program}: phase {index}"), flops, 10.0, 1.0)
        }
    }

    #[test]
    fn a_path_joins_each_programs_phases_in_time_order() {
        let apps = vec![
            phase("a", 2, 20.0),
            phase("b", 1, 5.0),
            phase("a", 1, 10.0),
            phase("a", 3, 0.0),
            phase("a", 4, 40.0),
            AppPoint::new("a", 70.0, 40.0, 4.0),
        ];
        let t = trajectory(&apps);
        // a's 1 to 2, then 2 to 4 (3 did no FP work: not on the chart); b
        // alone has no path.
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].name, "a: phase 1 to a: phase 2");
        assert_eq!((t[0].from.0, t[0].to.0), (1.0, 2.0));
        assert_eq!(t[1].name, "a: phase 2 to a: phase 4");
    }
}
