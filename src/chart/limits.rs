//! The arrow from a program's point up to the roof that limits it (Intel
//! Advisor draws one too), named by the speed-up reaching that roof would
//! bring: a program's, process's or region's, not a function's (their
//! discs would drown in arrows; their tooltips and the tables say it).

use super::canvas::{Canvas, Plot, draw_text, err as e, palette, text_box};
use super::labels::Rect;
use super::select::{Limit, Selection};
use super::tips::Tip;
use crate::results::Document;
use crate::results::apps::AppPoint;
use crate::results::placement::place;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// Under this speed-up the point is at its roof: no arrow.
const AT_ROOF: f64 = 1.05;

/// Arrows drawn at most: those of the points that took the longest (a
/// chart of thousands of programs keeps its roofs readable).
const MOST: usize = 12;

/// The dash of the arrows, pixels on and off: apart from the phases' path.
const DASH: [u32; 2] = [3, 4];

/// The limits of `apps` under `doc`'s roofs, those of a thread count among
/// `threads` (the roofs drawn), of the points that took longest (at most `MOST`).
pub fn of(doc: &Document, apps: &[AppPoint], threads: &[usize]) -> Vec<Limit> {
    let mut longest: Vec<&AppPoint> = (apps.iter())
        .filter(|a| a.function().is_none() && a.phase().is_none() && a.kernel().is_none())
        .filter(|a| a.placeable())
        .collect();
    longest.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    (longest.into_iter().take(MOST))
        .filter_map(|a| {
            let place = place(doc, a)?;
            let b = place.bound?;
            let nodes = place.nodes as f64;
            let perf = a.gflop_per_s();
            let limit = Limit {
                name: a.name.clone(),
                from: (a.ai(), perf / nodes),
                to: (a.ai(), perf / b.share / nodes),
                roof: b.label,
            };
            (threads.contains(&place.threads) && limit.gain() >= AT_ROOF).then_some(limit)
        })
        .collect()
}

/// An arrow's head in pixels, and the speed-up to write beside it.
pub type Head = ((i32, i32), String);

/// Draw each arrow of `sel`: what its label says, and where its head is,
/// for [`label`] once the points are drawn.
pub fn draw<DB: DrawingBackend>(
    sel: &Selection,
    chart: &Plot<'_, DB>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<Vec<Head>, String>
where
    DB::ErrorType: 'static,
{
    let mut heads = Vec::new();
    // A limit is placed under the roofs of reads and writes together: on
    // one side's roofline it would point at roofs not drawn.
    if sel.side.is_some() {
        return Ok(heads);
    }
    for l in &sel.limits {
        let (from, to) = (chart.backend_coord(&l.from), chart.backend_coord(&l.to));
        if from.1 - to.1 < 12 {
            continue;
        }
        // From the marker's top edge, not its centre.
        super::moves::arrow(c, ((from.0, from.1 - 12), to), &DASH)?;
        let gain = l.gain();
        c.tips.push(Tip::line(
            from,
            to,
            format!(
                "{}: up to {gain:.2}x reaching the {} ({:.2} GFLOP/s at its intensity)",
                l.name, l.roof, l.to.1
            ),
        ));
        heads.push((to, format!("{gain:.1}x")));
    }
    Ok(heads)
}

/// Each arrow's speed-up beside its head, where it covers nothing.
pub fn label<DB: DrawingBackend>(
    heads: Vec<Head>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    for (p, text) in heads {
        let spots = [
            (p.0 + 8, p.1 + 14, HPos::Left),
            (p.0 - 8, p.1 + 14, HPos::Right),
            (p.0 + 8, p.1 + 34, HPos::Left),
            (p.0 - 8, p.1 + 34, HPos::Right),
        ];
        let boxes: Vec<Rect> = (spots.iter())
            .map(|s| text_box(&text, s.0, s.1, s.2, VPos::Center))
            .collect();
        if let Some(i) = c.placer.choose_free(&boxes) {
            let (x, y, h) = spots[i];
            let col = palette::MOVE;
            draw_text(c.root, &text, (x, y), col, (h, VPos::Center), true).map_err(e)?;
        }
    }
    Ok(())
}
