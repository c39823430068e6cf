//! The CARM chart's legend and roof key, in a panel to the right of the
//! plot, as wide as their rows need: nothing in it can cover a roof or a
//! point. The texts roofs take in the key and as labels are here too.

use super::canvas::{
    Canvas, SIZE, dash, draw_box, draw_point, draw_px_line, draw_text, err as e, palette, text_box,
};
use super::select::Selection;
use crate::kernels::{Kind, Mix, Op, Precision};
use crate::machine::Level;
use crate::results::Roof;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// A row of the roof key: its series (for the dash), text and colour.
pub type KeyRow = (usize, String, RGBColor);

/// A flat roof drawn: its series, roof, colour and ends in pixels.
pub type Flat<'s> = (usize, &'s Roof, RGBColor, (i32, i32), (i32, i32));

fn op_title(op: Option<Op>) -> &'static str {
    match op {
        Some(Op::FmaAdd) => "FMA+ADD",
        Some(Op::Fma) => "FMA",
        Some(Op::Add) => "ADD",
        Some(Op::Mul) => "MUL",
        Some(Op::AddMul) => "ADD/MUL",
        Some(Op::Div) => "DIV",
        Some(Op::Dot) => "DOT",
        Some(Op::Madd) => "MADD+ADD",
        Some(Op::Mmla) => "MMLA",
        Some(Op::Alu) => "ALU",
        None => "?",
    }
}

/// A flat roof's label: "FMA DP: 116.2 GFLOP/s, 31.4 flop/cycle", or
/// "DOT INT8: 910.3 GOP/s, 246.2 op/cycle" for integer arithmetic.
pub fn flat_text(r: &Roof) -> String {
    let unit = r.precision.map_or("flop", Precision::unit);
    // Integer ALU roofs of the general registers and of vectors are drawn
    // together: named by their ISA.
    let isa = match r.precision {
        Some(Precision::Int) => format!(" {}", r.isa),
        _ => String::new(),
    };
    format!(
        "{} {}{isa}: {:.1} G{}/s, {:.1} {unit}/cycle",
        op_title(r.op),
        r.precision.map_or("", Precision::name).to_uppercase(),
        r.value(),
        unit.to_uppercase(),
        r.per_cycle,
    )
}

/// A roof's row in the key: a flat roof as its label, a sloped one as
/// "L1 load: 471.9 GB/s, 127.6 B/cycle".
pub fn key_text(r: &Roof) -> String {
    if r.kind == Kind::Bandwidth {
        format!(
            "{} {}: {:.1} GB/s, {:.1} B/cycle",
            r.level.map_or("?".to_string(), Level::name),
            r.mix.map_or("", Mix::name),
            r.value(),
            r.per_cycle,
        )
    } else {
        flat_text(r)
    }
}

/// What a legend line shows beside its text.
#[derive(Clone, Copy)]
pub enum Key {
    /// A series' line style.
    Line(usize),
    /// A series' validation point marker.
    Points(usize),
    /// The thin line of expected values.
    Expected,
    /// The applications' marker.
    Apps,
    /// A phase's marker on its path.
    Phases,
    /// A sized region's line through its sizes.
    Series,
    /// A point's dots by level (simulated traffic).
    Levels,
    /// The discs' sizes: their area is their share of the time.
    Discs,
    /// A numbered disc's number.
    Number(usize),
}

