//! The charts: the CARM chart ([`carm`]) of the roofs [`mod@select`] picks,
//! the memory curve ([`curve`]), the quadrant split ([`quadrant`])
//! and the fleet ([`fleet`]), all drawn with one [`canvas`].

pub mod canvas;
pub mod carm;
pub mod curve;
pub mod discs;
pub mod fleet;
pub mod font;
pub mod geometry;
pub mod gpu;
pub mod labels;
pub mod legend;
pub mod levels;
pub mod limits;
pub mod moves;
pub mod names;
pub mod phases;
pub mod quadrant;
pub mod select;
pub mod series;
pub mod tips;

pub use canvas::{SIZE, level_colour};
pub use carm::{render, svg};
pub use select::{Filter, Move, Selection, Series, select};

use crate::results::Document;
use std::path::Path;

/// The applications' paths on `sel`: each program's through its phases,
/// and the arrows up to the roofs that limit them under `doc`'s.
pub fn with_paths(sel: &mut Selection, doc: &Document) {
    sel.trajectory = phases::trajectory(&sel.apps);
    sel.limits = limits::of(doc, &sel.apps, &sel.threads);
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
            for name in crate::files::names::CHARTS {
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
        for name in crate::files::names::CURVES {
            let p = dir.join(name);
            match c.render(&p) {
                Ok(()) => written.push(p),
                Err(e) => failed.push(format!("{name} not written: {e}")),
            }
        }
    }
    // Each GPU's chart.
    for g in &doc.gpus {
        match gpu::GpuChart::of(g) {
            Ok(c) => {
                for ext in ["svg", "png"] {
                    let p = dir.join(crate::files::names::gpu_chart(g.device.index, ext));
                    match c.render(&p) {
                        Ok(()) => written.push(p),
                        Err(e) => failed.push(format!("{} not written: {e}", p.display())),
                    }
                }
            }
            Err(e) => failed.push(format!("no chart of GPU {}: {e}", g.device.index)),
        }
    }
    (written, failed)
}

/// The charts of a results file of GPU roofs alone: its first GPU's into
/// `out`, each other's beside it (`OUT-gpuN.EXT`), each with the kernels
/// of `apps` that ran on it; the files written.
pub fn gpus_alone(
    doc: &crate::results::Document,
    apps: &[crate::results::apps::AppPoint],
    out: &Path,
) -> crate::error::Result<Vec<std::path::PathBuf>> {
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    let ext = out.extension().unwrap_or_default().to_string_lossy();
    let mut written = Vec::new();
    for (i, g) in doc.gpus.iter().enumerate() {
        let mut c = gpu::GpuChart::of(g)?;
        c.with_kernels(apps);
        let p = match i {
            0 => out.to_path_buf(),
            _ => out.with_file_name(format!("{stem}-gpu{}.{ext}", g.device.index)),
        };
        c.render(&p)?;
        written.push(p);
    }
    Ok(written)
}

/// A line for the GPU kernels of `apps` that no GPU of `doc` is drawn
/// with: they stay off every chart, and are said.
pub fn kernels_not_drawn(
    doc: &crate::results::Document,
    apps: &[crate::results::apps::AppPoint],
) -> Option<String> {
    let missed: Vec<&str> = (apps.iter())
        .filter(|p| p.placeable())
        .filter_map(|p| Some((p, p.kernel()?)))
        .filter(|(_, k)| !doc.gpus.iter().any(|g| g.device.name == k.gpu))
        .map(|(p, _)| p.name.as_str())
        .collect();
    let first = missed.first()?;
    let gpus: Vec<&str> = doc.gpus.iter().map(|g| g.device.name.as_str()).collect();
    Some(format!(
        "{} GPU kernel point(s) ({first}{}) are not drawn: {}; measure that GPU with `carmbench run --gpu` on its machine",
        missed.len(),
        if missed.len() > 1 { ", ..." } else { "" },
        match gpus.is_empty() {
            true => "these results hold no GPU roofs".to_string(),
            false => format!("these results hold the roofs of {} only", gpus.join(", ")),
        }
    ))
}

/// Beside the chart `out`, each GPU of `doc` on which kernels of `apps` ran
/// (`profile --gpu`), drawn with them and the arrows of those that moved:
/// `OUT-gpuN.EXT`, the files written.
pub fn gpu_charts_with(
    doc: &crate::results::Document,
    apps: &[crate::results::apps::AppPoint],
    moved: &[Move],
    out: &Path,
) -> crate::error::Result<Vec<std::path::PathBuf>> {
    let mut written = Vec::new();
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    let ext = out.extension().unwrap_or_default().to_string_lossy();
    for g in &doc.gpus {
        let mut c = gpu::GpuChart::of(g)?;
        if c.with_kernels(apps) == 0 {
            continue;
        }
        c.moves = (moved.iter())
            .filter(|m| c.kernels.iter().any(|k| k.0 == m.name))
            .cloned()
            .collect();
        let p = out.with_file_name(format!("{stem}-gpu{}.{ext}", g.device.index));
        c.render(&p)?;
        written.push(p);
    }
    Ok(written)
}
