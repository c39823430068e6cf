//! The fleet chart: for each roof of each group, every node's value against
//! the group's median (1 = the median), one row per roof; nodes below the
//! outlier line are labelled.

use super::canvas::{FONT, draw_px_line, draw_text, palette};
use super::tips::Tip;
use crate::error::{Error, Result};
use crate::fleet::Fleet;
use crate::fleet::analysis::{Group, RoofStats, is_low};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::path::Path;

/// Pixels per roof row.
const ROW: u32 = 24;
/// Width of the chart, and room for the rows' names on its left.
const WIDTH: u32 = 1400;
const NAMES: u32 = 380;

/// What the chart draws.
pub struct FleetChart<'a> {
    fleet: &'a Fleet,
    rows: usize,
}

impl<'a> FleetChart<'a> {
    /// The chart of `fleet`; an input error when no group has a roof.
    pub fn of(fleet: &'a Fleet) -> Result<FleetChart<'a>> {
        let rows: usize = fleet.groups.iter().map(|g| g.roofs.len()).sum();
        if rows == 0 {
            return Err(Error::input("no node has roofs to draw"));
        }
        Ok(FleetChart { fleet, rows })
    }

    fn size(&self) -> (u32, u32) {
        (WIDTH, 140 + ROW * self.rows as u32)
    }

    /// Draw into `path` (.svg or .png).
    pub fn render(&self, path: &Path) -> Result<()> {
        if super::canvas::is_svg(path) {
            return crate::files::write_atomic(path, &self.svg()?);
        }
        super::canvas::draw_to_file!(path, self.size(), |root| self.draw(&root))
    }

    /// Draw as SVG text, each node's point with its tooltip.
    pub fn svg(&self) -> Result<String> {
        super::canvas::svg_with_tips(self.size(), "the fleet chart", |root| self.draw(root))
    }

    /// The ratios to the median, widened to show every node and the
    /// lines.
    fn x_range(&self) -> (f64, f64) {
        let f = self.fleet;
        let ratios = f.groups.iter().flat_map(|g| {
            g.roofs.iter().flat_map(|r| {
                r.values
                    .iter()
                    .flatten()
                    .filter(move |_| r.median > 0.0)
                    .map(move |v| v / r.median)
            })
        });
        let (lo, hi) = ratios.fold((1.0 - 2.0 * f.threshold, 1.1_f64), |(l, h), x| {
            (l.min(x), h.max(x))
        });
        (lo - 0.05, hi + 0.05)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<Vec<Tip>, String>
    where
        DB::ErrorType: 'static,
    {
        let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
        root.fill(&WHITE).map_err(e)?;
        let f = self.fleet;
        let (x0, x1) = self.x_range();
        let n = self.rows as f64;
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Fleet: each node's roofs against its group's median",
                (FONT, 24),
            )
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(NAMES)
            .build_cartesian_2d(x0..x1, n..0.0)
            .map_err(e)?;
        super::canvas::grid(
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(0)
                .x_desc("value / group median (dashed: the median; dotted: the outlier threshold; orange: outliers, named)")
                .x_label_formatter(&|v| format!("{v:.2}")),
        )
        .draw()
        .map_err(e)?;
        let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
        let (top, bottom) = (px(1.0, 0.0).1, px(1.0, n).1);
        let (one, cut) = (px(1.0, 0.0).0, px(1.0 - f.threshold, 0.0).0);
        draw_px_line(root, (one, top), (one, bottom), palette::BLACK, &[6, 6]).map_err(e)?;
        draw_px_line(
            root,
            (cut, top),
            (cut, bottom),
            palette::VERMILLION,
            &[2, 6],
        )
        .map_err(e)?;
        let mut tips = Vec::new();
        let mut row = 0.0;
        for g in &f.groups {
            for r in &g.roofs {
                let name = match f.groups.len() > 1 {
                    true => format!("{} · {}", g.cpu, r.roof),
                    false => r.roof.clone(),
                };
                let y = row + 0.5;
                let left = px(x0, y);
                let (hp, vp) = (HPos::Right, VPos::Center);
                let at = (left.0 - 8, left.1);
                draw_text(root, &name, at, palette::BLACK, (hp, vp), false).map_err(e)?;
                let dot = |v: f64| px(v / r.median, y);
                tips.extend(self.draw_row(root, g, r, &dot)?);
                row += 1.0;
            }
        }
        Ok(tips)
    }

    /// The dots of one roof's row: each node's value, an outlier in orange
    /// and named; `dot` places a value.
    fn draw_row<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        g: &Group,
        r: &RoofStats,
        dot: &dyn Fn(f64) -> (i32, i32),
    ) -> std::result::Result<Vec<Tip>, String>
    where
        DB::ErrorType: 'static,
    {
        let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
        let mut tips = Vec::new();
        if r.median <= 0.0 {
            return Ok(tips);
        }
        for (node, v) in g.nodes.iter().zip(&r.values) {
            let Some(v) = *v else { continue };
            let p = dot(v);
            let low = g.judged && is_low(v, r.median, r.mad, self.fleet.threshold);
            let c = if low {
                palette::VERMILLION
            } else {
                palette::BLUE
            };
            root.draw(&Circle::new(p, 4, c.filled())).map_err(e)?;
            if low {
                let anchor = (HPos::Left, VPos::Center);
                draw_text(root, node, (p.0 + 8, p.1), c, anchor, true).map_err(e)?;
            }
            tips.push(Tip::dot(
                p,
                4,
                format!(
                    "{node}: {} {v:.1} {} ({:.1}% of the median {:.1})",
                    r.roof,
                    r.unit,
                    100.0 * v / r.median,
                    r.median
                ),
            ));
        }
        Ok(tips)
    }
}
