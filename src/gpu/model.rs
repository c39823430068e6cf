//! Konstantinidis's model: a kernel's time on a target GPU from
//! its metrics on a reference GPU ([`Params`], from Nsight Compute) and the
//! target's micro-benchmarked throughputs ([`Device`], from the `gpus:` of
//! its results). The seed's formulas are cited by number, (2) to (19).
//! Where the seed is silent carmbench chooses, and says so: tensor-core
//! kernels, and which HBM roof is the seed's one B_mem (`docs/gpu.md`).

use super::GpuType;
use super::ncu::Kernel;
use serde::{Deserialize, Serialize};

/// A kernel's parameters (the seed's table 2), all launches together.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// K_type, its dominant operations: FP64, FP32 or INT32 by the seed's
    /// rule, or a tensor-core type where the tensor cores did any work.
    #[serde(rename = "type")]
    pub ty: GpuType,
    /// Its dominant operations ran on the tensor cores.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tensor: bool,
    /// W_comp (2): its operations of that type (an FMA counts two).
    pub w_comp: f64,
    /// W_traf (3): bytes read from and written to device memory.
    pub w_traf: f64,
    /// The share of W_traf written (chooses the HBM roof, see [`Device`]).
    pub write_share: f64,
    /// E_mix (4): its operations over twice its instructions of the type
    /// (1 where every one is an FMA).
    pub e_mix: f64,
    /// D_ops (5): the type's instructions among all thread instructions.
    pub d_ops: f64,
    /// D_ldst (6): load and store instructions among them.
    pub d_ldst: f64,
    /// D_other (7): the rest.
    pub d_other: f64,
}

/// What bounds a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// Its operations (O_krn above O_dev).
    Compute,
    /// Device memory's bandwidth.
    Memory,
}
impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(match self {
            Bound::Compute => "compute",
            Bound::Memory => "memory",
        })
    }
}

/// The tensor-core paths Nsight Compute counts operations on, and their type.
const TENSOR_PATHS: [(&str, GpuType); 6] = [
    ("bf16_dst_fp32", GpuType::Bf16),
    ("fp16", GpuType::Fp16),
    ("tf32_dst_fp32", GpuType::Tf32),
    ("fp8", GpuType::Fp8),
    ("int8", GpuType::Int8),
    ("fp64", GpuType::Fp64),
];

impl Params {
    /// The parameters of `k` (its metrics summed over its launches), or why
    /// there are none: a metric the seed needs that ncu did not give.
    pub fn of(k: &Kernel) -> Result<Params, String> {
        let need = |m: &str| {
            k.metrics
                .get(m)
                .copied()
                .ok_or_else(|| format!("Nsight Compute gave no {m} for {}", k.name))
        };
        let thread = |op: &str| {
            need(&format!(
                "sm__sass_thread_inst_executed_op_{op}_pred_on.sum"
            ))
        };
        // Thread instructions: M_fp (adds, multiplies and FMAs), M_fma.
        let (fadd, fmul, ffma) = (thread("fadd")?, thread("fmul")?, thread("ffma")?);
        let (dadd, dmul, dfma) = (thread("dadd")?, thread("dmul")?, thread("dfma")?);
        let (m_fp32, m_fp64) = (fadd + fmul + ffma, dadd + dmul + dfma);
        let (m_int, m_ldst) = (thread("integer")?, thread("memory")?);
        // (9): warp instructions, 32 threads each.
        let i_total = 32.0 * need("smsp__inst_executed.sum")?;
        let tensor = TENSOR_PATHS
            .iter()
            .map(|(p, t)| (k.metric(&format!("sm__ops_path_tensor_src_{p}.sum")), *t))
            .filter(|(ops, _)| *ops > 0.0)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        // (2), (4) and (8) by K_type; tensor work is counted as operations
        // and runs at its own roof (the seed has no rule for it).
        let (ty, w_comp, e_mix, i_ops) = match tensor {
            Some((ops, t)) => (
                t,
                ops,
                1.0,
                32.0 * k.metric("sm__inst_executed_pipe_tensor.sum"),
            ),
            None if m_fp64 > 0.0 => (
                GpuType::Fp64,
                m_fp64 + dfma,
                (m_fp64 + dfma) / (2.0 * m_fp64),
                m_fp64,
            ),
            None if m_fp32 > 0.0 => (
                GpuType::Fp32,
                m_fp32 + ffma,
                (m_fp32 + ffma) / (2.0 * m_fp32),
                m_fp32,
            ),
            None => (GpuType::Int32, m_int, 0.5, m_int),
        };
        let (read, write) = (
            need("dram__bytes_read.sum")?,
            need("dram__bytes_write.sum")?,
        );
        let share = |x: f64| {
            if i_total > 0.0 {
                (x / i_total).min(1.0)
            } else {
                0.0
            }
        };
        let (d_ops, d_ldst) = (share(i_ops), share(m_ldst));
        Ok(Params {
            ty,
            tensor: tensor.is_some(),
            w_comp,
            w_traf: read + write,
            write_share: if read + write > 0.0 {
                write / (read + write)
            } else {
                0.0
            },
            e_mix,
            d_ops,
            d_ldst,
            d_other: (1.0 - d_ops - d_ldst).max(0.0),
        })
    }

