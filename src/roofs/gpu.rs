//! A GPU's roofs: each kernel of `asm/ptx/` the device runs, on buffers
//! sized from the device (device memory: 8 x the L2 and at least 1 GiB;
//! the L2: three fractions of it, the fastest kept; L1 and shared memory:
//! 2 trips' worth a block), then its limit from `configs/limits.yaml` at
//! the clock measured while it ran.

use crate::config::limits::{self, GpuLimits};
use crate::gpu::bench::{self, Samples, Setup};
use crate::gpu::driver::{Buffer, Function, Gpu, Missing};
use crate::gpu::kernels::{self, GpuKernel, MEMORY_BLOCK, Role};
use crate::gpu::{GpuInfo, GpuLevel, GpuOp, GpuType};
use crate::measure::stats::summarize;
use crate::results::gpu::{GpuResults, GpuRoof, GpuSize, GpuVariant};
use std::time::Instant;

/// Threads a compute kernel's block.
const COMPUTE_BLOCK: u32 = 256;
/// The L2's buffers, as fractions of its size.
const L2_FRACTIONS: [f64; 4] = [0.3, 0.5, 0.7, 0.8];
/// Device memory's buffer: at least this, and 8 x the L2.
const MIN_DEVICE_BYTES: u64 = 1 << 30;
/// Bytes past a buffer's walked size (more than a block's span a trip).
const SLACK: u64 = 1 << 20;

/// Measure every roof of `info`'s device; `each` is told of every roof as
/// it is done (a line for the user).
pub fn measure(info: GpuInfo, mut each: impl FnMut(&str)) -> Result<GpuResults, Missing> {
    let start = Instant::now();
    let gpu = Gpu::open(info.clone())?;
    let sm = info.capability.sm();
    let limits = limits::gpu(&info.capability.to_string());
    let bufs = buffers(&gpu)?;
    let mut out = GpuResults {
        device: info.clone(),
        roofs: Vec::new(),
        memcpy_gb_per_s: None,
        failed: Vec::new(),
        seconds: 0.0,
        validation: Vec::new(),
    };
    let runnable: Vec<GpuKernel> = kernels::all()
        .into_iter()
        .filter(|k| runs(k, &sm) && !matches!(k.role, Role::Validation { .. }))
        .collect();
    for group in variants(runnable) {
        let mut done: Vec<GpuRoof> = Vec::new();
        for k in &group {
            match roof_of(&gpu, k, &bufs, limits.as_ref()) {
                Ok(r) => done.push(r),
                Err(e) => {
                    each(&format!("{:<14} not measured: {e}", k.name));
                    out.failed.push(format!("{}: {e}", k.name));
                }
            }
        }
        if let Some(r) = fastest(done) {
            each(&format!(
                "{:<14} {:>10.1} {:<7} {}",
                r.label(),
                r.value,
                r.unit(),
                percent(&r)
            ));
            out.roofs.push(r);
        }
    }
    out.memcpy_gb_per_s = memcpy_rate(&gpu, &bufs.src, &bufs.dst, bufs.device_bytes).ok();
    out.seconds = start.elapsed().as_secs_f64();
    Ok(out)
}

/// The kernels in groups of one roof each: a level and access, or an
/// instruction and type; the variants of a group in their declared order.
fn variants(all: Vec<GpuKernel>) -> Vec<Vec<GpuKernel>> {
    let key = |k: &GpuKernel| match k.role {
        Role::Memory { level, mix, .. } => format!("{level} {mix}"),
        Role::Compute { op, ty, .. } => format!("{op} {ty}"),
        Role::Validation { .. } => k.name.clone(),
    };
    let mut groups: Vec<(String, Vec<GpuKernel>)> = Vec::new();
    for k in all {
        match groups.iter_mut().find(|(g, _)| *g == key(&k)) {
            Some((_, v)) => v.push(k),
            None => groups.push((key(&k), vec![k])),
        }
    }
    groups.into_iter().map(|(_, v)| v).collect()
}

/// The fastest of a group's roofs, the others' rates beside it.
fn fastest(mut done: Vec<GpuRoof>) -> Option<GpuRoof> {
    let best = (0..done.len()).max_by(|&a, &b| done[a].value.total_cmp(&done[b].value))?;
    let mut roof = done.swap_remove(best);
    roof.variants = done
        .into_iter()
        .map(|r| GpuVariant {
            kernel: r.kernel,
            value: r.value,
        })
        .collect();
    Some(roof)
}

