//! A GPU's roofs validated (Konstantinidis's micro-benchmark): each level's load
//! walk with FMAs of one type on what it loads, at intensities from 1/16 to
//! 64 flop/B, on the buffer its roof came from; each point against
//! min(FMA roof, AI x the level's load roof), and the sweep judged as the
//! CPU's are: it holds when its median |deviation| is within the threshold.

use crate::gpu::driver::{Gpu, Missing};
use crate::gpu::kernels::{self, GpuKernel, Role};
use crate::gpu::{GpuMix, GpuOp};
use crate::measure::stats::median;
use crate::results::gpu::{GpuPoint, GpuResults, GpuRoof, GpuSweep};
use crate::results::verdict::{Cause, Verdict};
use crate::roofs::gpu::{Buffers, block_local, buffers, runs, walked};
use std::time::Instant;

/// Flops per byte of the points: 1/16 to 64, by powers of two.
pub fn intensities() -> Vec<f64> {
    (-4..=6).map(|e| 2f64.powi(e)).collect()
}

/// Validate every level and type of `r`'s GPU that has both roofs; `each`
/// is told of each sweep.
pub fn validate(
    r: &GpuResults,
    threshold: f64,
    mut each: impl FnMut(&str),
) -> Result<Vec<GpuSweep>, Missing> {
    let gpu = Gpu::open(r.device.clone())?;
    let b = buffers(&gpu)?;
    let sm = r.device.capability.sm();
    let mut out = Vec::new();
    for k in kernels::all().into_iter().filter(|k| runs(k, &sm)) {
        let Role::Validation { level, ty, .. } = k.role else {
            continue;
        };
        let bw = r
            .roofs
            .iter()
            .find(|x| x.level == Some(level) && x.mix == Some(GpuMix::Load));
        let fp = r
            .roofs
            .iter()
            .find(|x| x.op == Some(GpuOp::Fma) && x.ty == Some(ty));
        let (Some(bw), Some(fp)) = (bw, fp) else {
            continue;
        };
        match sweep(&gpu, &k, &b, bw, fp, threshold) {
            Ok(s) => {
                each(&format!(
                    "{:<7} {:<5} median |deviation| {:5.1} %  {}",
                    level.name(),
                    ty.name(),
                    s.median_deviation * 100.0,
                    s.verdict
                ));
                out.push(s);
            }
            Err(e) => each(&format!(
                "{:<7} {:<5} not validated: {e}",
                level.name(),
                ty.name()
            )),
        }
    }
    Ok(out)
}

