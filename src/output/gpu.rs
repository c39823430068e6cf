//! The GPUs' roofs as `run` prints them: one table per GPU, each roof with
//! its rate per SM per clock, its limit and the % of it, at the clock
//! measured while it ran.

use crate::results::gpu::GpuResults;
use std::fmt::Write as _;

/// The tables of every GPU measured.
pub fn tables(gpus: &[GpuResults]) -> String {
    let mut out = String::new();
    for g in gpus {
        let d = &g.device;
        let _ = writeln!(
            out,
            "\nGPU {}: {} (sm_{}{}, {} SMs, L2 {} MiB, memory {:.0} GB/s by its specification)",
            d.index,
            d.name,
            d.capability.major,
            d.capability.minor,
            d.sms,
            d.l2_bytes >> 20,
            d.spec_gb_per_s()
        );
        let _ = writeln!(
            out,
            "  {:<14} {:>11} {:<8} {:>9} {:>9} {:>7} {:>7}",
            "roof", "value", "unit", "per SM·clk", "limit", "%", "GHz"
        );
        for r in &g.roofs {
            let limit = r
                .limit_per_sm_cycle
                .map_or("-".to_string(), |l| format!("{l:.1}"));
            let pct = r.percent_of_limit.map_or("-".to_string(), |p| {
                format!("{p:.1}{}", if p > 100.0 { "!" } else { "" })
            });
            let _ = writeln!(
                out,
                "  {:<14} {:>11.1} {:<8} {:>9.1} {:>9} {:>7} {:>7.3}",
                r.label(),
                r.value,
                r.unit(),
                r.per_sm_cycle,
                limit,
                pct,
                r.clock_ghz
            );
        }
        if g.roofs
            .iter()
            .any(|r| r.percent_of_limit.is_some_and(|p| p > 100.0))
        {
            let _ = writeln!(
                out,
                "  !: above its limit, though the kernel moves what it declares (docs/evidence.md, \"GPU roofs\")"
            );
        }
        if let Some(m) = g.memcpy_gb_per_s {
            let _ = writeln!(
                out,
                "  the driver's device-to-device copy: {m:.1} GB/s (read and write counted)"
            );
        }
        validation(&mut out, g);
        for f in &g.failed {
            let _ = writeln!(out, "  not measured: {f}");
        }
        let _ = writeln!(out, "  ({} roofs in {:.1} s)", g.roofs.len(), g.seconds);
    }
    out
}

/// A GPU's validation sweeps: each level and type, its median deviation
/// and verdict, and every point's deviation by intensity.
fn validation(out: &mut String, g: &GpuResults) {
    if !g.validation.is_empty() {
        let _ = writeln!(
            out,
            "  validation: each level's loads with FMAs against min(P, AI x B), deviation by flop/B"
        );
    }
    for v in &g.validation {
        let pts: Vec<String> = v
            .points
            .iter()
            .map(|p| format!("{}:{:+.0}%", ai_text(p.ai), p.deviation * 100.0))
            .collect();
        let _ = writeln!(
            out,
            "  {:<7} {:<5} median |deviation| {:5.1} %  {}\n      {}",
            v.level.name(),
            v.ty.name(),
            v.median_deviation * 100.0,
            v.verdict,
            pts.join(" ")
        );
    }
}

/// The GPUs of several results side by side: each roof of the first GPU
/// with every GPU's value and its ratio to the first's (empty without GPUs).
pub fn compared(names: &[String], docs: &[&crate::results::Document]) -> String {
    let gpus: Vec<(String, &GpuResults)> = names
        .iter()
        .zip(docs)
        .flat_map(|(n, d)| {
            d.gpus
                .iter()
                .map(move |g| (format!("{n} GPU {}", g.device.index), g))
        })
        .collect();
    let Some((_, first)) = gpus.first() else {
        return String::new();
    };
    let mut out = String::from("\nGPUs (value, and its ratio to the first's):\n");
    for (n, g) in &gpus {
        let _ = writeln!(out, "  {n}: {} ({} SMs)", g.device.name, g.device.sms);
    }
    for r in &first.roofs {
        let cells: Vec<String> = gpus
            .iter()
            .map(
                |(_, g)| match g.roofs.iter().find(|x| x.label() == r.label()) {
                    Some(x) => format!("{:>11.1} x{:.2}", x.value, x.value / r.value),
                    None => format!("{:>17}", "-"),
                },
            )
            .collect();
        let _ = writeln!(
            out,
            "  {:<14} {:<8} {}",
            r.label(),
            r.unit(),
            cells.join(" ")
        );
    }
    out
}

/// An intensity as a user writes it: 1/16, 0.5 as 1/2, 4.
fn ai_text(ai: f64) -> String {
    if ai >= 1.0 {
        format!("{ai:.0}")
    } else {
        format!("1/{:.0}", 1.0 / ai)
    }
}

