//! The memory curve: bandwidth against working set per thread, with the
//! caches hwloc reports as vertical lines, each level's buffer range shaded
//! and each roof drawn over the sizes it came from.

use super::canvas::{
    FONT, LABEL_PX, dash, draw_box, draw_px_line, draw_text, err as e, fmt_tick, grid,
    level_colour, palette,
};
use super::geometry::{decade_ceil, decade_floor};
use super::tips::Tip;
use crate::error::{Error, Result};
use crate::kernels::{Kind, Mix};
use crate::machine::isa::Isa;
use crate::results::{Curve, Document, Roof};
use crate::units::human_bytes;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::path::Path;

/// The curve's plot: log bytes against log GB/s.
type Plot<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// Colour of an access mix.
fn mix_colour(m: Mix) -> RGBColor {
    match m {
        Mix::Load => palette::BLUE,
        Mix::Store => palette::VERMILLION,
        Mix::TwoLdOneSt => palette::GREEN,
        Mix::OneLdOneSt => palette::ORANGE,
        Mix::NtStore => palette::PURPLE,
    }
}

/// What the curve chart shows of a document: the curves of its widest ISA
/// with curves (or `isa`), and their roofs.
pub struct CurveChart<'a> {
    doc: &'a Document,
    isa: Isa,
    curves: Vec<&'a Curve>,
    threads: Vec<usize>,
}

