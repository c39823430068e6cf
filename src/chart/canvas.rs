//! What every chart draws with: the palette, sizes and font, one grid
//! style, text, boxes and dashed lines in pixels, and the way a chart reaches
//! its file (SVG as text with tooltips, PNG through a temporary file).

use super::font;
use super::labels::{Placer, Rect};
use super::tips::{self, Tip};
use crate::error::{Error, Result};
use crate::machine::Level;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// The CARM chart's log-log plotting area.
pub type Plot<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// Okabe-Ito colour-blind-safe palette.
pub mod palette {
    use plotters::style::RGBColor;
    pub const BLACK: RGBColor = RGBColor(0, 0, 0);
    pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
    pub const SKY: RGBColor = RGBColor(86, 180, 233);
    pub const GREEN: RGBColor = RGBColor(0, 158, 115);
    pub const BLUE: RGBColor = RGBColor(0, 114, 178);
    pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
    pub const PURPLE: RGBColor = RGBColor(204, 121, 167);
    pub const GREY: RGBColor = RGBColor(110, 110, 110);
    /// Arrows from a point's earlier place to its place now.
    pub const MOVE: RGBColor = RGBColor(68, 68, 68);
}

/// Colour of a memory level.
pub fn level_colour(level: Level) -> RGBColor {
    match level {
        Level::Cache(1) => palette::BLUE,
        Level::Cache(2) => palette::GREEN,
        Level::Cache(3) => palette::ORANGE,
        Level::Dram => palette::VERMILLION,
        Level::Cache(_) => palette::PURPLE,
    }
}

/// Chart size in pixels.
pub const SIZE: (u32, u32) = (1600, 1000);
pub(crate) const FONT: &str = "sans-serif";
pub(crate) const LABEL_PX: i32 = 17;

/// The box a text of the label size takes, anchored at (x, y).
pub(crate) fn text_box(text: &str, x: i32, y: i32, h: HPos, v: VPos) -> Rect {
    let w = (text.chars().count() as f64 * LABEL_PX as f64 * 0.56) as i32;
    let ht = (LABEL_PX as f64 * 1.25) as i32;
    let x0 = match h {
        HPos::Left => x,
        HPos::Right => x - w,
        HPos::Center => x - w / 2,
    };
    let y0 = match v {
        VPos::Top => y,
        VPos::Bottom => y - ht,
        VPos::Center => y - ht / 2,
    };
    (x0, y0, x0 + w, y0 + ht)
}

pub(crate) fn fmt_tick(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else if v < 1e-6 {
        // Six decimals would show "0.": function points can sit this low.
        format!("{v:.0e}")
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').to_string()
    }
}

/// Line style of a series: solid, dashed, dotted, dash-dot (on, off, ...
/// lengths in pixels; empty for solid).
pub(crate) fn dash(series: usize) -> &'static [u32] {
    match series % 4 {
        0 => &[],
        1 => &[14, 8],
        2 => &[4, 6],
        _ => &[18, 6, 4, 6],
    }
}

