//! A GPU's CARM chart: each memory level's load roof (shared memory, L1,
//! L2, device memory) as a slope, the main compute roofs (FP64 and FP32
//! FMAs on the CUDA cores, the tensor cores' best by type) flat, the
//! validation points of FP32 at each level, and the kernels `profile
//! --gpu` counted on this GPU (black squares, named).

use super::canvas::{FONT, draw_px_line, draw_text, err as e, fmt_tick, grid, palette};
use super::geometry::{decade_ceil, decade_floor};
use crate::error::{Error, Result};
use crate::gpu::{GpuLevel, GpuMix, GpuOp, GpuType};
use crate::results::gpu::{GpuResults, GpuRoof};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::path::Path;

/// Flops per byte the chart spans.
const AI: (f64, f64) = (1.0 / 64.0, 4096.0);

/// The colour of a level's roof and points.
pub fn level_colour(l: GpuLevel) -> RGBColor {
    match l {
        GpuLevel::Shared => palette::GREEN,
        GpuLevel::L1 => palette::BLUE,
        GpuLevel::L2 => palette::ORANGE,
        GpuLevel::Hbm => palette::VERMILLION,
    }
}

/// What the chart of one GPU draws.
pub struct GpuChart<'a> {
    gpu: &'a GpuResults,
    memory: Vec<&'a GpuRoof>,
    compute: Vec<&'a GpuRoof>,
    /// Kernels ran on this GPU: name, AI over device memory, G op/s.
    pub(super) kernels: Vec<(String, f64, f64)>,
    /// Kernels that moved since an earlier profile (`plot --before`).
    pub(super) moves: Vec<super::Move>,
}

impl<'a> GpuChart<'a> {
    /// The chart of `gpu`'s roofs; an input error when it has none to draw.
    pub fn of(gpu: &'a GpuResults) -> Result<GpuChart<'a>> {
        let memory: Vec<&GpuRoof> = GpuLevel::ALL
            .iter()
            .filter_map(|l| {
                gpu.roofs
                    .iter()
                    .find(|r| r.level == Some(*l) && r.mix == Some(GpuMix::Load))
            })
            .collect();
        let compute = compute_roofs(gpu);
        if memory.is_empty() || compute.is_empty() {
            return Err(Error::input(format!(
                "GPU {} has no load or FMA roof to draw",
                gpu.device.index
            )));
        }
        Ok(GpuChart {
            gpu,
            memory,
            compute,
            kernels: Vec::new(),
            moves: Vec::new(),
        })
    }

    /// With the kernel points of `points` that ran on this GPU (by its
    /// name): how many.
    pub fn with_kernels(&mut self, points: &[crate::results::apps::AppPoint]) -> usize {
        self.kernels = (points.iter())
            .filter(|p| p.placeable())
            .filter(|p| p.kernel().is_some_and(|k| k.gpu == self.gpu.device.name))
            .map(|p| (p.name.clone(), p.ai(), p.gflop_per_s()))
            .collect();
        self.kernels.len()
    }

    /// Draw into `path` (.svg or .png).
    pub fn render(&self, path: &Path) -> Result<()> {
        super::canvas::draw_to_file!(path, |root| self.draw(&root))
    }

    /// Draw as SVG text (the HTML report's).
    pub fn svg(&self) -> Result<String> {
        super::canvas::svg_with_tips(super::canvas::SIZE, "the GPU's chart", |root| {
            self.draw(root).map(|()| Vec::new())
        })
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(e)?;
        let top = self.compute.iter().map(|r| r.value).fold(0.0, f64::max);
        let low = self
            .memory
            .iter()
            .map(|r| r.value)
            .fold(f64::INFINITY, f64::min)
            * AI.0;
        let (y0, y1) = (decade_floor(low), decade_ceil(top * 1.5));
        let d = &self.gpu.device;
        let title = format!(
            "CARM: {} (GPU {}, {} SMs, sm_{}{})",
            d.name, d.index, d.sms, d.capability.major, d.capability.minor
        );
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FONT, 24))
            .margin(24)
            .x_label_area_size(70)
            .y_label_area_size(100)
            .build_cartesian_2d((AI.0..AI.1).log_scale(), (y0..y1).log_scale())
            .map_err(e)?;
        grid(
            chart
                .configure_mesh()
                .x_desc("Arithmetic intensity (flop/byte)")
                .y_desc("Performance (GFLOP/s)")
                .x_label_formatter(&|v| fmt_tick(*v))
                .y_label_formatter(&|v| fmt_tick(*v)),
        )
        .draw()
        .map_err(e)?;
        let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
        self.draw_memory(root, &px, top)?;
        self.draw_compute(root, &px)?;
        for s in self.gpu.validation.iter().filter(|s| s.ty == GpuType::Fp32) {
            for p in &s.points {
                root.draw(&Circle::new(
                    px(p.ai, p.gflop_per_s),
                    5,
                    level_colour(s.level).filled(),
                ))
                .map_err(e)?;
            }
        }
        for m in &self.moves {
            let (from, to) = (px(m.from.0, m.from.1), px(m.to.0, m.to.1));
            draw_px_line(root, from, to, palette::MOVE, &[]).map_err(e)?;
            for end in super::moves::head(from, to) {
                draw_px_line(root, to, end, palette::MOVE, &[]).map_err(e)?;
            }
        }
        for (name, ai, rate) in &self.kernels {
            let (x, y) = px(ai.clamp(AI.0, AI.1), *rate);
            let square = Rectangle::new([(x - 5, y - 5), (x + 5, y + 5)], BLACK.filled());
            root.draw(&square).map_err(e)?;
            draw_text(
                root,
                name,
                (x + 8, y - 4),
                BLACK,
                (HPos::Left, VPos::Bottom),
                true,
            )
            .map_err(e)?;
        }
        Ok(())
    }

    /// Each level's load roof, from the chart's left edge to the top roof.
    fn draw_memory<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        px: &impl Fn(f64, f64) -> (i32, i32),
        top: f64,
    ) -> std::result::Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        for (i, r) in self.memory.iter().enumerate() {
            let level = r.level.expect("memory roofs have a level");
            let ridge = (top / r.value).min(AI.1);
            let (a, b) = (px(AI.0, r.value * AI.0), px(ridge, top));
            draw_px_line(root, a, b, level_colour(level), &[]).map_err(e)?;
            let at = px(AI.0 * 1.6, r.value * AI.0 * 1.6);
            let text = format!("{} {:.0} GB/s", level.name(), r.value);
            let place = (at.0 + 6, at.1 - 8 - 18 * (i as i32 % 2));
            draw_text(
                root,
                &text,
                place,
                level_colour(level),
                (HPos::Left, VPos::Bottom),
                true,
            )
            .map_err(e)?;
        }
        Ok(())
    }

    /// Each compute roof from its first ridge to the right edge. Labels sit at
    /// the end of their roof; one too near another goes lower until it is apart.
    fn draw_compute<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        px: &impl Fn(f64, f64) -> (i32, i32),
    ) -> std::result::Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        let mut taken: Vec<i32> = Vec::new();
        for r in &self.compute {
            let ridge = self
                .memory
                .iter()
                .map(|m| r.value / m.value)
                .fold(AI.1, f64::min)
                .max(AI.0);
            let (a, b) = (px(ridge, r.value), px(AI.1, r.value));
            draw_px_line(root, a, b, palette::PURPLE, &[10, 6]).map_err(e)?;
            let text = format!(
                "{} {:.1} T{}",
                title_of(r),
                r.value / 1000.0,
                r.unit().trim_start_matches('G')
            );
            let mut y = b.1 - 6;
            while taken.iter().any(|t| (t - y).abs() < 20) {
                y += 22;
            }
            taken.push(y);
            draw_text(
                root,
                &text,
                (b.0 - 6, y),
                palette::PURPLE,
                (HPos::Right, VPos::Bottom),
                true,
            )
            .map_err(e)?;
        }
        Ok(())
    }
}