fn percent(r: &GpuRoof) -> String {
    r.percent_of_limit.map_or(String::new(), |p| {
        format!("{p:5.1} % of the limit at {:.3} GHz", r.clock_ghz)
    })
}

/// Whether the device runs `k`: its capability at least the kernel's, and
/// exactly it for architecture-specific (`sm_90a`) kernels.
pub(crate) fn runs(k: &GpuKernel, sm: &str) -> bool {
    if k.target.ends_with('a') {
        k.target.trim_end_matches('a') == sm
    } else {
        k.runs_on(sm)
    }
}

/// The buffers every kernel of a GPU runs on.
pub(crate) struct Buffers {
    /// What is read (device memory's size, and slack).
    pub src: Buffer,
    /// Where stores and kept results go.
    pub dst: Buffer,
    /// Each block's clock and time.
    pub stamps: Buffer,
    /// The bytes device memory's kernels walk: 8 x the L2, at least 1 GiB.
    pub device_bytes: u64,
}

/// Allocate the buffers of `gpu`'s kernels.
pub(crate) fn buffers(gpu: &Gpu) -> Result<Buffers, Missing> {
    let info = &gpu.info;
    let device_bytes = (info.l2_bytes * 8)
        .max(MIN_DEVICE_BYTES)
        .min(info.memory_bytes / 4);
    let buf = |n: u64| {
        gpu.alloc(n as usize).map_err(|e| {
            Missing(format!(
                "GPU {}: no memory for the buffers: {e}",
                info.index
            ))
        })
    };
    // Slack past the walked bytes: a thread's last vectors of a trip may pass the end.
    Ok(Buffers {
        src: buf(device_bytes + SLACK)?,
        dst: buf(device_bytes + SLACK)?,
        stamps: buf(u64::from(info.sms) * 64 * 32)?,
        device_bytes,
    })
}

fn roof_of(
    gpu: &Gpu,
    k: &GpuKernel,
    b: &Buffers,
    limits: Option<&GpuLimits>,
) -> Result<GpuRoof, String> {
    let f = gpu.compile(&k.ptx(&gpu.info.capability.sm()), &k.name)?;
    let (samples, bytes, sizes) = match k.role {
        Role::Compute { .. } => {
            let per_sm = gpu.blocks_per_sm(&f, COMPUTE_BLOCK, 0)?;
            let s = Setup {
                grid: gpu.info.sms * per_sm,
                block: COMPUTE_BLOCK,
                shared: 0,
                src: None,
                dst: &b.dst,
                size: 0,
                stamps: &b.stamps,
            };
            (bench::measure(gpu, k, &f, &s)?, None, Vec::new())
        }
        Role::Memory {
            level,
            block_local: true,
            ..
        } => {
            let (m, size) = block_local(gpu, k, &f, b, level)?;
            (m, Some(size), Vec::new())
        }
        Role::Memory { level, .. } => {
            let wanted = match level {
                GpuLevel::L2 => L2_FRACTIONS
                    .iter()
                    .map(|x| (gpu.info.l2_bytes as f64 * x) as u64)
                    .collect(),
                _ => vec![b.device_bytes],
            };
            let (m, size, sizes) = walked(gpu, k, &f, b, wanted)?;
            (m, Some(size), sizes)
        }
        Role::Validation { .. } => return Err("a validation kernel measures no roof".into()),
    };
    Ok(assemble(k, &gpu.info, &samples, bytes, sizes, limits))
}

/// L1 and shared memory: every block walks the same 2 trips' worth.
pub(crate) fn block_local(
    gpu: &Gpu,
    k: &GpuKernel,
    f: &Function,
    b: &Buffers,
    level: GpuLevel,
) -> Result<(Samples, u64), String> {
    let size = 2 * k.block_span();
    let shared = if level == GpuLevel::Shared {
        size as u32
    } else {
        0
    };
    if shared > 48 << 10 {
        gpu.allow_shared(f, shared)?;
    }
    let per_sm = gpu.blocks_per_sm(f, MEMORY_BLOCK, shared)?;
    let s = Setup {
        grid: gpu.info.sms * per_sm,
        block: MEMORY_BLOCK,
        shared,
        src: Some(&b.src),
        dst: &b.dst,
        size,
        stamps: &b.stamps,
    };
    Ok((bench::measure(gpu, k, f, &s)?, size))
}

