//! The CARM chart: the roofs of a [`Selection`] as lines on log axes, their
//! ridges, validation points and applications, each text placed where it
//! covers nothing; the legend and the roof key beside the plot, never over it.

use super::canvas::{
    Canvas, FONT, Plot, SIZE, dash, draw_point, draw_px_line, draw_text, draw_to_file, err as e,
    fmt_tick, grid, is_svg, level_colour, palette, svg_with_tips, text_box,
};
use super::discs::{drawn, function_radius};
use super::geometry::{Bounds, bounds, lines};
use super::labels::{Placer, Rect};
use super::legend::{Flat, KeyRow, Panel, draw_key, draw_legend, flat_text, key_text, legend_rows};
use super::select::Selection;
use super::tips::Tip;
use crate::error::Result;
use crate::kernels::Op;
use crate::machine::Level;
use crate::results::Roof;
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

/// An application's marker: where, its label, for a function its share of
/// the program's time and its radius, and its number in the legend (the
/// largest discs).
type AppMark = ((i32, i32), String, Option<(f64, i32)>, Option<usize>);

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
    super::phases::draw_trajectory(sel, &chart, &mut c)?;
    super::series::draw(sel, &chart, &mut c)?;
    super::levels::draw_levels(sel, &chart, &mut c)?;
    let heads = super::limits::draw(sel, &chart, &mut c)?;
    let apps = draw_apps(sel, &chart, &mut c)?;
    let below = draw_legend(&legend, p0.1, &mut c)?;
    label_apps(apps, &mut c)?;
    super::limits::label(heads, &mut c)?;
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
    let mix = (sel.series.first())
        .and_then(|s| s.bandwidth.first())
        .and_then(|r| r.mix);
    pts.extend(
        (sel.apps.iter())
            .flat_map(|a| super::levels::dots(a, mix))
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
    // On one side's roofline the bytes are the side's alone.
    let x_desc = match sel.side {
        Some(s) => x_desc.replace(
            "requested by",
            &format!(
                "{} by",
                ["read", "written"][usize::from(s == crate::results::apps::Side::Write)]
            ),
        ),
        None => x_desc.to_string(),
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
        for (level, a, b) in super::geometry::expected_lines(&s.validation) {
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
    let labels = super::discs::labels(sel);
    let numbered = super::discs::numbered(sel);
    let mut marks = Vec::new();
    for (k, a) in sel.apps.iter().enumerate().filter(|(_, a)| drawn(a)) {
        // An MPI job over several nodes is drawn per node, under one node's
        // roofs.
        let nodes = a.mpi().map_or(1, |m| m.nodes.max(1));
        let (x, y) = (a.ai(), a.gflop_per_s() / nodes as f64);
        let bound = bounding_level(x, y, &levels, top);
        let col = bound.map_or(palette::GREY, |l| level_colour(*l));
        let p = chart.backend_coord(&(x, y));
        let under = bound.map_or(String::new(), |l| format!(", under the {l} roof"));
        if let Some(f) = a.function() {
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
            c.tips.push(Tip::dot(p, r, tip).naming(&a.name));
            let number = numbered.iter().position(|n| n.0 == k).map(|i| i + 1);
            marks.push((p, labels[k].clone(), Some((f.share, r)), number));
            continue;
        }
        let text = match a.phase() {
            Some(x) => super::phases::draw_marker(c, p, col, (a, x), &under)?,
            None => draw_program(c, (p, col), a, (x, y, nodes), &under)?,
        };
        marks.push((p, text, None, None));
    }
    Ok(marks)
}

/// A program's triangle at `p` in `col`, `a` at (AI, rate) `x, y` per node
/// of `nodes`: its label.
fn draw_program<DB: DrawingBackend>(
    c: &mut Canvas<'_, DB>,
    (p, col): ((i32, i32), RGBColor),
    a: &crate::results::apps::AppPoint,
    (x, y, nodes): (f64, f64, usize),
    under: &str,
) -> std::result::Result<String, String>
where
    DB::ErrorType: 'static,
{
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
    let per_node = match nodes {
        1 => String::new(),
        n => format!(" per node of {n}"),
    };
    let text = format!("{} ({:.2} {u}/B, {:.1} {rate}{per_node})", a.name, x, y);
    c.tips
        .push(Tip::dot(p, 10, format!("{text}{under}")).naming(&a.name));
    Ok(text)
}

/// Program points named wherever there is room; the others only where
/// their names cover nothing (a chart of thousands of points stays
/// readable).
const NAMED_PROGRAMS: usize = 30;

/// Each application's name beside its marker: right of it if it fits, else
/// left; then up or down until free. A function's name goes only where it
/// covers nothing: beside its disc, else further off with a leader line;
/// else the largest discs keep their legend number alone, and the others
/// their tooltip.
fn label_apps<DB: DrawingBackend>(
    marks: Vec<AppMark>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    // Programs first, then functions by time: the biggest get the room.
    let mut marks = marks;
    let weight = |m: &AppMark| m.2.map_or(2.0, |x| x.0);
    marks.sort_by(|a, b| weight(b).total_cmp(&weight(a)));
    let mut named = 0;
    for (p, text, disc, number) in marks {
        let text = match number {
            Some(n) => format!("{n} {text}"),
            None => text,
        };
        let near = beside(p, &text, 14);
        let Some((_, r)) = disc else {
            // Level with the marker or one line above or below it; past
            // the first ones, only where the name covers nothing (its
            // tooltip and the report keep it).
            let boxes: Vec<Rect> = near.iter().map(|x| x.1).collect();
            let spot = match named < NAMED_PROGRAMS {
                true => Some(
                    c.placer
                        .choose_near(&boxes, 6)
                        .map_or((p.0 + 14, p.1, HPos::Left), |i| near[i].0),
                ),
                false => c.placer.choose_free(&boxes).map(|i| near[i].0),
            };
            if let Some((x, y, h)) = spot {
                named += 1;
                draw_text(c.root, &text, (x, y), BLACK, (h, VPos::Center), true).map_err(e)?;
            }
            continue;
        };
        // Beside the disc (level with it, or a line up or down); further
        // off, with a leader line.
        let near = beside(p, &text, r + 6);
        let near = &near[..6];
        let far = around(p, &text, r);
        let boxes: Vec<Rect> = near.iter().chain(&far).map(|x| x.1).collect();
        if let Some(i) = c.placer.choose_clear(&boxes) {
            let ((x, y, h), b) = near.iter().chain(&far).nth(i).copied().unwrap_or(near[0]);
            if i >= near.len() {
                leader(c, p, r, b)?;
            }
            draw_text(c.root, &text, (x, y), BLACK, (h, VPos::Center), true).map_err(e)?;
            continue;
        }
        // No room for the name: the number alone, where it covers least.
        if let Some(n) = number {
            let t = n.to_string();
            let spots = beside(p, &t, r + 3);
            let boxes: Vec<Rect> = spots.iter().map(|x| x.1).collect();
            if let Some(i) = c.placer.choose(&boxes) {
                let (x, y, h) = spots[i].0;
                draw_text(c.root, &t, (x, y), BLACK, (h, VPos::Center), true).map_err(e)?;
            }
        }
    }
    Ok(())
}

/// A label's anchor and box: (x, y, side) and the box its text takes.
type Spot = ((i32, i32, HPos), Rect);

/// Places right and left of a marker at `p`, `gap` pixels off, level with
/// it first, then a line further up or down each time.
fn beside(p: (i32, i32), text: &str, gap: i32) -> Vec<Spot> {
    (0..12)
        .flat_map(|k| {
            let dy = if k % 2 == 0 {
                k / 2 * 22
            } else {
                -(k / 2 + 1) * 22
            };
            [
                (p.0 + gap, p.1 + dy, HPos::Left),
                (p.0 - gap, p.1 + dy, HPos::Right),
            ]
        })
        .map(|(x, y, h)| ((x, y, h), text_box(text, x, y, h, VPos::Center)))
        .collect()
}

/// Places further from a disc of radius `r` at `p`, in eight directions,
/// for a label with a leader line.
fn around(p: (i32, i32), text: &str, r: i32) -> Vec<Spot> {
    let mut out = Vec::new();
    for dist in [r + 50, r + 90, r + 140] {
        for k in 0..8 {
            let a = std::f64::consts::PI / 4.0 * k as f64;
            let (dx, dy) = (
                (dist as f64 * a.cos()) as i32,
                (dist as f64 * a.sin()) as i32,
            );
            let h = if dx >= 0 { HPos::Left } else { HPos::Right };
            let (x, y) = (p.0 + dx, p.1 + dy);
            out.push(((x, y, h), text_box(text, x, y, h, VPos::Center)));
        }
    }
    out
}

/// A thin line from a disc's edge to its label's box.
fn leader<DB: DrawingBackend>(
    c: &mut Canvas<'_, DB>,
    p: (i32, i32),
    r: i32,
    b: Rect,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    let to = ((b.0 + b.2) / 2, (b.1 + b.3) / 2);
    let to = (if to.0 >= p.0 { b.0 } else { b.2 }, to.1);
    let (dx, dy) = ((to.0 - p.0) as f64, (to.1 - p.1) as f64);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let from = (
        p.0 + (dx / len * r as f64) as i32,
        p.1 + (dy / len * r as f64) as i32,
    );
    c.placer.line((from, to));
    c.root
        .draw(&PathElement::new(
            vec![from, to],
            BLACK.mix(0.55).stroke_width(1),
        ))
        .map_err(e)
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
