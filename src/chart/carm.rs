//! The CARM chart: the roofs of a [`Selection`] as lines on log axes, their
//! ridges, validation points and applications, each text placed where it
//! covers nothing; the legend and the roof key beside the plot, never over it.

use super::canvas::{
    Canvas, FONT, Plot, SIZE, dash, draw_point, draw_px_line, draw_text, draw_to_file, err as e,
    fmt_tick, grid, is_svg, level_colour, palette, svg_with_tips, text_box,
};
use super::geometry::{Bounds, bounds, lines};
use super::labels::{Placer, Rect};
use super::legend::{Flat, KeyRow, Panel, draw_key, draw_legend, flat_text, key_text, legend_rows};
use super::select::Selection;
use super::tips::Tip;
use crate::error::Result;
use crate::kernels::Op;
use crate::machine::Level;
use crate::results::{Roof, ValidationPoint};
use crate::roofline::bounding_level;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::path::Path;

fn op_colour(op: Option<Op>) -> RGBColor {
    match op {
        Some(Op::FmaAdd) => palette::BLACK,
        Some(Op::Fma) => palette::PURPLE,
        Some(Op::Add) => palette::SKY,
        _ => palette::GREY,
    }
}

/// Draw `sel` into `path` (.svg or .png).
pub fn render(sel: &Selection, path: &Path) -> Result<()> {
    if is_svg(path) {
        return crate::files::write_atomic(path, &svg(sel)?);
    }
    draw_to_file!(path, size(sel), |root| draw(sel, &root))
}

/// Draw `sel` as SVG text, each roof and point with its tooltip.
pub fn svg(sel: &Selection) -> Result<String> {
    svg_with_tips(size(sel), "the chart", |root| draw(sel, root))
}

/// The chart's size: the plot at [`SIZE`], and the panel of its legend and
/// key to the right of it.
pub fn size(sel: &Selection) -> (u32, u32) {
    (SIZE.0 + Panel::of(sel, &legend_rows(sel)).width, SIZE.1)
}

/// An application's marker: where, its label, and for a function its
/// share of the program's time.
type AppMark = ((i32, i32), String, Option<f64>);

fn draw<DB: DrawingBackend>(
    sel: &Selection,
    root: &DrawingArea<DB, Shift>,
) -> std::result::Result<Vec<Tip>, String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(e)?;
    let legend = legend_rows(sel);
    let panel = Panel::of(sel, &legend);
    let (area, _) = root.split_horizontally(SIZE.0);
    let b = chart_bounds(sel);
    let chart = frame(sel, &area, &b)?;
    let (p0, p1) = (
        chart.backend_coord(&(b.x.0, b.y.1)),
        chart.backend_coord(&(b.x.1, b.y.0)),
    );
    // Lines and markers first, every text last: each text is placed where
    // it covers no point, marker or other text and crosses as few lines as
    // it can (see `labels`), and its halo then hides nothing drawn.
    let mut c = Canvas {
        root,
        placer: Placer::new((p0.0, p0.1, p1.0, p1.1)),
        tips: Vec::new(),
    };
    let (flats, slopes) = draw_roofs(sel, &chart, &b, &mut c)?;
    draw_validation(sel, &chart, &mut c)?;
    super::moves::draw_moves(sel, &chart, &mut c)?;
    super::levels::draw_levels(sel, &chart, &mut c)?;
    let apps = draw_apps(sel, &chart, &mut c)?;
    let below = draw_legend(&legend, p0.1, &mut c)?;
    label_apps(apps, &mut c)?;
    let mut key = label_flats(sel, flats, &mut c)?;
    key.extend(slopes);
    draw_key(sel, key, &panel, below + 20, &mut c)?;
    Ok(c.tips)
}

