//! The CARM chart: which roofs of which results files to draw
//! ([`select`]), and drawing them with plotters ([`render`]) as SVG or PNG.

pub mod curve;
pub mod fleet;
pub mod font;
pub mod geometry;
pub mod labels;
pub mod quadrant;
pub mod tips;

use crate::error::{Error, Result};
use crate::kernels::{Kind, Mix, Op, Precision};
use crate::machine::Level;
use crate::machine::isa::Isa;
use crate::results::apps::AppPoint;
use crate::results::view::{default_mix, default_ops, default_precision, distinct};
use crate::results::{Document, Roof, ValidationPoint};
use crate::roofline::bounding_level;
use geometry::{Bounds, bounds, lines};
use labels::{Placer, Rect};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use tips::Tip;

/// What to draw (None: the default).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// ISA (default: the widest in the results).
    pub isa: Option<String>,
    /// Precision (default: dp).
    pub precision: Option<String>,
    /// Thread counts (default: every count run).
    pub threads: Option<Vec<usize>>,
    /// Bandwidth mix (default: 2ld1st, else load).
    pub mix: Option<String>,
    /// FP ops (default: fma_add, fma, add; those present).
    pub ops: Option<Vec<String>>,
}

/// One set of roofs drawn in one line style.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Bandwidth roofs, fastest first.
    pub bandwidth: Vec<Roof>,
    /// Compute roofs, highest first.
    pub compute: Vec<Roof>,
    /// Validation points of the same ISA, precision and threads.
    pub validation: Vec<ValidationPoint>,
    /// The core overlaps the points' memory and FP units only in part:
    /// their expected values bend below the roofs and are drawn.
    pub partial_overlap: bool,
}

/// Everything the chart shows.
#[derive(Debug, Clone)]
pub struct Selection {
    /// Title.
    pub title: String,
    /// Series, one line style each.
    pub series: Vec<Series>,
    /// Application points.
    pub apps: Vec<AppPoint>,
    /// Thread counts of the roofs drawn.
    pub threads: Vec<usize>,
}

impl Selection {
    /// A line for each application point that ran a thread count whose
    /// roofs are not drawn: it is shown against other roofs, and said so.
    pub fn app_notes(&self) -> Vec<String> {
        let drawn: Vec<String> = self.threads.iter().map(|t| t.to_string()).collect();
        self.apps
            .iter()
            .filter_map(|a| {
                let n = a.threads.filter(|n| !self.threads.contains(n))?;
                Some(format!(
                    "{} ran {n} thread(s), whose roofs are not drawn (measured or asked for: {}); it is shown against those",
                    a.name,
                    drawn.join(", ")
                ))
            })
            .collect()
    }
}

