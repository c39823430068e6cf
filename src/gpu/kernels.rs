//! The GPU kernels: the table read from the `// @kernel` declarations in
//! `asm/ptx/` (each kernel's PTX is made in [`super::ptx`]). The
//! declaration is the only place a kernel's counts are written: the work a
//! trip does and the SASS instructions it must become follow from it.

use super::{GpuLevel, GpuMix, GpuOp, GpuType};

/// The files, with their names (the templates are carried in the binary:
/// the driver compiles the PTX for the device it runs on).
const FILES: [(&str, &str); 5] = [
    ("compute.ptx", include_str!("../../asm/ptx/compute.ptx")),
    ("memory.ptx", include_str!("../../asm/ptx/memory.ptx")),
    ("tensor.ptx", include_str!("../../asm/ptx/tensor.ptx")),
    ("wgmma.ptx", include_str!("../../asm/ptx/wgmma.ptx")),
    (
        "validation.ptx",
        include_str!("../../asm/ptx/validation.ptx"),
    ),
];

/// Independent chains a thread (or a warp, on the tensor cores) runs.
pub const CHAINS: u32 = 8;
/// Steps of each chain a trip, unless the declaration says otherwise: 256
/// instructions for the loop's 3 of control (an SM sub-partition issues one
/// instruction a clock, and FP32's pipes take one a clock: 8 steps, 64
/// instructions, left 4.5 % of them idle).
pub const STEPS: u32 = 32;
/// Threads of a memory kernel's block (its immediate offsets assume it).
pub const MEMORY_BLOCK: u32 = 256;
/// Bytes one memory access moves (a `.v4.u32` vector).
pub const VECTOR: u64 = 16;
/// A validation kernel's SASS count of FMAs before its count is given.
pub(super) const FMAS: u32 = u32::MAX;

/// What a kernel measures, with what its declaration says of it.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// A memory level's bandwidth.
    Memory {
        /// The level its buffer sits in.
        level: GpuLevel,
        /// Loads, stores or both.
        mix: GpuMix,
        /// Every block walks the same bytes (L1, shared memory), or the grid
        /// walks the buffer together.
        block_local: bool,
        /// Vectors a thread loads or stores a trip.
        unroll: u32,
    },
    /// A memory kernel's walk with FMAs on what it loads (Konstantinidis's
    /// variable-intensity kernels).
    Validation {
        /// The level its buffer sits in.
        level: GpuLevel,
        /// The FMAs' type (fp32 or fp64).
        ty: GpuType,
        /// Every block walks the same bytes, or the grid the buffer.
        block_local: bool,
        /// Vectors a thread loads a trip.
        unroll: u32,
        /// FMAs a thread does a trip (0 until [`GpuKernel::with_fmas`]).
        fmas: u32,
        /// Operations one FMA does for a thread (its declared `ops`).
        ops: u32,
    },
    /// An instruction's throughput.
    Compute {
        /// The instruction.
        op: GpuOp,
        /// Its data type.
        ty: GpuType,
        /// Operations a trip does per thread.
        ops_per_trip: f64,
    },
}

/// One kernel of `asm/ptx/`.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuKernel {
    /// Its entry's name.
    pub name: String,
    /// The file it is declared in.
    pub file: &'static str,
    /// What it measures.
    pub role: Role,
    /// The SASS instructions a trip must hold, by opcode (`LDG.128`: an
    /// instruction whose opcode starts `LDG` and has a `128` part), with
    /// their number.
    pub sass: Vec<(String, u32)>,
    /// The lowest `sm_XY` it assembles for.
    pub target: String,
    pub(super) template: &'static str,
    fields: Vec<(String, String)>,
}

/// Every declared kernel.
pub fn all() -> Vec<GpuKernel> {
    FILES
        .iter()
        .flat_map(|(file, text)| {
            parse_file(file, text).unwrap_or_else(|e| panic!("asm/ptx/{file}: {e}"))
        })
        .collect()
}