/// The axes' bounds: every roof, validation point and application inside.
fn chart_bounds(sel: &Selection) -> Bounds {
    let values = |f: fn(&super::select::Series) -> &Vec<Roof>| -> Vec<f64> {
        sel.series
            .iter()
            .flat_map(|s| f(s).iter().map(Roof::value))
            .collect()
    };
    let mut pts: Vec<(f64, f64)> = sel
        .series
        .iter()
        .flat_map(|s| s.validation.iter().map(|v| (v.ai, v.gflop_per_s)))
        .collect();
    pts.extend(sel.moves.iter().map(|m| m.from));
    pts.extend(
        sel.apps
            .iter()
            .filter(|a| drawn(a))
            .map(|a| (a.ai(), a.gflop_per_s())),
    );
    pts.extend(
        (sel.apps.iter())
            .flat_map(super::levels::dots)
            .map(|d| (d.2, d.3)),
    );
    bounds(&values(|s| &s.bandwidth), &values(|s| &s.compute), &pts)
}

/// The title, the log axes and the grid.
fn frame<'a, DB: DrawingBackend>(
    sel: &Selection,
    area: &DrawingArea<DB, Shift>,
    b: &Bounds,
) -> std::result::Result<Plot<'a, DB>, String>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(area)
        .caption(&sel.title, (FONT, 24))
        .margin(24)
        .x_label_area_size(70)
        .y_label_area_size(100)
        .build_cartesian_2d((b.x.0..b.x.1).log_scale(), (b.y.0..b.y.1).log_scale())
        .map_err(e)?;
    // Integer roofs alone: operations, not flops; both beside each other:
    // each roof's label names its unit.
    let compute = || sel.series.iter().flat_map(|s| &s.compute);
    let is_int = |r: &Roof| r.precision.is_some_and(|p| p.is_integer());
    let (x_desc, y_desc) = match (compute().any(is_int), compute().all(is_int)) {
        (true, true) => (
            "Arithmetic intensity (op per byte requested by the core)",
            "Performance (GOP/s)",
        ),
        (true, false) => (
            "Arithmetic intensity (flop or op per byte requested by the core)",
            "Performance (GFLOP/s, GOP/s)",
        ),
        _ => (
            "Arithmetic intensity (flop per byte requested by the core)",
            "Performance (GFLOP/s)",
        ),
    };
    grid(
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|v| fmt_tick(*v))
            .y_label_formatter(&|v| fmt_tick(*v)),
    )
    .draw()
    .map_err(e)?;
    Ok(chart)
}