    /// O_krn: operations per byte of device memory.
    pub fn intensity(&self) -> f64 {
        self.w_comp / self.w_traf
    }
}

/// A target GPU's throughputs (the seed's table 3), G/s: operations
/// (an FMA two), thread instructions for `t_ldst`, bytes for the HBM roofs.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    /// The GPU's name.
    pub name: String,
    /// T_SP: FP32 FMA.
    pub t_sp: f64,
    /// T_DP: FP64 FMA.
    pub t_dp: f64,
    /// T_int: INT32 multiply-add.
    pub t_int: f64,
    /// T_add: INT32 add.
    pub t_add: f64,
    /// T_ldst: shared-memory loads, as 32-bit accesses (its bandwidth / 4).
    pub t_ldst: f64,
    /// HBM loads, stores and copies: B_mem is read between them by the
    /// kernel's write share (0 loads, ½ copies, 1 stores).
    pub hbm: [f64; 3],
    /// The fastest tensor-core roof of each type measured.
    pub tensor: Vec<(GpuType, f64)>,
}

impl Device {
    /// B_mem for a kernel that writes `share` of its bytes: the load roof
    /// at 0, the copy roof at ½, the store roof at 1, straight between.
    pub fn b_mem(&self, share: f64) -> f64 {
        let s = share.clamp(0.0, 1.0);
        let [load, copy, store] = self.hbm;
        match s <= 0.5 {
            true => load + (copy - load) * s * 2.0,
            false => copy + (store - copy) * (s - 0.5) * 2.0,
        }
    }

    /// T_op (10): the peak of the kernel's type; `None` where this GPU has
    /// no roof of it (a tensor type it was not measured with).
    pub fn t_op(&self, p: &Params) -> Option<f64> {
        match (p.tensor, p.ty) {
            (true, t) => self.tensor.iter().find(|(x, _)| *x == t).map(|(_, v)| *v),
            (false, GpuType::Fp64) => Some(self.t_dp),
            (false, GpuType::Fp32) => Some(self.t_sp),
            (false, _) => Some(self.t_int),
        }
    }
}

/// A kernel's predicted time on a GPU, by the seed's model and by the
/// plain roofline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    /// E_instr (17).
    pub e_instr: f64,
    /// T'_op (18), G/s.
    pub t_op_adjusted: f64,
    /// B_mem, GB/s.
    pub b_mem: f64,
    /// What bounds it (19).
    pub bound: Bound,
    /// Seconds, by the model.
    pub seconds: f64,
    /// Seconds by the plain roofline (T_op and B_mem, no efficiencies),
    /// and what bounds it there.
    pub roofline: (f64, Bound),
}

