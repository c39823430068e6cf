//! A GPU's part of the results document: what the device is and each roof
//! measured on it, with the clock it ran at and its documented limit.

use crate::gpu::model::Device;
use crate::gpu::{GpuInfo, GpuLevel, GpuMix, GpuOp, GpuType};
use crate::results::verdict::Verdict;
use serde::{Deserialize, Serialize};

/// One GPU's roofs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GpuResults {
    /// The device.
    pub device: GpuInfo,
    /// Every roof measured, memory first.
    pub roofs: Vec<GpuRoof>,
    /// The driver's own device-to-device copy, GB/s with its read and its
    /// write counted (as the copy roof counts them): the rate a copy
    /// kernel should reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memcpy_gb_per_s: Option<f64>,
    /// Kernels that could not be measured, each with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// Seconds the GPU's roofs took, compilation included.
    #[serde(default)]
    pub seconds: f64,
    /// The roofs validated (`run --gpu --validate`): a sweep per level and type.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub validation: Vec<GpuSweep>,
}

/// One validation sweep: a level's load walk with FMAs of one type at
/// intensities from 1/16 to 64 flop/B, each point against min(P, AI x B).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GpuSweep {
    /// The level walked.
    pub level: GpuLevel,
    /// The FMAs' type.
    pub ty: GpuType,
    /// The kernel (its FMA count by point).
    pub kernel: String,
    /// The bandwidth roof, GB/s, and the FMA roof, GFLOP/s, the points are held to.
    pub roofs: [f64; 2],
    /// Every point, lowest intensity first.
    pub points: Vec<GpuPoint>,
    /// The median |deviation| of the points.
    pub median_deviation: f64,
    /// Whether the roofs hold, or why not.
    pub verdict: Verdict,
    /// Seconds the sweep took.
    pub seconds: f64,
}

/// A validation point.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GpuPoint {
    /// Flops per byte loaded.
    pub ai: f64,
    /// Its fastest sample, GFLOP/s.
    pub gflop_per_s: f64,
    /// min(P, AI x B), GFLOP/s.
    pub expected: f64,
    /// gflop_per_s / expected - 1.
    pub deviation: f64,
    /// The SM clock during it, GHz.
    pub clock_ghz: f64,
}

/// The rate at one buffer size (the L2's sizes).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GpuSize {
    /// The buffer, bytes.
    pub bytes: u64,
    /// Its fastest sample, GB/s.
    pub gb_per_s: f64,
}

/// Another kernel measuring the same roof, slower than the roof's.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GpuVariant {
    /// Its name.
    pub kernel: String,
    /// Its fastest sample, in the roof's unit.
    pub value: f64,
}

/// One GPU roof.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GpuRoof {
    /// The kernel that measured it (`asm/ptx/`).
    pub kernel: String,
    /// Memory roofs: the level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<GpuLevel>,
    /// Memory roofs: the access.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<GpuMix>,
    /// Compute roofs: the instruction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<GpuOp>,
    /// Compute roofs: the type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<GpuType>,
    /// The fastest sample, in the roof's unit (GB/s, GFLOP/s or GOP/s):
    /// other work only slows a sample down.
    pub value: f64,
    /// Median of the samples.
    pub median: f64,
    /// Coefficient of variation of the samples.
    pub cv: f64,
    /// Samples taken.
    pub samples: usize,
    /// The SM clock while the fastest sample ran, GHz: its cycles (`%clock64`)
    /// over its time (`%globaltimer`), the median of its blocks.
    pub clock_ghz: f64,
    /// Per SM per clock (bytes or operations).
    pub per_sm_cycle: f64,
    /// The documented limit per SM per clock (`configs/limits.yaml`); for
    /// device memory, the specification's bandwidth over the SMs and clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_per_sm_cycle: Option<f64>,
    /// The value as % of the limit at the measured clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent_of_limit: Option<f64>,
    /// Memory roofs: the buffer the value came from, bytes (per block for
    /// L1 and shared memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The L2's rates at each size measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<GpuSize>,
    /// The other kernels of the same roof (`asm/ptx/`: cache operators,
    /// instruction shapes), each slower.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<GpuVariant>,
    /// What was measured on this GPU where the rate falls short of the
    /// documented limit (`configs/limits.yaml`, `notes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Blocks and threads a block of the launch.
    pub grid: [u32; 2],
}

impl GpuRoof {
    /// Its unit.
    pub fn unit(&self) -> &'static str {
        match (self.level, self.ty) {
            (Some(_), _) => "GB/s",
            (None, Some(t)) if t.is_integer() => "GOP/s",
            _ => "GFLOP/s",
        }
    }
    /// "HBM load", "fma fp64", "wgmma bf16".
    pub fn label(&self) -> String {
        match (self.level, self.mix, self.op, self.ty) {
            (Some(l), Some(m), _, _) => format!("{l} {m}"),
            (_, _, Some(o), Some(t)) => format!("{o} {t}"),
            _ => self.kernel.clone(),
        }
    }
}

/// Bytes of the shared-memory access Konstantinidis's T_ldst counts: one 32-bit
/// word a thread (the shared-load roof is bandwidth, whatever its width).
const LDST_BYTES: f64 = 4.0;

impl GpuResults {
    /// Its fastest roof that `ok` accepts.
    pub fn fastest(&self, ok: impl Fn(&GpuRoof) -> bool) -> Option<&GpuRoof> {
        (self.roofs.iter().filter(|r| ok(r))).max_by(|a, b| a.value.total_cmp(&b.value))
    }