/// Every roof as a line, each ridge as a marker: the flat roofs for their
/// labels, and the sloped ones as rows of the key.
fn draw_roofs<'s, DB: DrawingBackend>(
    sel: &'s Selection,
    chart: &Plot<'_, DB>,
    b: &Bounds,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(Vec<Flat<'s>>, Vec<KeyRow>), String>
where
    DB::ErrorType: 'static,
{
    let (mut flats, mut slopes, mut ridges) = (Vec::new(), Vec::new(), Vec::new());
    for (si, s) in sel.series.iter().enumerate() {
        let bw: Vec<f64> = s.bandwidth.iter().map(Roof::value).collect();
        let pk: Vec<f64> = s.compute.iter().map(Roof::value).collect();
        let (sloped, flat) = lines(&bw, &pk, b);
        for (r, l) in s.bandwidth.iter().zip(sloped) {
            let col = r.level.map_or(palette::PURPLE, level_colour);
            let p0 = chart.backend_coord(&(l.x0, l.x0 * l.gb_per_s));
            let p1 = chart.backend_coord(&(l.x1, l.x1 * l.gb_per_s));
            draw_px_line(c.root, p0, p1, col, dash(si)).map_err(e)?;
            c.placer.line((p0, p1));
            slopes.push((si, key_text(r), col));
            c.tips
                .push(Tip::line(p0, p1, format!("{}{}", roof_tip(r), sel.tag(si))));
            if let Some(rp) = l.ridge {
                let q = chart.backend_coord(&rp);
                ridges.push((q, col));
                c.tips.push(Tip::dot(
                    q,
                    6,
                    format!(
                        "ridge of {} and the top compute roof: {:.3} {}/byte{}",
                        r.label(),
                        rp.0,
                        s.compute
                            .first()
                            .and_then(|c| c.precision)
                            .map_or("flop", |p| p.unit()),
                        sel.tag(si)
                    ),
                ));
            }
        }
        for (r, l) in s.compute.iter().zip(flat) {
            let col = op_colour(r.op);
            let p0 = chart.backend_coord(&(l.x0, l.gflop_per_s));
            let p1 = chart.backend_coord(&(l.x1, l.gflop_per_s));
            draw_px_line(c.root, p0, p1, col, dash(si)).map_err(e)?;
            c.placer.line((p0, p1));
            flats.push((si, r, col, p0, p1));
            c.tips
                .push(Tip::line(p0, p1, format!("{}{}", roof_tip(r), sel.tag(si))));
        }
    }
    // Markers over every line.
    for (q, col) in ridges {
        c.root.draw(&Circle::new(q, 6, col.filled())).map_err(e)?;
        c.root
            .draw(&Circle::new(q, 6, BLACK.stroke_width(1)))
            .map_err(e)?;
        c.placer.mark(q, 6);
    }
    Ok((flats, slopes))
}

/// The expected values where overlap is partial, then the validation
/// points, each series with its marker.
fn draw_validation<DB: DrawingBackend>(
    sel: &Selection,
    chart: &Plot<'_, DB>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    for s in sel.series.iter().filter(|s| s.partial_overlap) {
        for (level, a, b) in expected_lines(&s.validation) {
            let (p0, p1) = (chart.backend_coord(&a), chart.backend_coord(&b));
            c.root
                .draw(&PathElement::new(
                    vec![p0, p1],
                    level_colour(level).stroke_width(1),
                ))
                .map_err(e)?;
        }
    }
    for (si, s) in sel.series.iter().enumerate() {
        for v in &s.validation {
            let p = chart.backend_coord(&(v.ai, v.gflop_per_s));
            draw_point(c.root, p, si, level_colour(v.level)).map_err(e)?;
            c.placer.mark(p, 5);
            c.tips.push(Tip::dot(
                p,
                5,
                format!(
                    "{} {} {} at {:.3} flop/byte: {:.1} GFLOP/s, expected {:.1} ({:+.1}%){}",
                    v.level,
                    v.mix,
                    v.op,
                    v.ai,
                    v.gflop_per_s,
                    v.expected_gflop_per_s,
                    100.0 * v.deviation,
                    sel.tag(si)
                ),
            ));
        }
    }
    Ok(())
}