/// The seed's prediction of `p` on `d`, or why there is none.
pub fn predict(p: &Params, d: &Device) -> Result<Prediction, String> {
    let t_op = d.t_op(p).ok_or_else(|| {
        format!(
            "{} has no roof of {} tensor cores (run carmbench run --gpu there)",
            d.name, p.ty
        )
    })?;
    // (11)-(17): each instruction class's cost in FP32 FMA slots.
    let e_instr = match p.tensor {
        true => 1.0,
        false => {
            let c_op = p.d_ops * d.t_sp / t_op;
            let c_ldst = p.d_ldst * 0.5 * d.t_sp / d.t_ldst;
            let c_other = p.d_other * 0.5 * d.t_sp / d.t_add;
            if c_op > 0.0 {
                c_op / (c_op + c_ldst + c_other)
            } else {
                0.0
            }
        }
    };
    let adjusted = p.e_mix * e_instr * t_op;
    let b_mem = d.b_mem(p.write_share);
    // (19): compute bound where O_krn exceeds O_dev = T'_op / B_mem.
    let time = |peak: f64| -> (f64, Bound) {
        let memory = p.w_traf / (b_mem * 1e9);
        let compute = if peak > 0.0 {
            p.w_comp / (peak * 1e9)
        } else {
            f64::INFINITY
        };
        match p.w_traf > 0.0 && p.intensity() <= peak / b_mem {
            true => (memory, Bound::Memory),
            false => (compute, Bound::Compute),
        }
    };
    let (seconds, bound) = time(adjusted);
    Ok(Prediction {
        e_instr,
        t_op_adjusted: adjusted,
        b_mem,
        bound,
        seconds,
        roofline: time(t_op),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GPU of round numbers, G/s.
    fn device() -> Device {
        Device {
            name: "round".into(),
            t_sp: 1000.0,
            t_dp: 500.0,
            t_int: 500.0,
            t_add: 500.0,
            t_ldst: 250.0,
            hbm: [100.0, 80.0, 90.0],
            tensor: vec![(GpuType::Bf16, 8000.0)],
        }
    }

    /// A kernel of `metrics` (thread instructions by op, warp instructions).
    fn kernel(metrics: &[(&str, f64)]) -> Kernel {
        let mut k = Kernel {
            name: "k".into(),
            device: 0,
            launches: 1,
            metrics: Default::default(),
        };
        for op in [
            "fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "integer", "memory",
        ] {
            let m = format!("sm__sass_thread_inst_executed_op_{op}_pred_on.sum");
            k.metrics.insert(m, 0.0);
        }
        for (m, v) in metrics {
            let name = match *m {
                "inst" => "smsp__inst_executed.sum".to_string(),
                "read" => "dram__bytes_read.sum".to_string(),
                "write" => "dram__bytes_write.sum".to_string(),
                op => format!("sm__sass_thread_inst_executed_op_{op}_pred_on.sum"),
            };
            k.metrics.insert(name, *v);
        }
        k
    }

    #[test]
    fn an_fp32_kernel_is_worked_as_the_seed_works_it() {
        // 20 FADD and 80 FFMA thread instructions, 50 loads and stores, 10
        // warp instructions (320 thread instructions), 6 bytes read and 3
        // written.
        let k = kernel(&[
            ("fadd", 20.0),
            ("ffma", 80.0),
            ("memory", 50.0),
            ("inst", 10.0),
            ("read", 6.0),
            ("write", 3.0),
        ]);
        let p = Params::of(&k).unwrap();
        assert_eq!((p.ty, p.tensor), (GpuType::Fp32, false));
        assert_eq!(p.w_comp, 180.0); // (2): 100 + 80
        assert_eq!(p.w_traf, 9.0);
        assert_eq!(p.e_mix, 0.9); // (4): 180 / 200
        assert_eq!((p.d_ops, p.d_ldst), (100.0 / 320.0, 50.0 / 320.0));
        assert!((p.d_other - 170.0 / 320.0).abs() < 1e-12);
        let d = device();
        let r = predict(&p, &d).unwrap();
        // W_op 1, W_ldst 500/250 = 2, W_other 500/500 = 1: C 100, 100, 170 (/320).
        assert!((r.e_instr - 100.0 / 370.0).abs() < 1e-12, "{r:?}");
        assert!((r.t_op_adjusted - 0.9 * 100.0 / 370.0 * 1000.0).abs() < 1e-9);
        // A third written: B_mem two thirds of the way from load to copy.
        assert!((r.b_mem - (100.0 - 20.0 * 2.0 / 3.0)).abs() < 1e-9);
        // O_krn 20 against O_dev 243.2 / 86.7 = 2.8: compute bound.
        assert_eq!(r.bound, Bound::Compute);
        assert!((r.seconds - 180.0 / (r.t_op_adjusted * 1e9)).abs() < 1e-20);
        // The plain roofline: the FP32 peak.
        assert_eq!(r.roofline, (180.0 / 1e12, Bound::Compute));
    }

    #[test]
    fn the_seeds_rule_picks_fp64_then_fp32_then_int_and_tensor_work_first() {
        let one = |m: &[(&str, f64)]| Params::of(&kernel(m)).unwrap();
        let base = [("inst", 1.0), ("read", 1.0), ("write", 0.0)];
        let with = |extra: &[(&'static str, f64)]| [&base[..], extra].concat();
        assert_eq!(
            one(&with(&[("fadd", 9.0), ("dmul", 1.0)])).ty,
            GpuType::Fp64
        );
        assert_eq!(
            one(&with(&[("fmul", 1.0), ("integer", 9.0)])).ty,
            GpuType::Fp32
        );
        let int = one(&with(&[("integer", 9.0)]));
        assert_eq!((int.ty, int.w_comp, int.e_mix), (GpuType::Int32, 9.0, 0.5));
        let mut k = kernel(&with(&[("ffma", 4.0)]));
        k.metrics
            .insert("sm__ops_path_tensor_src_bf16_dst_fp32.sum".into(), 4096.0);
        let t = Params::of(&k).unwrap();
        assert_eq!(
            (t.ty, t.tensor, t.w_comp, t.e_mix),
            (GpuType::Bf16, true, 4096.0, 1.0)
        );
        // At the tensor roof, 8000 G/s.
        let r = predict(&t, &device()).unwrap();
        assert_eq!((r.seconds, r.bound), (4096.0 / 8e12, Bound::Compute));
        // A metric the seed needs, missing: named.
        let mut k = kernel(&base);
        k.metrics.remove("dram__bytes_write.sum");
        assert!(
            Params::of(&k)
                .unwrap_err()
                .contains("dram__bytes_write.sum")
        );
    }

    #[test]
    fn a_kernel_of_low_intensity_is_bound_by_memory() {
        // One FFMA per 8 bytes read (a triad's shape).
        let k = kernel(&[
            ("ffma", 100.0),
            ("memory", 300.0),
            ("integer", 200.0),
            ("inst", 20.0),
            ("read", 800.0),
            ("write", 400.0),
        ]);
        let p = Params::of(&k).unwrap();
        let r = predict(&p, &device()).unwrap();
        assert_eq!(r.bound, Bound::Memory);
        assert_eq!(r.b_mem, 100.0 - 20.0 * 2.0 / 3.0);
        assert!((r.seconds - 1200.0 / (r.b_mem * 1e9)).abs() < 1e-20);
        assert_eq!(r.roofline.1, Bound::Memory);
    }
}