/// Device memory and the L2: the grid walks a buffer together, of each
/// size `wanted`; the fastest size kept.
pub(crate) fn walked(
    gpu: &Gpu,
    k: &GpuKernel,
    f: &Function,
    b: &Buffers,
    wanted: Vec<u64>,
) -> Result<(Samples, u64, Vec<GpuSize>), String> {
    let occupancy = gpu.blocks_per_sm(f, MEMORY_BLOCK, 0)?;
    let mut best: Option<(Samples, u64, f64)> = None;
    let mut sizes = Vec::new();
    for want in wanted {
        let mut at_size: Option<(Samples, f64)> = None;
        // Fewer blocks than fit can move more: the L2 serves fewer requests in
        // flight better (docs/evidence.md, "GPU roofs").
        for per_sm in grid_shapes(occupancy) {
            let Some(s) = walk_setup(gpu, k, b, want, per_sm) else {
                continue;
            };
            let m = bench::measure(gpu, k, f, &s)?;
            let rate = m.rates().into_iter().fold(0.0, f64::max);
            if at_size.as_ref().is_none_or(|(_, r)| *r < rate) {
                at_size = Some((m, rate));
            }
        }
        let Some((m, rate)) = at_size else { continue };
        let size = want / k.block_span() * k.block_span();
        sizes.push(GpuSize {
            bytes: size,
            gb_per_s: rate / 1e9,
        });
        if best.as_ref().is_none_or(|(_, _, r)| *r < rate) {
            best = Some((m, size, rate));
        }
    }
    let (m, size, _) = best.ok_or("no buffer size fits the device's memory")?;
    Ok((m, size, if sizes.len() > 1 { sizes } else { Vec::new() }))
}

/// The blocks an SM runs that a walk is tried with: as many as fit, half
/// and a quarter of them.
pub fn grid_shapes(occupancy: u32) -> Vec<u32> {
    let mut v: Vec<u32> = [occupancy, occupancy.div_ceil(2), occupancy.div_ceil(4)].to_vec();
    v.dedup();
    v
}

/// A walk of `want` bytes with `per_sm` blocks an SM, or None where the
/// grid's span of a trip does not fit it. The walk wraps within the size; a
/// thread's last vectors may pass its end by less than a block's span,
/// inside the allocation's slack.
fn walk_setup<'a>(
    gpu: &Gpu,
    k: &GpuKernel,
    b: &'a Buffers,
    want: u64,
    per_sm: u32,
) -> Option<Setup<'a>> {
    let (sms, span) = (gpu.info.sms, k.block_span());
    let size = want / span * span;
    let fits = size <= b.device_bytes && size >= u64::from(sms * per_sm) * span;
    fits.then(|| Setup {
        grid: sms * per_sm,
        block: MEMORY_BLOCK,
        shared: 0,
        src: Some(&b.src),
        dst: &b.dst,
        size,
        stamps: &b.stamps,
    })
}

/// A roof from a kernel's samples: the fastest, its clock, its limit.
fn assemble(
    k: &GpuKernel,
    info: &GpuInfo,
    s: &Samples,
    bytes: Option<u64>,
    sizes: Vec<GpuSize>,
    limits: Option<&GpuLimits>,
) -> GpuRoof {
    let rates: Vec<f64> = s.rates().iter().map(|r| r / 1e9).collect();
    let sum = summarize(&rates);
    let fastest = s.fastest().expect("samples were taken");
    let value = s.work / fastest.seconds / 1e9;
    let per_sm_cycle = value / (f64::from(info.sms) * fastest.clock_ghz);
    let (level, mix, op, ty) = match k.role {
        Role::Memory { level, mix, .. } => (Some(level), Some(mix), None, None),
        Role::Compute { op, ty, .. } => (None, None, Some(op), Some(ty)),
        Role::Validation { .. } => (None, None, None, None),
    };
    let limit = match (level, op, ty) {
        (Some(GpuLevel::Hbm), _, _) => {
            Some(info.spec_gb_per_s() / (f64::from(info.sms) * fastest.clock_ghz))
        }
        (Some(GpuLevel::L2), _, _) => None,
        (Some(_), _, _) => limits.map(|l| l.shared_bytes),
        (None, Some(op), Some(ty)) => limits.and_then(|l| compute_limit(l, op, ty)),
        _ => None,
    };
    GpuRoof {
        kernel: k.name.clone(),
        level,
        mix,
        op,
        ty,
        value,
        median: sum.median,
        cv: sum.cv,
        samples: sum.n,
        clock_ghz: fastest.clock_ghz,
        per_sm_cycle,
        limit_per_sm_cycle: limit,
        percent_of_limit: limit.map(|l| per_sm_cycle / l * 100.0),
        bytes,
        sizes,
        variants: Vec::new(),
        note: match (op, ty) {
            (Some(o), Some(t)) => limits.and_then(|l| l.notes.get(&format!("{o}_{t}")).cloned()),
            _ => None,
        },
        grid: s.grid,
    }
}