/// Applications as triangles coloured by the level bounding them (under the
/// first series' roofs): where each is, and its label.
fn draw_apps<DB: DrawingBackend>(
    sel: &Selection,
    chart: &Plot<'_, DB>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<Vec<AppMark>, String>
where
    DB::ErrorType: 'static,
{
    let Some(s0) = sel.series.first() else {
        return Ok(Vec::new());
    };
    let levels: Vec<(Level, f64)> = s0
        .bandwidth
        .iter()
        .filter_map(|r| Some((r.level?, r.value())))
        .collect();
    let top = s0.compute.first().map_or(f64::NAN, Roof::value);
    let mut marks = Vec::new();
    for a in sel.apps.iter().filter(|a| drawn(a)) {
        let (x, y) = (a.ai(), a.gflop_per_s());
        let bound = bounding_level(x, y, &levels, top);
        let col = bound.map_or(palette::GREY, |l| level_colour(*l));
        let p = chart.backend_coord(&(x, y));
        let under = bound.map_or(String::new(), |l| format!(", under the {l} roof"));
        if let Some(f) = &a.function {
            // A function: a disc whose area is its share of the time.
            let r = function_radius(f.share);
            c.root
                .draw(&Circle::new(p, r, col.mix(0.6).filled()))
                .map_err(e)?;
            c.root
                .draw(&Circle::new(p, r, BLACK.stroke_width(1)))
                .map_err(e)?;
            c.placer.mark(p, r);
            let tip = format!(
                "{} in {} ({}{}; {:.1}% of its time, {} samples): {:.2} flop/B, {:.2} GFLOP/s{under}",
                a.name,
                f.program,
                if f.module.is_empty() { "-" } else { &f.module },
                f.location
                    .as_ref()
                    .map_or(String::new(), |at| format!(", {at}")),
                100.0 * f.share,
                f.samples,
                x,
                y
            );
            c.tips.push(Tip::dot(p, r, tip));
            marks.push((p, short_name(&a.name), Some(f.share)));
            continue;
        }
        c.root
            .draw(&TriangleMarker::new(p, 10, BLACK.filled()))
            .map_err(e)?;
        c.root
            .draw(&TriangleMarker::new(p, 7, col.filled()))
            .map_err(e)?;
        c.placer.mark(p, 10);
        let (u, rate) = match a.precision.is_some_and(|p| p.is_integer()) {
            true => ("op", "GOP/s"),
            false => ("flop", "GFLOP/s"),
        };
        let text = format!("{} ({:.2} {u}/B, {:.1} {rate})", a.name, x, y);
        c.tips.push(Tip::dot(p, 10, format!("{text}{under}")));
        marks.push((p, text, None));
    }
    Ok(marks)
}

/// Functions under this share of their program's time are left off the
/// chart (listed by `profile` and in the report): a start-up routine's
/// point, far below every roof, would stretch the axes for nothing.
pub const MIN_SHARE: f64 = 0.01;

/// Whether an application point is drawn.
fn drawn(a: &crate::results::apps::AppPoint) -> bool {
    a.function.as_ref().is_none_or(|f| f.share >= MIN_SHARE)
}

/// A function's disc: its area grows with its share of the time.
fn function_radius(share: f64) -> i32 {
    (4.0 + 16.0 * share.clamp(0.0, 1.0).sqrt()).round() as i32
}

/// A function's name short enough for a label: no parameters or template
/// arguments, the last two parts of a path, at most 28 characters.
pub fn short_name(name: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for ch in name.chars() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
        if depth < 0 {
            return name.chars().take(28).collect();
        }
    }
    let parts: Vec<&str> = out.split("::").collect();
    let tail = parts[parts.len().saturating_sub(2)..].join("::");
    match tail.chars().count() > 28 {
        true => format!("{}…", tail.chars().take(27).collect::<String>()),
        false => tail,
    }
}

/// Each application's name beside its marker: right of it if it fits, else
/// left; then up or down until free.
fn label_apps<DB: DrawingBackend>(
    marks: Vec<AppMark>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    // Programs first, then functions by time: the biggest get the room.
    let mut marks = marks;
    marks.sort_by(|a, b| b.2.unwrap_or(2.0).total_cmp(&a.2.unwrap_or(2.0)));
    for (p, text, share) in marks {
        let mut cands = Vec::new();
        for k in 0..12 {
            let dy = if k % 2 == 0 {
                k / 2 * 22
            } else {
                -(k / 2 + 1) * 22
            };
            cands.push((p.0 + 14, p.1 + dy, HPos::Left));
            cands.push((p.0 - 14, p.1 + dy, HPos::Right));
        }
        let boxes: Vec<Rect> = cands
            .iter()
            .map(|&(x, y, h)| text_box(&text, x, y, h, VPos::Center))
            .collect();
        // A function's name only where it covers nothing (its tip has it).
        if share.is_some() {
            if let Some(i) = c.placer.choose_clear(&boxes) {
                let (x, y, h) = cands[i];
                draw_text(c.root, &text, (x, y), BLACK, (h, VPos::Center), true).map_err(e)?;
            }
            continue;
        }
        // Level with the marker or one line above or below it: 6 candidates.
        let (x, y, h) = c
            .placer
            .choose_near(&boxes, 6)
            .map_or((p.0 + 14, p.1, HPos::Left), |i| cands[i]);
        draw_text(c.root, &text, (x, y), BLACK, (h, VPos::Center), true).map_err(e)?;
    }
    Ok(())
}

