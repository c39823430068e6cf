//! The quadrant-split chart of Konstantinidis ("GPU performance estimation
//! using micro-benchmarks and black-box profiling"): each machine and memory level a
//! point at (bandwidth, peak); an application of intensity I is the line
//! y = I·x through the origin. Points above a line are machines/levels
//! where that application is memory bound, points below compute bound.

use super::canvas::{FONT, LABEL_PX, level_colour};
use crate::compare::{AiLine, QuadrantLevel, QuadrantPoint as Point};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Axis ranges for the points and the lines, in decades.
pub fn ranges(points: &[Point]) -> ((f64, f64), (f64, f64)) {
    let dec = |v: f64, up: bool| {
        let l = v.log10();
        10f64.powf(if up { l.ceil() } else { l.floor() })
    };
    let xs = points.iter().map(|p| p.gb_per_s);
    let ys = points.iter().map(|p| p.gflop_per_s);
    let x0 = dec(xs.clone().fold(f64::INFINITY, f64::min) / 2.0, false);
    let x1 = dec(xs.fold(0.0, f64::max) * 2.0, true);
    let y0 = dec(ys.clone().fold(f64::INFINITY, f64::min) / 2.0, false);
    let y1 = dec(ys.fold(0.0, f64::max) * 2.0, true);
    ((x0, x1), (y0, y1))
}

/// Draw the quadrant chart.
pub fn render(points: &[Point], ais: &[AiLine], title: &str, path: &Path) -> Result<()> {
    if points.is_empty() {
        return Err(Error::input(
            "no machine has both a bandwidth and an FP roof to place",
        ));
    }
    super::canvas::draw_to_file!(path, |root| draw(points, ais, title, &root))
}

fn draw<DB: DrawingBackend>(
    points: &[Point],
    ais: &[AiLine],
    title: &str,
    root: &DrawingArea<DB, Shift>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let ((x0, x1), (y0, y1)) = ranges(points);
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 24))
        .margin(24)
        .x_label_area_size(70)
        .y_label_area_size(100)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
        .map_err(e)?;
    super::canvas::grid(
        chart
            .configure_mesh()
            .x_desc("Bandwidth (GB/s)")
            .y_desc("Peak performance (GFLOP/s)")
            .x_label_formatter(&|v| super::canvas::fmt_tick(*v))
            .y_label_formatter(&|v| super::canvas::fmt_tick(*v)),
    )
    .draw()
    .map_err(e)?;
    let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
    ai_lines(root, &px, ais, ((x0, x1), (y0, y1))).map_err(e)?;
    let mut machines: Vec<&String> = Vec::new();
    for p in points {
        if !machines.contains(&&p.machine) {
            machines.push(&p.machine);
        }
    }
    for pt in points {
        let c = match pt.level {
            QuadrantLevel::Cpu(l) => level_colour(l),
            QuadrantLevel::Gpu(l) => super::gpu::level_colour(l),
        };
        let p = px(pt.gb_per_s, pt.gflop_per_s);
        let mi = machines.iter().position(|m| **m == pt.machine).unwrap_or(0);
        marker(root, mi, p, c).map_err(e)?;
        let anchor = Pos::new(HPos::Center, VPos::Bottom);
        let style = (FONT, LABEL_PX).into_font().color(&c).pos(anchor);
        (root.draw(&Text::new(pt.level.to_string(), (p.0, p.1 - 12), style))).map_err(e)?;
    }
    legend(root, px(x0, y1), &machines).map_err(e)
}

/// Machine `i`'s marker: a circle, a triangle or a cross, in turn.
fn marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    i: usize,
    p: (i32, i32),
    c: RGBColor,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match i % 3 {
        0 => root.draw(&Circle::new(p, 8, c.filled())),
        1 => root.draw(&TriangleMarker::new(p, 10, c.filled())),
        _ => root.draw(&Cross::new(p, 8, c.stroke_width(3))),
    }
}

/// The lines y = ai·x within `ranges`, each labelled near its lower end;
/// `px` places a point.
fn ai_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    px: &dyn Fn(f64, f64) -> (i32, i32),
    ais: &[AiLine],
    ((x0, x1), (y0, y1)): ((f64, f64), (f64, f64)),
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let anchor = Pos::new(HPos::Left, VPos::Center);
    let style = (FONT, LABEL_PX).into_font().color(&BLACK).pos(anchor);
    for line in ais {
        let ai = line.ai;
        let xa = x0.max(y0 / ai);
        let xb = x1.min(y1 / ai);
        if xa >= xb {
            continue;
        }
        let ends = vec![px(xa, ai * xa), px(xb, ai * xb)];
        root.draw(&PathElement::new(ends, BLACK.stroke_width(2)))?;
        let xl = (xa.ln() + (xb.ln() - xa.ln()) * 0.12).exp();
        let p = px(xl, ai * xl);
        root.draw(&Text::new(
            line.label(" = "),
            (p.0 + 10, p.1),
            style.clone(),
        ))?;
    }
    Ok(())
}

/// The legend in the top left corner: machines by marker, and how to read
/// the lines.
fn legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    top_left: (i32, i32),
    machines: &[&String],
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let lines: Vec<String> = machines
        .iter()
        .map(|m| m.to_string())
        .chain(std::iter::once(
            "a point above a line y = AI·x: memory bound there; below: compute bound".into(),
        ))
        .collect();
    let w = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as i32 * 10 + 60;
    let h = lines.len() as i32 * 26 + 12;
    let (bx, by) = (top_left.0 + 10, top_left.1 + 10);
    let corners = [(bx, by), (bx + w, by + h)];
    root.draw(&Rectangle::new(corners, WHITE.mix(0.92).filled()))?;
    root.draw(&Rectangle::new(corners, BLACK.stroke_width(1)))?;
    let anchor = Pos::new(HPos::Left, VPos::Center);
    let style = (FONT, LABEL_PX).into_font().color(&BLACK).pos(anchor);
    for (i, l) in lines.iter().enumerate() {
        let y = by + 19 + i as i32 * 26;
        if i < machines.len() {
            marker(root, i, (bx + 20, y), RGBColor(90, 90, 90))?;
        }
        root.draw(&Text::new(l.clone(), (bx + 40, y), style.clone()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Level;

    #[test]
    fn ranges_hold_every_point_in_decades() {
        let pt = |machine: &str, level, gb_per_s, gflop_per_s| Point {
            machine: machine.into(),
            level,
            gb_per_s,
            gflop_per_s,
        };
        let pts = vec![
            pt("a", QuadrantLevel::Cpu(Level::L1), 640.0, 176.0),
            pt("b", QuadrantLevel::Cpu(Level::Dram), 20.0, 50.0),
        ];
        let ((x0, x1), (y0, y1)) = ranges(&pts);
        assert!(x0 <= 20.0 && x1 >= 640.0 && y0 <= 50.0 && y1 >= 176.0);
        assert_eq!((x0, x1), (10.0, 10000.0));
    }
}