/// Operations an SM does per clock of `op` on `ty`, by the documents.
pub fn compute_limit(l: &GpuLimits, op: GpuOp, ty: GpuType) -> Option<f64> {
    let per_lane = if matches!(op, GpuOp::Fma | GpuOp::Mad) {
        2.0
    } else {
        1.0
    };
    match (op, ty) {
        (GpuOp::Mma | GpuOp::Wgmma, t) => l.tensor_ops.get(t.name()).copied(),
        (op, GpuType::Int32) => l.int32.get(op.name()).map(|lanes| lanes * per_lane),
        (_, t) => l.lanes.get(t.name()).map(|lanes| lanes * per_lane),
    }
}

/// The driver's device-to-device copy, GB/s with its read and write
/// counted: the fastest of [`bench::SAMPLES`].
fn memcpy_rate(gpu: &Gpu, src: &Buffer, dst: &Buffer, bytes: u64) -> Result<f64, String> {
    gpu.time_copy(dst, src, bytes as usize)?;
    let mut best = f64::INFINITY;
    for _ in 0..bench::SAMPLES {
        best = best.min(gpu.time_copy(dst, src, bytes as usize)?);
    }
    Ok(2.0 * bytes as f64 / best / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_are_tried_with_all_half_and_a_quarter_of_the_blocks_that_fit() {
        assert_eq!(grid_shapes(8), vec![8, 4, 2]);
        assert_eq!(grid_shapes(1), vec![1]);
        assert_eq!(grid_shapes(3), vec![3, 2, 1]);
    }

    #[test]
    fn the_h100s_limits_are_its_documented_lanes() {
        let l = limits::gpu("9.0").expect("Hopper is in configs/limits.yaml");
        assert_eq!(compute_limit(&l, GpuOp::Fma, GpuType::Fp32), Some(256.0));
        assert_eq!(compute_limit(&l, GpuOp::Fma, GpuType::Fp64), Some(128.0));
        assert_eq!(compute_limit(&l, GpuOp::Add, GpuType::Int32), Some(128.0));
        assert_eq!(compute_limit(&l, GpuOp::Mad, GpuType::Int32), Some(128.0));
        assert_eq!(compute_limit(&l, GpuOp::Fma, GpuType::Bf16), Some(512.0));
        assert_eq!(compute_limit(&l, GpuOp::Wgmma, GpuType::Bf16), Some(4096.0));
        // 132 SMs x 128 lanes x 2 x 1.98 GHz: the FP32 peak the issue states, 66.9 TFLOP/s.
        assert!((132.0_f64 * 256.0 * 1.98 - 66_908.16).abs() < 0.01);
        assert!(limits::gpu("1.0").is_none());
    }

    #[test]
    fn a_roof_is_its_fastest_sample_against_the_limit_at_its_clock() {
        use crate::gpu::bench::Sample;
        let info = GpuInfo::h100();
        let k = kernels::named("fma_sp").unwrap();
        // 65 TFLOP/s at 1.98 GHz in the fastest sample, slower ones beside it.
        let s = Samples {
            samples: vec![
                Sample {
                    seconds: 0.0101,
                    clock_ghz: 1.9,
                },
                Sample {
                    seconds: 0.01,
                    clock_ghz: 1.98,
                },
            ],
            work: 650e9,
            grid: [1056, 256],
        };
        let l = limits::gpu("9.0");
        let r = assemble(&k, &info, &s, None, Vec::new(), l.as_ref());
        assert!((r.value - 65_000.0).abs() < 1e-6);
        assert_eq!(r.clock_ghz, 1.98);
        assert!((r.percent_of_limit.unwrap() - 65_000.0 / 66_908.16 * 100.0).abs() < 1e-9);
        let hbm = kernels::named("hbm_load").unwrap();
        let s = Samples { work: 31.2e9, ..s };
        let r = assemble(&hbm, &info, &s, Some(1 << 30), Vec::new(), l.as_ref());
        // 3120 GB/s of the 3352.3 the bus and clock give: 93.07 %, whatever the SM clock.
        assert!((r.percent_of_limit.unwrap() - 3120.0 / info.spec_gb_per_s() * 100.0).abs() < 1e-9);
        assert_eq!(r.unit(), "GB/s");
    }
}