impl<'a> CurveChart<'a> {
    /// The chart of `doc`; an input error when it holds no curve (of `isa`).
    pub fn of(doc: &'a Document, isa: Option<Isa>) -> Result<CurveChart<'a>> {
        let isa = match isa {
            Some(i) => i,
            None => doc
                .curves
                .iter()
                .map(|c| c.isa)
                .max()
                .ok_or_else(|| {
                    Error::input(
                        "these results hold no memory curve: measure one with `carmbench run` (results of earlier versions have none)",
                    )
                })?,
        };
        let curves: Vec<&Curve> = doc
            .curves
            .iter()
            .filter(|c| c.isa == isa && c.points.iter().any(|p| p.gb_per_s > 0.0))
            .collect();
        if curves.is_empty() {
            return Err(Error::input(format!(
                "these results hold no {isa} memory curve"
            )));
        }
        let mut threads: Vec<usize> = curves.iter().map(|c| c.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        Ok(CurveChart {
            doc,
            isa,
            curves,
            threads,
        })
    }

    /// The roofs drawn over the curve: bandwidth roofs of the ISA.
    fn roofs(&self) -> impl Iterator<Item = &'a Roof> + '_ {
        self.doc
            .roofs
            .iter()
            .filter(|r| r.kind == Kind::Bandwidth && r.isa == self.isa && r.usable())
    }

    /// Draw into `path` (.svg or .png).
    pub fn render(&self, path: &Path) -> Result<()> {
        if super::canvas::is_svg(path) {
            return crate::files::write_atomic(path, &self.svg()?);
        }
        super::canvas::draw_to_file!(path, |root| self.draw(&root))
    }

    /// Draw as SVG text, each size and roof with its tooltip.
    pub fn svg(&self) -> Result<String> {
        super::canvas::svg_with_tips(super::canvas::SIZE, "the memory curve", |root| {
            self.draw(root)
        })
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<Vec<Tip>, String>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(e)?;
        let (chart, [x0, y0, y1]) = self.frame(root)?;
        let (top, bottom) = (
            chart.backend_coord(&(x0, y1)).1,
            chart.backend_coord(&(x0, y0)).1,
        );
        self.draw_levels(&chart, root, y1, (top, bottom))?;
        let mut tips = self.draw_curves(&chart, root)?;
        tips.extend(self.draw_roofs(&chart, root)?);
        self.draw_legend(root, chart.backend_coord(&(x0, y1)).0, bottom)?;
        Ok(tips)
    }

    /// The title, the axes (bytes in powers of 4, bandwidth in whole
    /// decades) and the grid; the x start and the y range.
    fn frame<'b, DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(Plot<'b, DB>, [f64; 3]), String>
    where
        DB::ErrorType: 'static,
    {
        let pts = self.curves.iter().flat_map(|c| c.points.iter());
        let xs: Vec<f64> = pts.clone().map(|p| p.bytes_per_thread as f64).collect();
        let ys: Vec<f64> = pts.map(|p| p.gb_per_s).filter(|y| *y > 0.0).collect();
        let fold = |v: &[f64], f: fn(f64, f64) -> f64, init| v.iter().copied().fold(init, f);
        let (x0, x1) = (
            fold(&xs, f64::min, f64::INFINITY) / 1.5,
            fold(&xs, f64::max, 0.0) * 1.5,
        );
        // Whole decades, as on the CARM chart: plotters then labels each.
        let (y0, y1) = (
            decade_floor(fold(&ys, f64::min, f64::INFINITY) / 1.2),
            decade_ceil(fold(&ys, f64::max, 0.0) * 1.2),
        );
        let title = format!(
            "Memory curve: {} | {} | bandwidth the cores request against bytes per thread",
            self.doc.cpu_title(),
            self.isa.name().to_uppercase()
        );
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FONT, 24))
            .margin(24)
            .x_label_area_size(70)
            .y_label_area_size(100)
            // Bytes tick at powers of 4 (4 KiB, 16 KiB, ...), not of 10.
            .build_cartesian_2d((x0..x1).log_scale().base(4.0), (y0..y1).log_scale())
            .map_err(e)?;
        grid(
            chart
                .configure_mesh()
                .x_desc("Working set per thread (bytes)")
                .y_desc("Bandwidth (GB/s, all threads)")
                .x_label_formatter(&|v| human_bytes(*v as u64))
                .y_label_formatter(&|v| fmt_tick(*v)),
        )
        .draw()
        .map_err(e)?;
        Ok((chart, [x0, y0, y1]))
    }

    /// Each level's buffer range shaded, and the caches hwloc reports.
    fn draw_levels<DB: DrawingBackend>(
        &self,
        chart: &Plot<'_, DB>,
        root: &DrawingArea<DB, Shift>,
        y1: f64,
        (top, bottom): (i32, i32),
    ) -> std::result::Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        let m = &self.doc.machine;
        // Each level's buffer range, with one thread, shaded.
        if let Some(ranges) = self.doc.buffer_ranges.iter().find(|r| r.threads == 1) {
            for r in &ranges.levels {
                let (a, b) = (
                    chart.backend_coord(&(r.min_bytes as f64, y1)).0,
                    chart.backend_coord(&(r.max_bytes as f64, y1)).0,
                );
                root.draw(&Rectangle::new(
                    [(a, top), (b.max(a + 2), bottom)],
                    level_colour(r.level).mix(0.10).filled(),
                ))
                .map_err(e)?;
            }
        }
        // The caches hwloc reports, as vertical lines.
        for (i, c) in m.topology.caches.iter().enumerate() {
            let x = chart.backend_coord(&(c.size_bytes as f64, y1)).0;
            draw_px_line(root, (x, top), (x, bottom), palette::GREY, &[6, 6]).map_err(e)?;
            let text = format!("{} {}", c.name, human_bytes(c.size_bytes));
            let y = top + 8 + (i as i32 % 2) * (LABEL_PX + 6);
            draw_text(
                root,
                &text,
                (x + 4, y),
                palette::GREY,
                (HPos::Left, VPos::Top),
                true,
            )
            .map_err(e)?;
        }
        Ok(())
    }

    /// Which series (line style) a thread count's curves take.
    fn series(&self, threads: usize) -> usize {
        self.threads.iter().position(|t| *t == threads).unwrap_or(0)
    }

    /// Each curve, a marker at each size.
    fn draw_curves<DB: DrawingBackend>(
        &self,
        chart: &Plot<'_, DB>,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<Vec<Tip>, String>
    where
        DB::ErrorType: 'static,
    {
        let mut tips = Vec::new();
        for c in &self.curves {
            let colour = mix_colour(c.mix);
            let shown: Vec<_> = c.points.iter().filter(|p| p.gb_per_s > 0.0).collect();
            let px: Vec<(i32, i32)> = shown
                .iter()
                .map(|p| chart.backend_coord(&(p.bytes_per_thread as f64, p.gb_per_s)))
                .collect();
            for w in px.windows(2) {
                draw_px_line(root, w[0], w[1], colour, dash(self.series(c.threads))).map_err(e)?;
            }
            for (&p, pt) in px.iter().zip(&shown) {
                root.draw(&Circle::new(p, 4, colour.filled())).map_err(e)?;
                tips.push(Tip::dot(
                    p,
                    4,
                    format!(
                        "{} {}, {} thread(s), {} per thread ({}): {:.1} GB/s, {:.2} B/cycle",
                        self.isa,
                        c.mix,
                        c.threads,
                        human_bytes(pt.bytes_per_thread),
                        pt.level,
                        pt.gb_per_s,
                        pt.per_cycle
                    ),
                ));
            }
        }
        Ok(tips)
    }

    /// Each roof as a bar over the sizes it came from.
    fn draw_roofs<DB: DrawingBackend>(
        &self,
        chart: &Plot<'_, DB>,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<Vec<Tip>, String>
    where
        DB::ErrorType: 'static,
    {
        let mut tips = Vec::new();
        for r in self.roofs() {
            let (Some(mix), Some(level)) = (r.mix, r.level) else {
                continue;
            };
            if !self.threads.contains(&r.threads) {
                continue;
            }
            let span = r.plateau.or_else(|| {
                let s = r.sizes.iter().map(|s| s.bytes_per_thread);
                Some([s.clone().min()?, s.max()?])
            });
            let Some([a, b]) = span else { continue };
            let p0 = chart.backend_coord(&(a as f64 / 1.08, r.value()));
            let p1 = chart.backend_coord(&(b as f64 * 1.08, r.value()));
            let style = mix_colour(mix).stroke_width(6);
            root.draw(&PathElement::new(vec![p0, p1], style))
                .map_err(e)?;
            tips.push(Tip::line(
                p0,
                p1,
                format!(
                    "{level} {mix} roof, {} thread(s): {:.1} GB/s, {:.2} B/cycle, from {} to {} per thread",
                    r.threads,
                    r.value(),
                    r.per_cycle,
                    human_bytes(a),
                    human_bytes(b)
                ),
            ));
            root.draw(&PathElement::new(
                vec![p0, p1],
                level_colour(level).stroke_width(2),
            ))
            .map_err(e)?;
        }
        Ok(tips)
    }

    /// The legend, in the plot's lower left: each curve, and how to read
    /// the rest.
    fn draw_legend<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        left: i32,
        bottom: i32,
    ) -> std::result::Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        // Legend: each curve, and how to read the rest.
        let mut rows: Vec<(String, RGBColor, usize)> = self
            .curves
            .iter()
            .map(|c| {
                (
                    format!("{} {}, {} thread(s)", self.isa, c.mix, c.threads),
                    mix_colour(c.mix),
                    self.series(c.threads),
                )
            })
            .collect();
        rows.push((
            "bars: each roof over the sizes it came from".into(),
            palette::BLACK,
            0,
        ));
        rows.push((
            "shaded: each level's buffer range (1 thread); dashed: cache sizes".into(),
            palette::GREY,
            1,
        ));
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0) as i32 * 10 + 80;
        let h = rows.len() as i32 * 26 + 12;
        let lb = (left + 10, bottom - 10 - h, left + 10 + w, bottom - 10);
        draw_box(root, lb).map_err(e)?;
        for (i, (text, c, s)) in rows.iter().enumerate() {
            let y = lb.1 + 19 + i as i32 * 26;
            draw_px_line(root, (lb.0 + 10, y), (lb.0 + 54, y), *c, dash(*s)).map_err(e)?;
            draw_text(
                root,
                text,
                (lb.0 + 66, y),
                palette::BLACK,
                (HPos::Left, VPos::Center),
                false,
            )
            .map_err(e)?;
        }
        Ok(())
    }
}