/// The compute roofs drawn: FMAs of FP64 and FP32 on the CUDA cores, then
/// each tensor type's fastest (wgmma or mma.sync), highest first.
fn compute_roofs(gpu: &GpuResults) -> Vec<&GpuRoof> {
    let mut v: Vec<&GpuRoof> = [GpuType::Fp64, GpuType::Fp32]
        .iter()
        .filter_map(|t| {
            gpu.roofs
                .iter()
                .find(|r| r.op == Some(GpuOp::Fma) && r.ty == Some(*t))
        })
        .collect();
    for t in [GpuType::Fp64, GpuType::Tf32, GpuType::Bf16, GpuType::Fp8] {
        v.extend(gpu.fastest(|r| crate::results::gpu::is_tensor(r, t)));
    }
    v.sort_by(|a, b| b.value.total_cmp(&a.value));
    v
}

/// "FP32 FMA", "BF16 tensor (wgmma)".
fn title_of(r: &GpuRoof) -> String {
    let ty = r.ty.map_or("?", GpuType::name).to_uppercase();
    match r.op {
        Some(o) if o.is_tensor() => format!("{ty} tensor ({o})"),
        Some(o) => format!("{ty} {}", o.name().to_uppercase()),
        None => ty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> crate::results::Document {
        crate::results::parse(
            include_str!("../../tests/fixtures/gpu/h100.yaml"),
            "the H100 fixture",
        )
        .unwrap()
    }

    #[test]
    fn the_h100s_chart_has_four_levels_and_the_tensor_cores_on_top() {
        let doc = h100();
        let c = GpuChart::of(&doc.gpus[0]).unwrap();
        let levels: Vec<_> = c.memory.iter().filter_map(|r| r.level).collect();
        assert_eq!(levels, GpuLevel::ALL);
        assert_eq!(title_of(c.compute[0]), "FP8 tensor (wgmma)");
        assert!(c.compute.iter().any(|r| title_of(r) == "FP64 FMA"));
        let dir = std::env::temp_dir().join(format!("carmbench-gpu-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg = dir.join("gpu.svg");
        c.render(&svg).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(
            text.contains("NVIDIA H100 80GB HBM3")
                && text.contains("HBM ")
                && text.contains("FP32 FMA")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn kernels_that_ran_on_this_gpu_are_drawn_and_named() {
        let doc = h100();
        let text = include_str!("../../tests/fixtures/ncu/intensity.csv");
        let mut pts = crate::profile::gpu::points(text, "intensity", Some(&doc))
            .unwrap()
            .points;
        let mut c = GpuChart::of(&doc.gpus[0]).unwrap();
        assert_eq!(c.with_kernels(&pts), 4);
        let svg = c.svg().unwrap();
        assert!(svg.contains("intensity&lt;64&gt;") || svg.contains("intensity<64>"));
        // Another GPU's kernels are not this one's.
        for p in &mut pts {
            if let crate::results::apps::Of::Kernel(k) = &mut p.of {
                k.gpu = "NVIDIA A100-SXM4-80GB".into();
            }
        }
        assert_eq!(c.with_kernels(&pts), 0);
    }

    #[test]
    fn a_gpu_without_roofs_is_said_so() {
        let mut doc = h100();
        doc.gpus[0].roofs.retain(|r| r.level.is_none());
        let e = GpuChart::of(&doc.gpus[0]).err().unwrap().to_string();
        assert!(e.contains("GPU 0 has no load or FMA roof"), "{e}");
    }
}