fn choose<T: Copy + PartialEq + std::fmt::Display>(
    what: &str,
    wanted: Option<&str>,
    available: &[T],
    parse: impl Fn(&str) -> std::result::Result<T, String>,
    default: impl Fn(&[T]) -> Option<T>,
) -> Result<T> {
    let list = || {
        available
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match wanted {
        Some(w) => {
            let v = parse(w)
                .map_err(|e| Error::input(format!("{e}; these results have: {}", list())))?;
            if available.contains(&v) {
                Ok(v)
            } else {
                Err(Error::input(format!(
                    "no roofs with {what} '{w}' in these results; available: {}",
                    list()
                )))
            }
        }
        None => default(available)
            .ok_or_else(|| Error::input(format!("these results have no {what} to draw"))),
    }
}

/// Pick the roofs to draw from several results documents.
pub fn select(docs: &[(String, Document)], f: &Filter, apps: Vec<AppPoint>) -> Result<Selection> {
    let all: Vec<&Roof> = docs.iter().flat_map(|(_, d)| d.roofs.iter()).collect();
    if all.is_empty() {
        return Err(Error::input(
            "the results hold no roofs; run `carmbench run` (an interrupted run may have measured none)",
        ));
    }
    let good: Vec<&Roof> = all.iter().copied().filter(|r| r.usable()).collect();
    if good.is_empty() {
        return Err(Error::input(
            "every roof in the results is zero or not a number; re-run `carmbench run`",
        ));
    }
    let isas: Vec<Isa> = distinct(&good, |r| Some(r.isa));
    let isa = choose(
        "ISA",
        f.isa.as_deref(),
        &isas,
        |s| s.parse(),
        |v| v.last().copied(),
    )?;
    let precs: Vec<Precision> = distinct(&good, |r| r.precision);
    let precision = if precs.is_empty() {
        None
    } else {
        Some(choose(
            "precision",
            f.precision.as_deref(),
            &precs,
            Precision::parse,
            default_precision,
        )?)
    };
    let of_isa: Vec<&Roof> = good.iter().copied().filter(|r| r.isa == isa).collect();
    let mixes: Vec<Mix> = distinct(&of_isa, |r| r.mix);
    let mix = if mixes.is_empty() {
        None
    } else {
        Some(choose(
            "mix",
            f.mix.as_deref(),
            &mixes,
            Mix::parse,
            default_mix,
        )?)
    };
    let ops_avail: Vec<Op> = distinct(&of_isa, |r| r.op.filter(|_| r.precision == precision));
    let ops: Vec<Op> = match &f.ops {
        Some(list) => list
            .iter()
            .map(|o| choose("op", Some(o), &ops_avail, Op::parse, |_| None))
            .collect::<Result<_>>()?,
        None => default_ops(&ops_avail),
    };
    let threads_avail: Vec<usize> = distinct(&of_isa, |r| Some(r.threads));
    let threads = match &f.threads {
        Some(t) => {
            for n in t {
                if !threads_avail.contains(n) {
                    return Err(Error::input(format!(
                        "no roofs with {n} threads in these results; available: {}",
                        threads_avail
                            .iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
            t.clone()
        }
        None => threads_avail,
    };

    let mut series = Vec::new();
    let mut isas_drawn = Vec::new();
    for (name, d) in docs {
        // Several files without --isa: each machine with its own widest ISA.
        let isa = if f.isa.is_none() && docs.len() > 1 {
            crate::results::view::widest_isa(&d.roofs).unwrap_or(isa)
        } else {
            isa
        };
        if !isas_drawn.contains(&isa) {
            isas_drawn.push(isa);
        }
        for &t in &threads {
            let mut bandwidth: Vec<Roof> = d
                .roofs
                .iter()
                .filter(|r| {
                    r.usable()
                        && r.kind == Kind::Bandwidth
                        && r.isa == isa
                        && r.threads == t
                        && r.mix == mix
                })
                .cloned()
                .collect();
            bandwidth.sort_by(|a, b| b.value().total_cmp(&a.value()));
            let mut compute: Vec<Roof> = d
                .roofs
                .iter()
                .filter(|r| {
                    r.usable()
                        && r.kind == Kind::Compute
                        && r.isa == isa
                        && r.threads == t
                        && r.precision == precision
                        && r.op.is_some_and(|o| ops.contains(&o))
                })
                .cloned()
                .collect();
            compute.sort_by(|a, b| b.value().total_cmp(&a.value()));
            if bandwidth.is_empty() && compute.is_empty() {
                // A file without what was asked for is said, not dropped.
                if f.isa.is_some() || f.threads.is_some() {
                    return Err(Error::input(format!(
                        "{name} has no {isa} roofs with {t} thread(s) (it has {}); leave it out or ask for what it has with --isa and --threads",
                        measured_sets(d)
                    )));
                }
                continue;
            }
            let validation = d
                .validation
                .iter()
                .filter(|v| {
                    v.isa == isa
                        && v.threads == t
                        && Some(v.precision) == precision
                        && Some(v.mix) == mix
                })
                .filter(|v| {
                    v.ai > 0.0
                        && v.gflop_per_s > 0.0
                        && v.ai.is_finite()
                        && v.gflop_per_s.is_finite()
                })
                .cloned()
                .collect();
            let label = if docs.len() > 1 {
                format!("{name}, {isa}, {t} thread{}", if t == 1 { "" } else { "s" })
            } else {
                format!("{t} thread{}", if t == 1 { "" } else { "s" })
            };
            let partial_overlap = d.coissue.iter().any(|c| {
                c.partial() && c.isa == isa && Some(c.precision) == precision && Some(c.mix) == mix
            });
            series.push(Series {
                label,
                bandwidth,
                compute,
                validation,
                partial_overlap,
            });
        }
    }
    if series.is_empty() {
        return Err(Error::input("no roofs match the filters"));
    }
    let mut cpus: Vec<String> = docs
        .iter()
        .map(|(_, d)| {
            let m = &d.machine;
            format!(
                "{}{}",
                m.topology.cpu_model.as_deref().unwrap_or("unknown CPU"),
                m.microarchitecture
                    .as_deref()
                    .map(|u| format!(" ({u})"))
                    .unwrap_or_default()
            )
        })
        .collect();
    cpus.dedup();
    let clocks: Vec<String> = docs
        .iter()
        .map(|(_, d)| format!("{:.2}", d.machine.clock.measured.core_ghz()))
        .collect();
    let title = format!(
        "Cache-aware Roofline: {} | {}{}{} | {} thread(s) | {} GHz",
        cpus.join(" vs "),
        isas_drawn
            .iter()
            .map(|i| i.name().to_uppercase())
            .collect::<Vec<_>>()
            .join(" / "),
        precision
            .map(|p| format!(" {}", p.name().to_uppercase()))
            .unwrap_or_default(),
        mix.map(|m| format!(" | {m}")).unwrap_or_default(),
        threads
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        clocks.join(" / ")
    );
    Ok(Selection {
        title,
        series,
        apps,
        threads,
    })
}

/// "avx2 with 1, 2 threads; avx512 with 1 thread": what a file measured.
fn measured_sets(d: &Document) -> String {
    let isas: Vec<Isa> = distinct(&d.roofs.iter().collect::<Vec<_>>(), |r| Some(r.isa));
    isas.iter()
        .map(|&i| {
            let t: Vec<String> = d
                .thread_counts()
                .into_iter()
                .filter(|&t| d.roofs.iter().any(|r| r.isa == i && r.threads == t))
                .map(|t| t.to_string())
                .collect();
            format!("{i} with {} thread(s)", t.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Okabe-Ito colour-blind-safe palette.
pub(crate) mod palette {
    use plotters::style::RGBColor;
    pub const BLACK: RGBColor = RGBColor(0, 0, 0);
    pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
    pub const SKY: RGBColor = RGBColor(86, 180, 233);
    pub const GREEN: RGBColor = RGBColor(0, 158, 115);
    pub const BLUE: RGBColor = RGBColor(0, 114, 178);
    pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
    pub const PURPLE: RGBColor = RGBColor(204, 121, 167);
    pub const GREY: RGBColor = RGBColor(110, 110, 110);
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

fn op_colour(op: Option<Op>) -> RGBColor {
    match op {
        Some(Op::FmaAdd) => palette::BLACK,
        Some(Op::Fma) => palette::PURPLE,
        Some(Op::Add) => palette::SKY,
        _ => palette::GREY,
    }
}

fn op_title(op: Option<Op>) -> &'static str {
    match op {
        Some(Op::FmaAdd) => "FMA+ADD",
        Some(Op::Fma) => "FMA",
        Some(Op::Add) => "ADD",
        Some(Op::Mul) => "MUL",
        Some(Op::AddMul) => "ADD/MUL",
        Some(Op::Div) => "DIV",
        None => "?",
    }
}

/// Chart size in pixels.
pub const SIZE: (u32, u32) = (1600, 1000);
/// Rows of the roof key per column.
const KEY_ROWS: usize = 14;
pub(crate) const FONT: &str = "sans-serif";
pub(crate) const LABEL_PX: i32 = 17;

fn text_box(text: &str, x: i32, y: i32, h: HPos, v: VPos) -> Rect {
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
/// the root drawing area of the chosen backend. PNG text needs a font
/// ([`font::ensure`]); SVG text works without one. The chart is drawn into
/// a temporary file beside `path` and renamed over it, so a chart already
/// there is replaced whole or not at all.
macro_rules! draw_to_file {
    ($path:expr, |$root:ident| $draw:expr) => {
        crate::chart::draw_to_file!($path, crate::chart::SIZE, |$root| $draw)
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
                let _ = crate::chart::font::ensure();
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

/// Draw `sel` into `path` (.svg or .png).
pub fn render(sel: &Selection, path: &Path) -> Result<()> {
    if is_svg(path) {
        return crate::files::write_atomic(path, &svg(sel)?);
    }
    draw_to_file!(path, |root| draw(sel, &root))
}

/// Whether `path` names an SVG file: SVG charts are written as text, with
/// their tooltips.
pub(crate) fn is_svg(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
}

/// Draw `sel` as SVG text, each roof and point with its tooltip.
pub fn svg(sel: &Selection) -> Result<String> {
    svg_with_tips(SIZE, "the chart", |root| draw(sel, root))
}

/// SVG text of `size` pixels drawn by `draw`, with the tooltips it returns;
/// `what` names the chart in errors.
pub(crate) fn svg_with_tips(
    size: (u32, u32),
    what: &str,
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> std::result::Result<Vec<Tip>, String>,
) -> Result<String> {
    // Laid out with the font PNG uses when there is one.
    let _ = font::ensure();
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

/// Draw `carm.svg` and `carm.png` of `doc` beside `results_path`, with the
/// default filters: the files written, and for each chart that could not be
/// drawn (no roofs, no font for PNG) why. The results themselves are saved
/// before, whatever happens here.
pub fn write_beside(doc: &Document, results_path: &Path) -> (Vec<std::path::PathBuf>, Vec<String>) {
    let dir = results_path.parent().unwrap_or(Path::new("."));
    let (mut written, mut failed) = (Vec::new(), Vec::new());
    let one = [("carm".to_string(), doc.clone())];
    match select(&one, &Filter::default(), Vec::new()) {
        Ok(sel) => {
            for name in ["carm.svg", "carm.png"] {
                let p = dir.join(name);
                match render(&sel, &p) {
                    Ok(()) => written.push(p),
                    Err(e) => failed.push(format!("{name} not written: {e}")),
                }
            }
        }
        Err(e) => failed.push(format!("no chart: {e}")),
    }
    // The memory curve, when the results have one.
    if let Ok(c) = curve::CurveChart::of(doc, None) {
        for name in ["carm-curve.svg", "carm-curve.png"] {
            let p = dir.join(name);
            match c.render(&p) {
                Ok(()) => written.push(p),
                Err(e) => failed.push(format!("{name} not written: {e}")),
            }
        }
    }
    (written, failed)
}

fn draw<DB: DrawingBackend>(
    sel: &Selection,
    root: &DrawingArea<DB, Shift>,
) -> std::result::Result<Vec<Tip>, String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let bws: Vec<f64> = sel
        .series
        .iter()
        .flat_map(|s| s.bandwidth.iter().map(Roof::value))
        .collect();
    let peaks: Vec<f64> = sel
        .series
        .iter()
        .flat_map(|s| s.compute.iter().map(Roof::value))
        .collect();
    let mut pts: Vec<(f64, f64)> = sel
        .series
        .iter()
        .flat_map(|s| s.validation.iter().map(|v| (v.ai, v.gflop_per_s)))
        .collect();
    pts.extend(sel.apps.iter().map(|a| (a.ai(), a.gflop_per_s())));
    let b: Bounds = bounds(&bws, &peaks, &pts);
    let mut chart = ChartBuilder::on(root)
        .caption(&sel.title, (FONT, 24))
        .margin(24)
        .x_label_area_size(70)
        .y_label_area_size(100)
        .build_cartesian_2d((b.x.0..b.x.1).log_scale(), (b.y.0..b.y.1).log_scale())
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("Arithmetic intensity (flop per byte requested by the core)")
        .y_desc("Performance (GFLOP/s)")
        .x_label_formatter(&|v| fmt_tick(*v))
        .y_label_formatter(&|v| fmt_tick(*v))
        .label_style((FONT, 18))
        .axis_desc_style((FONT, 20))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
        .draw()
        .map_err(e)?;

    let (px0, px1) = (
        chart.backend_coord(&(b.x.0, b.y.1)),
        chart.backend_coord(&(b.x.1, b.y.0)),
    );
    // Lines and markers first, every text last: each text is placed where
    // it covers no point, marker or other text and crosses as few lines as
    // it can (see `labels`), and its halo then hides nothing drawn.
    let mut placer = Placer::new((px0.0, px0.1, px1.0, px1.1));
    let mut flats = Vec::new();
    let mut slopes = Vec::new();
    let mut ridges = Vec::new();
    let mut tips = Vec::new();
    let tag = |si: usize| {
        if sel.series.len() > 1 {
            format!(" [{}]", sel.series[si].label)
        } else {
            String::new()
        }
    };
    for (si, s) in sel.series.iter().enumerate() {
        let bw: Vec<f64> = s.bandwidth.iter().map(Roof::value).collect();
        let pk: Vec<f64> = s.compute.iter().map(Roof::value).collect();
        let (sloped, flat) = lines(&bw, &pk, &b);
        for (r, l) in s.bandwidth.iter().zip(sloped) {
            let c = r.level.map_or(palette::PURPLE, level_colour);
            let p0 = chart.backend_coord(&(l.x0, l.x0 * l.gb_per_s));
            let p1 = chart.backend_coord(&(l.x1, l.x1 * l.gb_per_s));
            draw_px_line(root, p0, p1, c, dash(si)).map_err(e)?;
            placer.line((p0, p1));
            slopes.push((si, r, c));
            tips.push(Tip::line(p0, p1, format!("{}{}", roof_tip(r), tag(si))));
            if let Some(rp) = l.ridge {
                let q = chart.backend_coord(&rp);
                ridges.push((q, c));
                tips.push(Tip::dot(
                    q,
                    6,
                    format!(
                        "ridge of {} and the top FP roof: {:.3} flop/byte{}",
                        r.label(),
                        rp.0,
                        tag(si)
                    ),
                ));
            }
        }
        for (r, l) in s.compute.iter().zip(flat) {
            let c = op_colour(r.op);
            let p0 = chart.backend_coord(&(l.x0, l.gflop_per_s));
            let p1 = chart.backend_coord(&(l.x1, l.gflop_per_s));
            draw_px_line(root, p0, p1, c, dash(si)).map_err(e)?;
            placer.line((p0, p1));
            flats.push((si, r, c, p0, p1));
            tips.push(Tip::line(p0, p1, format!("{}{}", roof_tip(r), tag(si))));
        }
    }
    // Markers over every line: ridge points, then validation points.
    for (q, c) in ridges {
        root.draw(&Circle::new(q, 6, c.filled())).map_err(e)?;
        root.draw(&Circle::new(q, 6, BLACK.stroke_width(1)))
            .map_err(e)?;
        placer.mark(q, 6);
    }
    for s in sel.series.iter().filter(|s| s.partial_overlap) {
        for (level, a, b) in expected_lines(&s.validation) {
            let (p0, p1) = (chart.backend_coord(&a), chart.backend_coord(&b));
            root.draw(&PathElement::new(
                vec![p0, p1],
                level_colour(level).stroke_width(1),
            ))
            .map_err(e)?;
        }
    }
    for (si, s) in sel.series.iter().enumerate() {
        for v in &s.validation {
            let p = chart.backend_coord(&(v.ai, v.gflop_per_s));
            draw_point(root, p, si, level_colour(v.level)).map_err(e)?;
            placer.mark(p, 5);
            tips.push(Tip::dot(
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
                    tag(si)
                ),
            ));
        }
    }
    // Applications, coloured by the level bounding them (first series' roofs).
    let mut app_marks = Vec::new();
    if let Some(s0) = sel.series.first() {
        let levels: Vec<(Level, f64)> = s0
            .bandwidth
            .iter()
            .filter_map(|r| Some((r.level?, r.value())))
            .collect();
        let top = s0.compute.first().map_or(f64::NAN, Roof::value);
        for a in &sel.apps {
            let (x, y) = (a.ai(), a.gflop_per_s());
            let c = bounding_level(x, y, &levels, top).map_or(palette::GREY, |l| level_colour(*l));
            let p = chart.backend_coord(&(x, y));
            root.draw(&TriangleMarker::new(p, 10, BLACK.filled()))
                .map_err(e)?;
            root.draw(&TriangleMarker::new(p, 7, c.filled()))
                .map_err(e)?;
            placer.mark(p, 10);
            let text = format!("{} ({:.2} flop/B, {:.1} GFLOP/s)", a.name, x, y);
            let bound = bounding_level(x, y, &levels, top)
                .map_or(String::new(), |l| format!(", under the {l} roof"));
            tips.push(Tip::dot(p, 10, format!("{text}{bound}")));
            app_marks.push((p, text));
        }
    }

    // Legend (top left of the plot): one line per series, then point markers
    // (the validation points' shape tells their series apart).
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
    if !sel.apps.is_empty() {
        legend.push(("applications (colour: bounding level)".into(), Key::Apps));
    }
    let lw = legend
        .iter()
        .map(|l| l.0.chars().count())
        .max()
        .unwrap_or(0) as i32
        * 10
        + 70;
    let lh = legend.len() as i32 * 26 + 12;
    let lbox = (px0.0 + 10, px0.1 + 10, px0.0 + 10 + lw, px0.1 + 10 + lh);
    draw_box(root, lbox).map_err(e)?;
    for (i, (text, key)) in legend.iter().enumerate() {
        let y = lbox.1 + 19 + i as i32 * 26;
        let x = lbox.0 + 10;
        match *key {
            Key::Line(s) => draw_px_line(root, (x, y), (x + 44, y), BLACK, dash(s)).map_err(e)?,
            Key::Points(s) => draw_point(root, (x + 22, y), s, palette::GREY).map_err(e)?,
            Key::Expected => root
                .draw(&PathElement::new(
                    vec![(x, y), (x + 44, y)],
                    palette::GREY.stroke_width(1),
                ))
                .map(|_| ())
                .map_err(e)?,
            Key::Apps => {
                root.draw(&TriangleMarker::new((x + 22, y), 10, BLACK.filled()))
                    .map_err(e)?;
                root.draw(&TriangleMarker::new((x + 22, y), 7, palette::GREY.filled()))
                    .map_err(e)?
            }
        }
        draw_text(
            root,
            text,
            (x + 56, y),
            BLACK,
            (HPos::Left, VPos::Center),
            false,
        )
        .map_err(e)?;
    }
    placer.text(lbox);

    let thread_tag = |si: usize| {
        if sel.series.len() > 1 {
            format!(" [{}]", sel.series[si].label)
        } else {
            String::new()
        }
    };
    // Applications first (a point's name belongs next to it): right of the
    // marker if it fits, else left; then up or down until free.
    for (p, text) in app_marks {
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
        // Level with the marker or one line above or below it: 6 candidates.
        let (x, y, h) = placer
            .choose_near(&boxes, 6)
            .map_or((p.0 + 14, p.1, HPos::Left), |i| cands[i]);
        draw_text(root, &text, (x, y), BLACK, (h, VPos::Center), true).map_err(e)?;
    }
    // Flat roofs: a label just above its line at the right end, else just
    // below it, else further left (never left of where the roof starts),
    // wherever it covers nothing; a roof with no such place goes into the key.
    let mut key: Vec<(usize, String, RGBColor)> = Vec::new();
    for (si, r, c, p0, p1) in flats {
        let base = format!(
            "{} {}: {:.1} GFLOP/s, {:.1} flop/cycle",
            op_title(r.op),
            r.precision.map_or("", Precision::name).to_uppercase(),
            r.value(),
            r.per_cycle,
        );
        let text = format!("{base}{}", thread_tag(si));
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
        match placer.choose_free(&boxes) {
            Some(i) => {
                let (x, y, v) = cands[i];
                draw_text(root, &text, (x, y), c, (HPos::Right, v), true).map_err(e)?;
            }
            None => key.push((si, base, c)),
        }
    }
    // Sloped roofs (and flat ones with no room): a key, one row per roof
    // with its line's colour and dash, in the empty corner under the roofs
    // (parallel diagonal lines leave no room for horizontal text beside
    // each of them).
    key.extend(slopes.iter().map(|(si, r, c)| {
        (
            *si,
            format!(
                "{} {}: {:.1} GB/s, {:.1} B/cycle",
                r.level.map_or("?".to_string(), Level::name),
                r.mix.map_or("", Mix::name),
                r.value(),
                r.per_cycle,
            ),
            *c,
        )
    }));
    if !key.is_empty() {
        // One column with each row's series named; a long key (several
        // files or thread counts) in columns of at most KEY_ROWS rows, the
        // series told by the dash alone, as the legend shows.
        let cols = key.len().div_ceil(KEY_ROWS) as i32;
        let rows: Vec<(usize, String, RGBColor)> = key
            .into_iter()
            .map(|(si, t, c)| {
                (
                    si,
                    if cols == 1 {
                        format!("{t}{}", thread_tag(si))
                    } else {
                        t
                    },
                    c,
                )
            })
            .collect();
        let per_col = rows.len().div_ceil(cols as usize);
        let cw = rows
            .iter()
            .map(|r| text_box(&r.1, 0, 0, HPos::Left, VPos::Top).2)
            .max()
            .unwrap_or(0)
            + 80;
        let (w, h) = (cw * cols, per_col as i32 * 24 + 12);
        // Bottom right first, then up the right side, then along the bottom.
        let mut boxes = Vec::new();
        for dy in (0..8).map(|k| k * 30) {
            boxes.push((
                px1.0 - 10 - w,
                px1.1 - 10 - h - dy,
                px1.0 - 10,
                px1.1 - 10 - dy,
            ));
        }
        for dx in (1..12).map(|k| k * 60) {
            boxes.push((
                px1.0 - 10 - w - dx,
                px1.1 - 10 - h,
                px1.0 - 10 - dx,
                px1.1 - 10,
            ));
        }
        if let Some(i) = placer.choose(&boxes) {
            let k = boxes[i];
            draw_box(root, k).map_err(e)?;
            for (j, (si, text, c)) in rows.iter().enumerate() {
                let x = k.0 + (j / per_col) as i32 * cw;
                let y = k.1 + 18 + (j % per_col) as i32 * 24;
                draw_px_line(root, (x + 10, y), (x + 54, y), *c, dash(*si)).map_err(e)?;
                draw_text(
                    root,
                    text,
                    (x + 66, y),
                    *c,
                    (HPos::Left, VPos::Center),
                    false,
                )
                .map_err(e)?;
            }
        }
    }
    Ok(tips)
}

/// A roof's tooltip: its value, per cycle and % of its limit.
fn roof_tip(r: &Roof) -> String {
    let (unit, per) = if r.kind == Kind::Bandwidth {
        ("GB/s", "B/cycle")
    } else {
        ("GFLOP/s", "flop/cycle")
    };
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

/// What a legend line shows beside its text.
#[derive(Clone, Copy)]
enum Key {
    /// A series' line style.
    Line(usize),
    /// A series' validation point marker.
    Points(usize),
    /// The thin line of expected values.
    Expected,
    /// The applications' marker.
    Apps,
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

/// A validation point of series `si` at `p`: a circle for the first series,
/// a square for the second, and so on in turn, filled with `c` and framed.
fn draw_point<DB: DrawingBackend>(
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