/// The kernel of that name.
pub fn named(name: &str) -> Option<GpuKernel> {
    all().into_iter().find(|k| k.name == name)
}

fn parse_file(file: &'static str, text: &'static str) -> Result<Vec<GpuKernel>, String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("// @kernel "))
        .map(|decl| parse_decl(file, text, decl))
        .collect()
}

fn parse_decl(file: &'static str, template: &'static str, decl: &str) -> Result<GpuKernel, String> {
    let words = shlex::split(decl).ok_or_else(|| format!("unbalanced quotes in `{decl}`"))?;
    let (name, rest) = words.split_first().ok_or("a declaration without a name")?;
    let fields: Vec<(String, String)> = rest
        .iter()
        .map(|w| {
            w.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{name}: every field is key=value"))?;
    let get = |k: &str| fields.iter().find(|(f, _)| f == k).map(|(_, v)| v.as_str());
    let need = |k: &str| get(k).ok_or_else(|| format!("{name}: no `{k}`"));
    let num = |k: &str| {
        need(k)?
            .parse::<u32>()
            .map_err(|e| format!("{name}: {k}: {e}"))
    };
    let steps = get("steps").map_or(Ok(STEPS), |_| num("steps"))?;
    let chains = get("chains").map_or(Ok(CHAINS), |_| num("chains"))?;
    let role = match need("kind")? {
        "bandwidth" => Role::Memory {
            level: GpuLevel::parse(need("level")?)?,
            mix: GpuMix::parse(need("mix")?)?,
            block_local: need("walk")? == "block",
            unroll: num("unroll")?,
        },
        "compute" => {
            let op = GpuOp::parse(need("op")?)?;
            // A tensor instruction's ops are its warp's (32 threads) or warpgroup's (128).
            let per_thread = match (get("warp_ops"), get("group_ops")) {
                (Some(_), _) => f64::from(num("warp_ops")?) / 32.0,
                (_, Some(_)) => f64::from(num("group_ops")?) / 128.0,
                _ => f64::from(num("ops")?),
            };
            let ops_per_trip = per_thread * f64::from(chains * steps);
            Role::Compute {
                op,
                ty: GpuType::parse(need("type")?)?,
                ops_per_trip,
            }
        }
        "validation" => Role::Validation {
            level: GpuLevel::parse(need("level")?)?,
            ty: GpuType::parse(need("type")?)?,
            block_local: need("walk")? == "block",
            unroll: num("unroll")?,
            fmas: 0,
            ops: num("ops")?,
        },
        k => return Err(format!("{name}: unknown kind {k}")),
    };
    let sass = need("sass")?
        .split(',')
        .map(|s| match s.split_once(':') {
            // A validation kernel's FMAs: as many as its PTX is made with.
            Some((op, "fmas")) => Ok((op.to_string(), FMAS)),
            Some((op, n)) => n
                .parse()
                .map(|n| (op.to_string(), n))
                .map_err(|e| format!("{name}: sass {s}: {e}")),
            None => Ok((s.to_string(), chains * steps)),
        })
        .collect::<Result<_, String>>()?;
    let target = get("target").unwrap_or("sm_80").to_string();
    Ok(GpuKernel {
        name: name.clone(),
        file,
        role,
        sass,
        target,
        template,
        fields,
    })
}

impl GpuKernel {
    pub(super) fn field(&self, k: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(f, _)| f == k)
            .map(|(_, v)| v.as_str())
    }

    pub(super) fn steps(&self) -> u32 {
        self.field("steps")
            .and_then(|s| s.parse().ok())
            .unwrap_or(STEPS)
    }

    pub(super) fn chains(&self) -> u32 {
        self.field("chains")
            .and_then(|s| s.parse().ok())
            .unwrap_or(CHAINS)
    }

    /// Operations a trip does per thread (none for a memory kernel).
    pub fn ops_per_trip(&self) -> f64 {
        match self.role {
            Role::Memory { .. } => 0.0,
            Role::Validation { fmas, ops, .. } => f64::from(fmas * ops),
            Role::Compute { ops_per_trip, .. } => ops_per_trip,
        }
    }

    /// This validation kernel's FMAs a trip for an intensity of `ai` flops
    /// a byte (at least one).
    pub fn fmas_for(&self, ai: f64) -> u32 {
        let Role::Validation { ops, .. } = self.role else {
            return 0;
        };
        (ai * self.bytes_per_trip() / f64::from(ops))
            .round()
            .max(1.0) as u32
    }

    /// Bytes a trip moves per thread (a copy's load and store both counted).
    pub fn bytes_per_trip(&self) -> f64 {
        match self.role {
            Role::Memory { mix, unroll, .. } => {
                let sides = if mix == GpuMix::Copy { 2.0 } else { 1.0 };
                sides * f64::from(unroll) * VECTOR as f64
            }
            Role::Validation { unroll, .. } => f64::from(unroll) * VECTOR as f64,
            Role::Compute { .. } => 0.0,
        }
    }

    /// Bytes one block covers a trip (memory kernels): the stride of the walk.
    pub fn block_span(&self) -> u64 {
        match self.role {
            Role::Memory { unroll, .. } | Role::Validation { unroll, .. } => {
                u64::from(MEMORY_BLOCK) * u64::from(unroll) * VECTOR
            }
            Role::Compute { .. } => 0,
        }
    }

    /// Whether a device of `sm` (as `sm_90`) runs it.
    pub fn runs_on(&self, sm: &str) -> bool {
        let n = |s: &str| {
            s.trim_start_matches("sm_")
                .trim_end_matches('a')
                .parse::<u32>()
                .unwrap_or(u32::MAX)
        };
        n(sm) >= n(&self.target)
    }

    /// This validation kernel with `fmas` FMAs a thread a trip.
    pub fn with_fmas(&self, fmas: u32) -> GpuKernel {
        let mut k = self.clone();
        if let Role::Validation { fmas: f, .. } = &mut k.role {
            *f = fmas;
        }
        for (_, n) in k.sass.iter_mut().filter(|(_, n)| *n == FMAS) {
            *n = fmas;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declaration_reads_and_each_name_is_one_kernel() {
        let all = all();
        assert!(all.len() >= 20, "{} kernels", all.len());
        let mut names: Vec<_> = all.iter().map(|k| k.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        let fma = named("fma_sp").unwrap();
        assert_eq!(
            fma.role,
            Role::Compute {
                op: GpuOp::Fma,
                ty: GpuType::Fp32,
                ops_per_trip: 512.0
            }
        );
        assert_eq!(fma.sass, vec![("FFMA".to_string(), 256)]);
        let copy = named("hbm_copy").unwrap();
        assert_eq!(copy.bytes_per_trip(), 256.0);
        assert_eq!(copy.block_span(), 32768);
        // A validation kernel of fp32 loads 128 bytes a trip: 1 flop/B is 64 FMAs, 128 flops.
        let v = named("validate_hbm_fp32").unwrap();
        assert_eq!(v.fmas_for(1.0), 64);
        assert_eq!(v.with_fmas(64).ops_per_trip(), 128.0);
        assert_eq!(v.fmas_for(1.0 / 1024.0), 1);
        // A warp's mma.sync m16n8k16 is 4096 flops: 128 a thread, 16 of them a trip.
        let mma = named("mma_bf16").unwrap();
        assert!(matches!(mma.role, Role::Compute { ops_per_trip, .. } if ops_per_trip == 2048.0));
        // A warpgroup's wgmma m64n256k16 is 524,288 flops: 4096 a thread, 8 of them a trip.
        let wg = named("wgmma_bf16").unwrap();
        assert!(matches!(wg.role, Role::Compute { ops_per_trip, .. } if ops_per_trip == 32768.0));
        assert_eq!(wg.sass, vec![("HGMMA.64x256x16.F32.BF16".to_string(), 8)]);
    }
}