/// Draw into `path`, SVG or PNG by its extension: `$draw` is called with
/// the root drawing area of the chosen backend. Text is laid out and drawn
/// with [`font::ensure`]'s font. The chart is drawn into
/// a temporary file beside `path` and renamed over it, so a chart already
/// there is replaced whole or not at all.
macro_rules! draw_to_file {
    ($path:expr, |$root:ident| $draw:expr) => {
        crate::chart::canvas::draw_to_file!($path, crate::chart::canvas::SIZE, |$root| $draw)
    };
    ($path:expr, $size:expr, |$root:ident| $draw:expr) => {{
        let path: &std::path::Path = $path;
        let err =
            |e: String| crate::error::Error::Io(format!("cannot draw {}: {e}", path.display()));
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let tmp = path.with_file_name(format!(
            ".{}.{}.tmp.{}",
            path.file_name()
                .map_or("chart".into(), |f| f.to_string_lossy()),
            std::process::id(),
            ext.as_deref().unwrap_or("")
        ));
        let drawn = match ext.as_deref() {
            Some("svg") => {
                crate::chart::font::ensure()?;
                let $root = plotters::prelude::SVGBackend::new(&tmp, $size).into_drawing_area();
                $draw.map_err(err)?;
                $root.present().map_err(|e| err(e.to_string()))
            }
            Some("png") => {
                crate::chart::font::ensure()?;
                let $root = plotters::prelude::BitMapBackend::new(&tmp, $size).into_drawing_area();
                $draw.map_err(err)?;
                $root.present().map_err(|e| err(e.to_string()))
            }
            _ => Err(crate::error::Error::input(format!(
                "cannot tell the chart format from '{}'; name it .svg or .png",
                path.display()
            ))),
        };
        match drawn.and_then(|()| std::fs::rename(&tmp, path).map_err(|e| err(e.to_string()))) {
            Ok(()) => Ok(()),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }};
}
pub(crate) use draw_to_file;

/// The grid every chart shares: light and bold lines, label and axis text.
pub(crate) fn grid<'a, 'b, X, Y, DB>(
    m: &'b mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>,
) -> &'b mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged + ValueFormatter<Y::ValueType>,
    DB: DrawingBackend,
{
    m.label_style((FONT, 18))
        .axis_desc_style((FONT, 20))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
}

/// Whether `path` names an SVG file: SVG charts are written as text, with
/// their tooltips.
pub(crate) fn is_svg(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
}

/// SVG text of `size` pixels drawn by `draw`, with the tooltips it returns;
/// `what` names the chart in errors.
pub(crate) fn svg_with_tips(
    size: (u32, u32),
    what: &str,
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> std::result::Result<Vec<Tip>, String>,
) -> Result<String> {
    // Laid out with the font PNG uses.
    font::ensure()?;
    let err = |e: String| Error::Io(format!("cannot draw {what}: {e}"));
    let mut out = String::new();
    let tips = {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        let tips = draw(&root).map_err(err)?;
        root.present().map_err(|e| err(e.to_string()))?;
        tips
    };
    Ok(tips::add(&out, &tips))
}

/// A white, framed box (the legend and the key of the sloped roofs).
pub(crate) fn draw_box<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    r: Rect,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw(&Rectangle::new(
        [(r.0, r.1), (r.2, r.3)],
        WHITE.mix(0.92).filled(),
    ))?;
    root.draw(&Rectangle::new(
        [(r.0, r.1), (r.2, r.3)],
        BLACK.stroke_width(1),
    ))
}

/// A text; with `halo`, on a white box that keeps it legible where it
/// crosses grid or roof lines.
pub(crate) fn draw_text<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    text: &str,
    at: (i32, i32),
    c: RGBColor,
    (h, v): (HPos, VPos),
    halo: bool,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if halo {
        let bx = text_box(text, at.0, at.1, h, v);
        root.draw(&Rectangle::new(
            [(bx.0 - 2, bx.1), (bx.2 + 2, bx.3)],
            WHITE.mix(0.85).filled(),
        ))?;
    }
    root.draw(&Text::new(
        text.to_string(),
        at,
        (FONT, LABEL_PX).into_font().color(&c).pos(Pos::new(h, v)),
    ))
}

pub(crate) fn draw_px_line<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    a: (i32, i32),
    b: (i32, i32),
    c: RGBColor,
    dash: &[u32],
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = c.stroke_width(3);
    if dash.is_empty() {
        return root.draw(&PathElement::new(vec![a, b], style));
    }
    let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
    let len = (dx * dx + dy * dy).sqrt();
    let p = |s: f64| (a.0 + (dx * s / len) as i32, a.1 + (dy * s / len) as i32);
    // Alternate on and off lengths along the line, starting on.
    let mut t = 0.0;
    for (i, &l) in dash.iter().cycle().enumerate() {
        if t >= len || l == 0 && dash.iter().all(|&x| x == 0) {
            break;
        }
        let t1 = (t + f64::from(l)).min(len);
        if i % 2 == 0 {
            root.draw(&PathElement::new(vec![p(t), p(t1)], style))?;
        }
        t = t1;
    }
    Ok(())
}

/// What the chart has drawn so far: where texts may still go, and the
/// tooltips of what is drawn.
pub struct Canvas<'r, DB: DrawingBackend> {
    pub root: &'r DrawingArea<DB, Shift>,
    pub placer: Placer,
    pub tips: Vec<Tip>,
}

/// An error of plotters as text.
pub fn err<E: std::error::Error + Send + Sync>(x: DrawingAreaErrorKind<E>) -> String {
    x.to_string()
}

/// A validation point of series `si` at `p`: a circle for the first series,
/// a square for the second, and so on in turn, filled with `c` and framed.
pub fn draw_point<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    p: (i32, i32),
    si: usize,
    c: RGBColor,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if si.is_multiple_of(2) {
        root.draw(&Circle::new(p, 5, c.filled()))?;
        root.draw(&Circle::new(p, 5, BLACK.stroke_width(1)))
    } else {
        let r = [(p.0 - 4, p.1 - 4), (p.0 + 4, p.1 + 4)];
        root.draw(&Rectangle::new(r, c.filled()))?;
        root.draw(&Rectangle::new(r, BLACK.stroke_width(1)))
    }
}
