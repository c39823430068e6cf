//! A point's traffic by level (`profile --traffic`), as Intel Advisor's
//! memory-level roofline draws it: beside the CARM point (the bytes the core
//! requested) one dot per level below L1, at the work over the bytes that
//! moved there, same performance, in the level's colour, joined by a line;
//! each is read against its own level's roof.

use super::canvas::{Canvas, Plot, draw_px_line, err as e, level_colour, palette};
use super::select::Selection;
use super::tips::Tip;
use crate::kernels::Mix;
use crate::machine::Level;
use crate::results::apps::AppPoint;
use plotters::prelude::*;

/// Dash of the line joining a point's dots.
const DASH: [u32; 2] = [4, 4];

/// Each level's dot of `a` below L1 against roofs of `mix`: (level, bytes
/// moved, AI drawn, performance); none without traffic or for a level no
/// byte reached. A dot is drawn at its intensity in the bytes of its
/// level's roof (the roof's kernel's own write-allocations and write-backs
/// counted), so that a stream at full speed touches its roof.
pub fn dots(a: &AppPoint, mix: Option<Mix>) -> Vec<(Level, f64, f64, f64)> {
    let perf = a.gflop_per_s();
    crate::results::placement::level_dots(a, mix)
        .into_iter()
        .filter(|d| d.level != Level::L1 && d.bytes > 0.0)
        .map(|d| (d.level, d.bytes, d.drawn_ai(), perf))
        .collect()
}

/// A level's dot: a square of `colour` outlined in black, at `p`.
pub fn square<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    p: (i32, i32),
    colour: RGBColor,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let at = |r: i32| [(p.0 - r, p.1 - r), (p.0 + r, p.1 + r)];
    root.draw(&Rectangle::new(at(6), palette::BLACK.filled()))?;
    root.draw(&Rectangle::new(at(4), colour.filled()))
}

/// Draw the level dots of every program and region point of `sel`.
pub fn draw_levels<DB: DrawingBackend>(
    sel: &Selection,
    chart: &Plot<'_, DB>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    let mix = (sel.series.first())
        .and_then(|s| s.bandwidth.first())
        .and_then(|r| r.mix);
    for a in sel.apps.iter().filter(|a| a.function().is_none()) {
        let dots = dots(a, mix);
        if dots.is_empty() {
            continue;
        }
        let mut prev = chart.backend_coord(&(a.ai(), a.gflop_per_s()));
        let mut sorted = dots.clone();
        sorted.sort_by(|x, y| y.2.total_cmp(&x.2));
        for (level, bytes, ai, perf) in sorted {
            let p = chart.backend_coord(&(ai, perf));
            draw_px_line(c.root, prev, p, palette::GREY, &DASH).map_err(e)?;
            c.placer.line((prev, p));
            prev = p;
            square(c.root, p, level_colour(level)).map_err(e)?;
            c.placer.mark(p, 6);
            let unit = a.precision.map_or("flop", |q| q.unit());
            c.tips.push(Tip::dot(
                p,
                6,
                format!(
                    "{} at {level}: {} moved, {:.3} {unit}/B moved ({ai:.3} in its roof's bytes; simulated caches)",
                    a.name,
                    crate::units::human_bytes(bytes as u64),
                    a.flops / bytes
                ),
            ));
        }
    }
    Ok(())
}