/// The legend: one line per series, then the point markers (the validation
/// points' shape tells their series apart).
pub fn legend_rows(sel: &Selection) -> Vec<(String, Key)> {
    let mut legend: Vec<(String, Key)> = sel
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.label.clone(), Key::Line(i)))
        .collect();
    let with_points: Vec<usize> = (0..sel.series.len())
        .filter(|&i| !sel.series[i].validation.is_empty())
        .collect();
    for &i in &with_points {
        let text = if with_points.len() > 1 {
            format!("validation points, {} (colour: level)", sel.series[i].label)
        } else {
            "validation points (colour: level)".into()
        };
        legend.push((text, Key::Points(i)));
    }
    if sel.series.iter().any(|s| s.partial_overlap) {
        legend.push((
            "expected where the core overlaps memory and FP units in part".into(),
            Key::Expected,
        ));
    }
    if (sel.apps.iter()).any(|a| a.function().is_none() && a.phase().is_none()) {
        legend.push(("programs (colour: bounding level)".into(), Key::Apps));
    }
    if sel.apps.iter().any(|a| a.phase().is_some()) {
        legend.push((
            "phases by number and hottest function, in time order".into(),
            Key::Phases,
        ));
    }
    if !super::series::of(&sel.apps).is_empty() {
        legend.push((
            "sized regions: a line through each one's sizes (n)".into(),
            Key::Series,
        ));
    }
    let numbered = super::discs::numbered(sel);
    if !numbered.is_empty() {
        legend.push((
            "functions and loops: disc area = share of the time (1, 10, 25 %)".into(),
            Key::Discs,
        ));
        for (n, (_, label, share)) in numbered.into_iter().enumerate() {
            legend.push((
                format!("{label}: {:.1} %", 100.0 * share),
                Key::Number(n + 1),
            ));
        }
    }
    if sel.apps.iter().any(|a| a.traffic.is_some()) {
        legend.push((
            "the same at each level's traffic (simulated caches, no prefetcher)".into(),
            Key::Levels,
        ));
    }
    legend
}

/// The panel right of the plot that holds the legend and the roof key, as
/// wide as their longest rows and the key's columns need: nothing in it
/// can cover a roof or a point.
pub struct Panel {
    /// Width in pixels.
    pub width: u32,
    /// Key rows per column.
    per_col: usize,
    /// Width of a key column.
    col_width: i32,
}

/// Height of a legend or key row.
const ROW: i32 = 24;

impl Panel {
    pub fn of(sel: &Selection, legend: &[(String, Key)]) -> Panel {
        let legend_w = legend_width(legend);
        let legend_h = legend.len() as i32 * 26 + 12;
        // Room for the key under the legend; the key holds at most every roof.
        let free = SIZE.1 as i32 - 2 * 24 - legend_h - 20 - 12;
        let per_col = (free / ROW).max(1) as usize;
        let rows: Vec<String> = key_bound(sel, per_col);
        let cols = rows.len().div_ceil(per_col).max(1);
        let col_width = rows
            .iter()
            .map(|t| text_box(t, 0, 0, HPos::Left, VPos::Top).2)
            .max()
            .unwrap_or(0)
            + 80;
        let width = legend_w.max(col_width * cols as i32) + 24;
        Panel {
            width: width as u32,
            per_col,
            col_width,
        }
    }
}

/// The texts the key would hold if no flat roof found a place for its label.
fn key_bound(sel: &Selection, per_col: usize) -> Vec<String> {
    let all: Vec<(usize, &Roof)> = sel
        .series
        .iter()
        .enumerate()
        .flat_map(|(si, s)| s.bandwidth.iter().chain(&s.compute).map(move |r| (si, r)))
        .collect();
    let one_col = all.len() <= per_col;
    all.iter()
        .map(|&(si, r)| {
            if one_col {
                format!("{}{}", key_text(r), sel.tag(si))
            } else {
                key_text(r)
            }
        })
        .collect()
}

fn legend_width(legend: &[(String, Key)]) -> i32 {
    legend
        .iter()
        .map(|l| l.0.chars().count())
        .max()
        .unwrap_or(0) as i32
        * 10
        + 70
}

