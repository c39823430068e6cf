//! Sized regions (`carmbench_region_begin_n`) as Ofenbeck et al. draw a
//! kernel over its sizes: one line per series through its points in size
//! order, so that how its intensity and rate move as the data leaves each
//! cache reads at a glance; each point keeps its own marker and label.

use super::canvas::{Canvas, Plot, draw_px_line, err as e, palette};
use super::select::Selection;
use super::tips::Tip;
use crate::results::apps::AppPoint;
use crate::results::apps::pseudo::{PseudoWork, series_in, with_work};
use plotters::prelude::*;

/// A series: its name within its program, and its points' (n, AI,
/// GFLOP/s) in size order.
pub type Line = (String, Vec<(f64, f64, f64)>);

/// The series of `apps` of two sizes or more.
pub fn of(apps: &[AppPoint]) -> Vec<Line> {
    let mut by: Vec<Line> = Vec::new();
    for a in apps.iter().filter(|a| a.placeable()) {
        let Some(s) = &a.sized else { continue };
        // One program's series apart from another's of the same name.
        let program = a.name.split('/').next().unwrap_or_default();
        let name = format!("{program}/{}", s.series);
        let at = (s.n, a.ai(), a.gflop_per_s());
        match by.iter_mut().find(|x| x.0 == name) {
            Some(x) => x.1.push(at),
            None => by.push((name, vec![at])),
        }
    }
    by.retain(|x| x.1.len() > 1);
    for x in &mut by {
        x.1.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    by
}

/// The points of `all` the chart draws (`ranks`, `phases`: theirs too),
/// with only those of series `name` when one is asked for, then each
/// series of `work` again with its formula's work: an error naming the
/// series there are where one asked for is not.
pub fn pick(
    all: &[AppPoint],
    (ranks, phases): (bool, bool),
    (name, work): (Option<&str>, &[PseudoWork]),
) -> crate::error::Result<Vec<AppPoint>> {
    let apps = super::select::drawn_apps(all, ranks, phases);
    let apps = match name {
        Some(name) => only(apps, name)?,
        None => apps,
    };
    with_work(apps, work).map_err(crate::error::Error::input)
}

/// The points of series `name` in `apps`: an error naming the series
/// there are when it has none.
fn only(apps: Vec<AppPoint>, name: &str) -> crate::error::Result<Vec<AppPoint>> {
    let of = |a: &AppPoint| a.sized.as_ref().is_some_and(|s| s.series == name);
    let kept: Vec<AppPoint> = apps.iter().filter(|a| of(a)).cloned().collect();
    if kept.is_empty() {
        return Err(crate::error::Error::input(format!(
            "--series {name}: no sized region named {name} in the apps file (series there: {})",
            series_in(&apps)
        )));
    }
    Ok(kept)
}

/// Draw each series of `sel`'s points: a solid line from each size to the
/// next, and its tooltip naming the sizes.
pub fn draw<DB: DrawingBackend>(
    sel: &Selection,
    chart: &Plot<'_, DB>,
    c: &mut Canvas<'_, DB>,
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    for (name, points) in of(&sel.apps) {
        let px: Vec<(i32, i32)> = (points.iter())
            .map(|p| chart.backend_coord(&(p.1, p.2)))
            .collect();
        for w in px.windows(2) {
            draw_px_line(c.root, w[0], w[1], palette::MOVE, &[]).map_err(e)?;
            c.tips.push(Tip::line(w[0], w[1], tip(&name, &points)));
        }
    }
    Ok(())
}

/// A series' tooltip: its name and its sizes in order.
fn tip(name: &str, points: &[(f64, f64, f64)]) -> String {
    let sizes: Vec<String> = points.iter().map(|p| format!("{}", p.0)).collect();
    format!("{name} over its sizes, n = {}", sizes.join(", "))
}

/// The legend's key of a series at `(x, y)`: its solid line.
pub fn key<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    (x, y): (i32, i32),
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_px_line(root, (x, y), (x + 44, y), palette::MOVE, &[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::SizedRegion;

    fn sized(series: &str, n: f64, flops: f64) -> AppPoint {
        AppPoint {
            sized: Some(SizedRegion {
                series: series.into(),
                n,
                calls: 5,
            }),
            ..AppPoint::new(format!("blas/{series} n={n}"), flops, 8.0 * n, 1.0)
        }
    }

    #[test]
    fn a_series_is_its_sizes_in_order_and_one_size_is_no_line() {
        let apps = vec![
            sized("daxpy", 1e6, 2e6),
            sized("daxpy", 1e5, 2e5),
            sized("dgemv", 500.0, 5e5),
            AppPoint::new("blas", 1e9, 1e9, 1.0),
        ];
        let s = of(&apps);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].0, "blas/daxpy");
        let ns: Vec<f64> = s[0].1.iter().map(|p| p.0).collect();
        assert_eq!(ns, [1e5, 1e6]);
        assert!(tip(&s[0].0, &s[0].1).contains("n = 100000, 1000000"));
    }
}