/// The kernels `profile --gpu` found: per point its launches, share of the
/// GPU time, W's type, AI over device memory and rate, and, where the
/// results hold the GPU it ran on, Konstantinidis's bound and time there against
/// the time measured.
pub fn kernels(
    points: &[crate::results::apps::AppPoint],
    doc: Option<&crate::results::Document>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:<28} {:>8} {:>6} {:>6} {:>10} {:>11} {:>8}  Konstantinidis on this GPU",
        "kernel", "launches", "share", "type", "AI (op/B)", "G op/s", "T (ms)"
    );
    for p in points {
        let Some(k) = p.kernel() else { continue };
        let there = doc.and_then(|d| crate::results::gpu::predicted_there(d, k));
        let missing = [
            (p.seconds > 0.0, "no time"),
            (p.bytes > 0.0, "no device-memory bytes"),
            (p.flops > 0.0, "no work of its type"),
        ];
        let seed = match (missing.iter().find(|m| !m.0), there) {
            (Some((_, what)), _) => format!("not placed: Nsight Compute counted {what}"),
            (None, Some(Ok(r))) => format!(
                "{} bound, {:.3} ms ({:+.0} %)",
                r.bound,
                r.seconds * 1e3,
                (r.seconds / p.seconds - 1.0) * 100.0
            ),
            (None, Some(Err(e))) => e,
            (None, None) => "no roofs of this GPU in the results".into(),
        };
        let _ = writeln!(
            out,
            "  {:<28} {:>8} {:>5.1}% {:>6} {:>10.3} {:>11.1} {:>8.3}  {seed}",
            p.name,
            k.launches,
            k.share * 100.0,
            k.model.ty,
            p.ai(),
            p.gflop_per_s(),
            p.seconds * 1e3
        );
    }
    out
}

/// Konstantinidis's prediction of each GPU kernel of `points` on `on`'s GPU (the
/// one of the same name, else its first) beside the plain roofline's, and
/// the time measured where it was profiled on that GPU (the model's own
/// error); the line that says why not, when `on` holds no GPU roofs.
pub fn predicted(
    points: &[&crate::results::apps::AppPoint],
    on: &crate::results::Document,
) -> Result<String, String> {
    use crate::gpu::model::predict;
    let mut out = String::new();
    for p in points {
        let Some(k) = p.kernel() else { continue };
        let g = (on.gpus.iter().find(|g| g.device.name == k.gpu))
            .or(on.gpus.first())
            .ok_or("the --on results hold no GPU roofs: measure them with carmbench run --gpu on that machine")?;
        let r = predict(&k.model, &g.model()?)?;
        let _ = writeln!(
            out,
            "{} ({} on {}): W = {:.4e} {} op, Q = {:.4e} B (device memory), AI = {:.3}",
            p.name,
            k.model.ty,
            k.gpu,
            p.flops,
            k.model.ty,
            p.bytes,
            p.ai()
        );
        let _ = writeln!(
            out,
            "  on {}: Konstantinidis {:.4e} s, {} bound (E_mix {:.2}, E_instr {:.2}, T'_op {:.0} G/s, B_mem {:.0} GB/s); roofline {:.4e} s, {} bound",
            g.device.name,
            r.seconds,
            r.bound,
            k.model.e_mix,
            r.e_instr,
            r.t_op_adjusted,
            r.b_mem,
            r.roofline.0,
            r.roofline.1
        );
        if g.device.name == k.gpu && p.seconds > 0.0 {
            let _ = writeln!(
                out,
                "  measured there: {:.4e} s (Konstantinidis {:+.1} %, roofline {:+.1} %)",
                p.seconds,
                (r.seconds / p.seconds - 1.0) * 100.0,
                (r.roofline.0 / p.seconds - 1.0) * 100.0
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_h100s_roofs_print_with_their_limits_and_validation() {
        let text = include_str!("../../tests/fixtures/gpu/h100.yaml");
        let doc = crate::results::parse(text, "the H100 fixture").expect("the fixture reads");
        let t = tables(&doc.gpus);
        assert!(
            t.contains("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, L2 50 MiB, memory 3352 GB/s"),
            "{t}"
        );
        let wgmma = t
            .lines()
            .find(|l| l.trim_start().starts_with("wgmma bf16"))
            .unwrap();
        assert!(wgmma.contains("4096.0"), "{wgmma}");
        assert!(t.contains("HBM     fp32  median |deviation|"), "{t}");
        assert!(t.contains("1/16:"), "{t}");
        // The fixture's device memory load passed its specification: marked, and said why.
        let hbm = t
            .lines()
            .find(|l| l.trim_start().starts_with("HBM load"))
            .unwrap();
        assert!(hbm.contains("101.8!"), "{hbm}");
        assert!(t.contains("!: above its limit"), "{t}");
        assert_eq!(ai_text(0.0625), "1/16");
        assert_eq!(ai_text(4.0), "4");
    }

    #[test]
    fn a_gpu_roof_that_is_not_a_number_is_refused_when_read() {
        let text = include_str!("../../tests/fixtures/gpu/h100.yaml");
        let bad = text.replacen("clock_ghz: 1.", "clock_ghz: -1.", 1);
        let e = crate::results::parse(&bad, "a damaged file")
            .unwrap_err()
            .to_string();
        assert!(e.contains("GPU 0 roof") && e.contains("clock_ghz"), "{e}");
    }
}