/// The legend at the top of the panel, from `top` down; the y below it.
pub fn draw_legend<DB: DrawingBackend>(
    legend: &[(String, Key)],
    top: i32,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<i32, String>
where
    DB::ErrorType: 'static,
{
    if legend.is_empty() {
        return Ok(top);
    }
    let x0 = SIZE.0 as i32;
    let lh = legend.len() as i32 * 26 + 12;
    let lbox = (x0, top, x0 + legend_width(legend), top + lh);
    draw_box(c.root, lbox).map_err(e)?;
    for (i, (text, key)) in legend.iter().enumerate() {
        let y = lbox.1 + 19 + i as i32 * 26;
        let x = lbox.0 + 10;
        match *key {
            Key::Line(s) => draw_px_line(c.root, (x, y), (x + 44, y), BLACK, dash(s)).map_err(e)?,
            Key::Points(s) => draw_point(c.root, (x + 22, y), s, palette::GREY).map_err(e)?,
            Key::Expected => c
                .root
                .draw(&PathElement::new(
                    vec![(x, y), (x + 44, y)],
                    palette::GREY.stroke_width(1),
                ))
                .map(|_| ())
                .map_err(e)?,
            Key::Apps => {
                c.root
                    .draw(&TriangleMarker::new((x + 22, y), 10, BLACK.filled()))
                    .map_err(e)?;
                c.root
                    .draw(&TriangleMarker::new((x + 22, y), 7, palette::GREY.filled()))
                    .map_err(e)?
            }
            Key::Phases => super::phases::key(c.root, (x, y)).map_err(e)?,
            Key::Series => super::series::key(c.root, (x, y)).map_err(e)?,
            Key::Levels => {
                draw_px_line(c.root, (x, y), (x + 44, y), palette::GREY, &[4, 4]).map_err(e)?;
                super::levels::square(c.root, (x + 22, y), palette::GREY).map_err(e)?
            }
            Key::Discs => {
                for (share, dx) in [(0.01, 4), (0.1, 18), (0.25, 38)] {
                    let r = super::discs::function_radius(share);
                    let fill = palette::GREY.mix(0.6).filled();
                    c.root.draw(&Circle::new((x + dx, y), r, fill)).map_err(e)?;
                    c.root
                        .draw(&Circle::new((x + dx, y), r, BLACK.stroke_width(1)))
                        .map_err(e)?;
                }
            }
            Key::Number(n) => draw_text(
                c.root,
                &n.to_string(),
                (x + 22, y),
                BLACK,
                (HPos::Center, VPos::Center),
                false,
            )
            .map_err(e)?,
        }
        draw_text(
            c.root,
            text,
            (x + 56, y),
            BLACK,
            (HPos::Left, VPos::Center),
            false,
        )
        .map_err(e)?;
    }
    Ok(lbox.3)
}

/// The sloped roofs, and the flat ones with no room for a label: one row
/// per roof with its line's colour and dash, in the panel from `top` (parallel
/// diagonal lines leave no room for horizontal text beside each of them).
/// One column names each row's series; several columns tell the series by
/// the dash alone, as the legend shows.
pub fn draw_key<DB: DrawingBackend>(
    sel: &Selection,
    key: Vec<KeyRow>,
    panel: &Panel,
    top: i32,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    if key.is_empty() {
        return Ok(());
    }
    let cols = key.len().div_ceil(panel.per_col);
    let rows: Vec<KeyRow> = key
        .into_iter()
        .map(|(si, t, col)| {
            let t = if cols == 1 {
                format!("{t}{}", sel.tag(si))
            } else {
                t
            };
            (si, t, col)
        })
        .collect();
    let per_col = rows.len().div_ceil(cols);
    let x0 = SIZE.0 as i32;
    let k = (
        x0,
        top,
        x0 + panel.col_width * cols as i32,
        top + per_col as i32 * ROW + 12,
    );
    draw_box(c.root, k).map_err(e)?;
    for (j, (si, text, col)) in rows.iter().enumerate() {
        let x = k.0 + (j / per_col) as i32 * panel.col_width;
        let y = k.1 + 18 + (j % per_col) as i32 * ROW;
        draw_px_line(c.root, (x + 10, y), (x + 54, y), *col, dash(*si)).map_err(e)?;
        draw_text(
            c.root,
            text,
            (x + 66, y),
            *col,
            (HPos::Left, VPos::Center),
            false,
        )
        .map_err(e)?;
    }
    Ok(())
}