fn sweep(
    gpu: &Gpu,
    k: &GpuKernel,
    b: &Buffers,
    bw: &GpuRoof,
    fp: &GpuRoof,
    threshold: f64,
) -> Result<GpuSweep, String> {
    let start = Instant::now();
    let Role::Validation {
        level,
        ty,
        block_local: local,
        ..
    } = k.role
    else {
        unreachable!()
    };
    let mut points = Vec::new();
    for ai in intensities() {
        let kf = k.with_fmas(k.fmas_for(ai));
        let f = gpu.compile(&kf.ptx(&gpu.info.capability.sm()), &kf.name)?;
        let m = if local {
            block_local(gpu, &kf, &f, b, level)?.0
        } else {
            walked(gpu, &kf, &f, b, vec![bw.bytes.unwrap_or(b.device_bytes)])?.0
        };
        let fastest = m.fastest().ok_or("no sample")?;
        // The intensity the kernel has: its FMAs' flops over its bytes.
        let ai = kf.ops_per_trip() / kf.bytes_per_trip();
        let gflop_per_s = m.work / fastest.seconds / 1e9;
        let expected = (ai * bw.value).min(fp.value);
        points.push(GpuPoint {
            ai,
            gflop_per_s,
            expected,
            deviation: gflop_per_s / expected - 1.0,
            clock_ghz: fastest.clock_ghz,
        });
    }
    let median_deviation = median(&points.iter().map(|p| p.deviation.abs()).collect::<Vec<_>>());
    let verdict = judge(&points, bw.value, fp.value, median_deviation, threshold);
    Ok(GpuSweep {
        level,
        ty,
        kernel: k.name.clone(),
        roofs: [bw.value, fp.value],
        points,
        median_deviation,
        verdict,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Holds within `threshold`; else the likeliest cause: points near the
/// ridge low while far ones hold (memory and FP work overlap only in
/// part), or one side's points off their roof.
pub fn judge(
    points: &[GpuPoint],
    bw: f64,
    fp: f64,
    median_deviation: f64,
    threshold: f64,
) -> Verdict {
    if median_deviation <= threshold {
        return Verdict::Holds;
    }
    let ridge = fp / bw;
    let near = |p: &&GpuPoint| p.ai > ridge / 4.0 && p.ai < ridge * 4.0;
    let dev = |ps: Vec<&GpuPoint>| median(&ps.iter().map(|p| p.deviation).collect::<Vec<_>>());
    let near_dev = dev(points.iter().filter(near).collect());
    let memory = dev(points.iter().filter(|p| !near(p) && p.ai < ridge).collect());
    let compute = dev(points.iter().filter(|p| !near(p) && p.ai > ridge).collect());
    let overlap = overlap(points.iter().filter(near), bw, fp);
    let holds = |d: f64| d.is_nan() || d.abs() <= threshold;
    match (holds(memory), holds(compute)) {
        (true, true) if near_dev < -threshold => Verdict::Fails(Cause::PartialOverlap { overlap }),
        (false, _) if memory > 0.0 => Verdict::Fails(Cause::AboveMemoryRoof),
        (false, _) => Verdict::Fails(Cause::BelowMemoryRoof { own_core: false }),
        (_, false) if compute > 0.0 => Verdict::Fails(Cause::AboveFpRoof),
        (_, false) => Verdict::Fails(Cause::BelowFpRoof { threads: 1 }),
        _ => Verdict::Fails(Cause::AtRidge { overlap }),
    }
}

/// How far memory and FP work ran side by side at these points, the
/// median: 0 one after the other (time = memory's + FP's), 1 side by side
/// (time = the longer).
fn overlap<'a>(points: impl Iterator<Item = &'a GpuPoint>, bw: f64, fp: f64) -> f64 {
    let each: Vec<f64> = points
        .map(|p| {
            let (tm, tf, t) = (1.0 / (p.ai * bw), 1.0 / fp, 1.0 / p.gflop_per_s);
            ((tm + tf - t) / tm.min(tf)).clamp(0.0, 1.0)
        })
        .collect();
    median(&each)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(bw: f64, fp: f64, shape: impl Fn(f64, f64) -> f64) -> Vec<GpuPoint> {
        intensities()
            .into_iter()
            .map(|ai| {
                let expected = (ai * bw).min(fp);
                let got = shape(ai, expected);
                GpuPoint {
                    ai,
                    gflop_per_s: got,
                    expected,
                    deviation: got / expected - 1.0,
                    clock_ghz: 1.98,
                }
            })
            .collect()
    }

    #[test]
    fn the_intensities_span_a_sixteenth_to_sixty_four() {
        let i = intensities();
        assert_eq!((i[0], i[i.len() - 1], i.len()), (0.0625, 64.0, 11));
    }

    #[test]
    fn points_on_the_roofs_hold_and_a_slow_ridge_is_partial_overlap() {
        let (bw, fp) = (3000.0, 60_000.0);
        let on = points(bw, fp, |_, e| e * 0.97);
        let m = median(&on.iter().map(|p| p.deviation.abs()).collect::<Vec<_>>());
        assert_eq!(judge(&on, bw, fp, m, 0.1), Verdict::Holds);
        // Serialized work: time = memory's + FP's, worst at the ridge (AI 20); judged as
        // a sweep whose median is past the threshold.
        let serial = points(bw, fp, |ai, _| 1.0 / (1.0 / (ai * bw) + 1.0 / fp));
        match judge(&serial, bw, fp, 0.2, 0.1) {
            Verdict::Fails(Cause::PartialOverlap { overlap }) => {
                assert!(overlap < 0.1, "{overlap}")
            }
            v => panic!("{v:?}"),
        }
        // A memory roof measured too low: memory-bound points above it.
        let above = points(bw, fp, |ai, e| if ai * bw < fp { e * 1.5 } else { e });
        let m = median(&above.iter().map(|p| p.deviation.abs()).collect::<Vec<_>>());
        assert_eq!(
            judge(&above, bw, fp, m, 0.1),
            Verdict::Fails(Cause::AboveMemoryRoof)
        );
    }
}
