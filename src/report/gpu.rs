//! A GPU's part of the report: its chart, its roofs against their limits
//! and its validation sweeps.

use crate::chart::gpu::GpuChart;
use crate::results::Document;
use crate::results::apps::AppPoint;
use crate::results::gpu::GpuResults;
use maud::{Markup, html};

/// The section of one GPU.
pub fn section(g: &GpuResults) -> Markup {
    let d = &g.device;
    let pct = |p: Option<f64>| p.map_or("-".to_string(), |p| format!("{p:.1} %"));
    html! {
        p {
            (d.name) ", sm_" (d.capability.major) (d.capability.minor) ", " (d.sms) " SMs, L2 "
            (d.l2_bytes >> 20) " MiB, memory " (format!("{:.0}", d.spec_gb_per_s())) " GB/s by its specification"
        }
        (super::figure(
            GpuChart::of(g).and_then(|c| c.svg()),
            "Each level's load roof, the FP64 and FP32 FMA roofs and each tensor type's best; the dots are the FP32 validation points.",
        ))
        div.scroll {
            table.roofs {
                thead { tr {
                    th { "Roof" } th { "Value" } th { "Unit" } th { "Per SM and clock" } th { "Limit" }
                    th { "Of the limit" } th { "Clock (GHz)" } th { "Kernel" }
                } }
                tbody {
                    @for r in &g.roofs {
                        tr title=[r.note.as_deref()] {
                            td { (r.label()) } td { (format!("{:.1}", r.value)) } td { (r.unit()) }
                            td { (format!("{:.1}", r.per_sm_cycle)) }
                            td { (r.limit_per_sm_cycle.map_or("-".to_string(), |l| format!("{l:.1}"))) }
                            td { (pct(r.percent_of_limit)) } td { (format!("{:.3}", r.clock_ghz)) } td { (r.kernel) }
                        }
                    }
                }
            }
        }
        @if let Some(m) = g.memcpy_gb_per_s {
            p { "The driver's device-to-device copy: " (format!("{m:.1}")) " GB/s (read and write counted)." }
        }
        @if !g.validation.is_empty() {
            table.validation {
                thead { tr { th { "Level" } th { "Type" } th { "Median |deviation|" } th { "Verdict" } } }
                tbody {
                    @for v in &g.validation {
                        tr {
                            td { (v.level.name()) } td { (v.ty.name()) }
                            td { (format!("{:.1} %", v.median_deviation * 100.0)) } td { (v.verdict.to_string()) }
                        }
                    }
                }
            }
        }
    }
}

/// The section of the GPU kernels of `apps` (`profile --gpu`): each GPU of
/// `doc` they ran on drawn with them, and a row per kernel with Konstantinidis's time and bound
/// on that GPU; `None` without kernels.
pub fn kernels(doc: &Document, apps: &[AppPoint]) -> Option<Markup> {
    let rows: Vec<&AppPoint> = apps.iter().filter(|a| a.kernel().is_some()).collect();
    if rows.is_empty() {
        return None;
    }
    let seed = |a: &AppPoint| {
        let r = crate::results::gpu::predicted_there(doc, a.kernel()?)?.ok()?;
        Some(format!("{:.3} ms, {} bound", r.seconds * 1e3, r.bound))
    };
    Some(html! { section.apps {
        h2 { "GPU kernels" }
        @for g in &doc.gpus {
            @if let Ok(mut c) = GpuChart::of(g) {
                @if c.with_kernels(apps) > 0 {
                    (super::figure(c.svg(), "The kernels (black squares) on the roofs of the GPU they ran on: AI over device memory."))
                }
            }
        }
        div.scroll { table.apps {
            thead { tr {
                th { "Kernel" } th { "GPU" } th { "Launches" } th { "Share" } th { "Type" }
                th { "AI (op/B)" } th { "G op/s" } th { "T (ms)" } th { "Konstantinidis there" }
            } }
            tbody {
                @for a in &rows {
                    @if let Some(k) = a.kernel() {
                        tr title=[k.kernel.as_deref()] {
                            td { (a.name) } td { (k.gpu) } td { (k.launches) }
                            td { (format!("{:.1} %", k.share * 100.0)) } td { (k.model.ty.name()) }
                            td { (format!("{:.3}", a.ai())) } td { (format!("{:.1}", a.gflop_per_s())) }
                            td { (format!("{:.3}", a.seconds * 1e3)) }
                            td { (seed(a).unwrap_or_else(|| "-".into())) }
                        }
                    }
                }
            }
        } }
    } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_h100s_section_holds_its_chart_roofs_and_validation() {
        let doc = crate::results::parse(
            include_str!("../../tests/fixtures/gpu/h100.yaml"),
            "the H100 fixture",
        )
        .unwrap();
        let html = section(&doc.gpus[0]).into_string();
        assert!(
            html.contains("<svg") && html.contains("wgmma bf16") && html.contains("wgmma_bf16"),
            "{html}"
        );
        assert!(html.contains("Median |deviation|") && html.contains("shared"));
    }
}