    /// Konstantinidis's throughputs of this GPU's measured roofs, or the roof
    /// missing.
    pub fn model(&self) -> Result<Device, String> {
        let g = self;
        let find = |ok: &dyn Fn(&GpuRoof) -> bool, what: &str| {
            g.fastest(ok).map(|r| r.value).ok_or_else(|| {
                format!(
                    "{}'s results have no {what} roof (run carmbench run --gpu)",
                    g.device.name
                )
            })
        };
        let compute = |op: GpuOp, ty: GpuType| {
            find(
                &move |r| r.op == Some(op) && r.ty == Some(ty),
                &format!("{op} {ty}"),
            )
        };
        let memory = |level: GpuLevel, mix: GpuMix| {
            find(
                &move |r| r.level == Some(level) && r.mix == Some(mix),
                &format!("{level} {mix}"),
            )
        };
        let tensor = (GpuType::ALL.iter())
            .filter_map(|&t| Some((t, g.fastest(|r| is_tensor(r, t))?.value)))
            .collect();
        Ok(Device {
            name: g.device.name.clone(),
            t_sp: compute(GpuOp::Fma, GpuType::Fp32)?,
            t_dp: compute(GpuOp::Fma, GpuType::Fp64)?,
            t_int: compute(GpuOp::Mad, GpuType::Int32)?,
            t_add: compute(GpuOp::Add, GpuType::Int32)?,
            t_ldst: memory(GpuLevel::Shared, GpuMix::Load)? / LDST_BYTES,
            hbm: [
                memory(GpuLevel::Hbm, GpuMix::Load)?,
                memory(GpuLevel::Hbm, GpuMix::Copy)?,
                memory(GpuLevel::Hbm, GpuMix::Store)?,
            ],
            tensor,
        })
    }
}

/// A tensor-core roof (`mma.sync` or `wgmma`) of `ty`.
pub fn is_tensor(r: &GpuRoof, ty: GpuType) -> bool {
    r.op.is_some_and(GpuOp::is_tensor) && r.ty == Some(ty)
}

/// Konstantinidis's prediction of the kernel `k` on the GPU of `doc` it ran on
/// (by name); `None` where `doc` has no GPU of that name.
pub fn predicted_there(
    doc: &crate::results::Document,
    k: &crate::results::apps::KernelInfo,
) -> Option<Result<crate::gpu::model::Prediction, String>> {
    let g = doc.gpus.iter().find(|g| g.device.name == k.gpu)?;
    Some(
        g.model()
            .and_then(|d| crate::gpu::model::predict(&k.model, &d)),
    )
}

#[cfg(test)]
mod tests {
    use crate::gpu::model::{Bound, Device, Params, predict};
    use crate::gpu::ncu::{self, Kernel};

    /// The test programs' Nsight Compute metrics and their native times
    /// (CUDA events), recorded on an H100, with that H100's roofs.
    fn recorded(name: &str) -> (Vec<Kernel>, Vec<f64>) {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ncu");
        let text = std::fs::read_to_string(format!("{dir}/{name}.csv")).unwrap();
        let native = std::fs::read_to_string(format!("{dir}/{name}.native.txt")).unwrap();
        // "time KERNEL MS": one launch's median.
        let ms = native
            .lines()
            .filter_map(|l| l.strip_prefix("time "))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap() / 1e3)
            .collect();
        (ncu::kernels(&ncu::parse(&text).unwrap()), ms)
    }

    fn h100() -> Device {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gpu/h100.yaml");
        let doc = crate::results::load(std::path::Path::new(path)).unwrap();
        doc.gpus[0].model().unwrap()
    }

    #[test]
    fn the_test_programs_predicted_on_the_h100_they_ran_on_are_bound_as_they_are() {
        let d = h100();
        let mut errors = Vec::new();
        for (name, bound) in [
            ("triad", [Bound::Memory].as_slice()),
            ("stencil", &[Bound::Memory]),
            ("sgemm", &[Bound::Compute]),
            ("hash", &[Bound::Compute]),
            ("intensity", &[Bound::Memory, Bound::Memory, Bound::Compute]),
        ] {
            let (kernels, native) = recorded(name);
            assert_eq!(kernels.len(), bound.len(), "{name}");
            for ((k, &want), &t) in kernels.iter().zip(bound).zip(&native) {
                let p = Params::of(k).unwrap();
                let r = predict(&p, &d).unwrap();
                let per_launch = r.seconds / k.launches as f64;
                errors.push(((per_launch - t) / t).abs());
                assert_eq!(r.bound, want, "{}: {r:?} {p:?}", k.name);
            }
        }
        // Absolute percentage errors, by kernel: SGEMM 2.6, triad 13.3,
        // intensity<64> 14.2, hash 17.6, intensity<1> 35.5, intensity<8>
        // 36.1, stencil 43.7 %. The last three are latency bound (a load at
        // a time per thread, or 72 µs launches) at 1.7-2.2 TB/s, where the
        // seed's B_mem is the best HBM roof: issue 54's 15 % median waits
        // for programs that keep HBM busy, recorded on a GPU.
        errors.sort_by(f64::total_cmp);
        let median = errors[errors.len() / 2];
        assert!(median <= 0.18, "{errors:?}");
    }
}