/// Each flat roof's label just above its line at the right end, else just
/// below it, else further left (never left of where the roof starts),
/// wherever it covers nothing; the roofs with no such place, as key rows.
fn label_flats<DB: DrawingBackend>(
    sel: &Selection,
    flats: Vec<Flat<'_>>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<Vec<KeyRow>, String>
where
    DB::ErrorType: 'static,
{
    let mut key = Vec::new();
    for (si, r, col, p0, p1) in flats {
        let text = format!("{}{}", flat_text(r), sel.tag(si));
        let mut cands = Vec::new();
        let mut x = p1.0 - 6;
        loop {
            cands.push((x, p1.1 - 4, VPos::Bottom));
            cands.push((x, p1.1 + 4, VPos::Top));
            x -= 40;
            if text_box(&text, x, 0, HPos::Right, VPos::Top).0 < p0.0 {
                break;
            }
        }
        let boxes: Vec<Rect> = cands
            .iter()
            .map(|&(x, y, v)| text_box(&text, x, y, HPos::Right, v))
            .collect();
        match c.placer.choose_free(&boxes) {
            Some(i) => {
                let (x, y, v) = cands[i];
                draw_text(c.root, &text, (x, y), col, (HPos::Right, v), true).map_err(e)?;
            }
            None => key.push((si, flat_text(r), col)),
        }
    }
    Ok(key)
}

/// A roof's tooltip: its value, per cycle and % of its limit.
fn roof_tip(r: &Roof) -> String {
    let (unit, per) = (r.unit(), r.unit_per_cycle());
    format!(
        "{} {}: {:.1} {unit}, {:.2} {per}{}",
        r.label(),
        r.isa,
        r.value(),
        r.per_cycle,
        r.percent_of_theoretical
            .map_or(String::new(), |p| format!(", {p:.1}% of limit"))
    )
}

/// A point of the chart: intensity, GFLOP/s.
type Xy = (f64, f64);

/// The expected values of validation points as segments, level by level in
/// order of intensity: where the core overlaps memory and FP work only in
/// part, they bend below the roofs.
fn expected_lines(points: &[ValidationPoint]) -> Vec<(Level, Xy, Xy)> {
    let mut levels: Vec<Level> = points.iter().map(|v| v.level).collect();
    levels.dedup();
    let mut out = Vec::new();
    for l in levels {
        let mut pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|v| v.level == l && v.expected_gflop_per_s > 0.0)
            .map(|v| (v.ai, v.expected_gflop_per_s))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts.dedup_by(|a, b| a.0 == b.0);
        out.extend(pts.windows(2).map(|w| (l, w[0], w[1])));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_labels_are_short_and_discs_grow_with_time() {
        assert_eq!(short_name("compute"), "compute");
        assert_eq!(
            short_name("std::vector<double>::operator[](unsigned long)"),
            "vector::operator[]"
        );
        assert_eq!(short_name("ns::a::b::kernel<T, 4>(T*)"), "b::kernel");
        let long = short_name(&"x".repeat(60));
        assert_eq!(long.chars().count(), 28);
        assert!(long.ends_with('…'));
        // Unbalanced: cut, never lost.
        assert_eq!(short_name("f)(x"), "f)(x");
        assert!(function_radius(0.0) < function_radius(0.25));
        assert!(function_radius(0.25) < function_radius(1.0));
        assert_eq!(function_radius(4.0), function_radius(1.0));
        // Ticks far below one stay readable.
        assert_eq!(super::super::canvas::fmt_tick(1e-7), "1e-7");
        assert_eq!(super::super::canvas::fmt_tick(0.001), "0.001");
    }
}
