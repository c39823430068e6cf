//! The GPU kernels: the table read from the `// @kernel` declarations in
//! `asm/ptx/`, and each kernel's PTX, made from its file's template. The
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
const FMAS: u32 = u32::MAX;

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
    /// A memory kernel's walk with FMAs on what it loads (seed 001's
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
    template: &'static str,
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
    fn field(&self, k: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(f, _)| f == k)
            .map(|(_, v)| v.as_str())
    }

    fn steps(&self) -> u32 {
        self.field("steps")
            .and_then(|s| s.parse().ok())
            .unwrap_or(STEPS)
    }

    fn chains(&self) -> u32 {
        self.field("chains")
            .and_then(|s| s.parse().ok())
            .unwrap_or(CHAINS)
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

    /// Its PTX for a device of `sm` (as `sm_90`): the file's template with
    /// this kernel's name, target and body.
    pub fn ptx(&self, sm: &str) -> String {
        let target = if self.target.ends_with('a') {
            self.target.clone()
        } else {
            sm.to_string()
        };
        let mut out = self
            .template
            .replace("${NAME}", &self.name)
            .replace("${TARGET}", &target);
        out = out
            .replace("${CHAINS}", &self.chains().to_string())
            .replace("${STEPS}", &self.steps().to_string());
        let parts = match &self.role {
            Role::Memory { .. } => self.memory_parts(),
            Role::Validation { .. } => self.validation_parts(),
            Role::Compute { op, .. } if op.is_tensor() => self.tensor_parts(),
            Role::Compute { .. } => self.compute_parts(),
        };
        for (key, text) in parts {
            out = out.replace(&format!("${{{key}}}"), &text);
        }
        out
    }

    fn chain_lines(&self, inst: &str, acc: impl Fn(u32) -> String) -> String {
        let mut body = String::new();
        let chains = self.chains();
        for _ in 0..self.steps() {
            for i in 0..chains {
                let line = inst
                    .replace("<c>", &acc(i))
                    .replace("<a>", &format!("%a{i}"))
                    .replace("<n>", &format!("%a{}", (i + 1) % chains))
                    .replace("<k0>", "%k0")
                    .replace("<k1>", "%k1");
                body.push_str(&format!("    {line}\n"));
            }
        }
        body
    }

    fn compute_parts(&self) -> Vec<(&'static str, String)> {
        let reg = self.field("reg").unwrap_or("b32");
        let inst = self.field("inst").unwrap_or_default();
        let mut init = String::new();
        let Role::Compute { ty, .. } = self.role else {
            unreachable!()
        };
        for (r, v) in
            (0..CHAINS).map(|i| (format!("%a{i}"), constant(ty, 1.0 + f64::from(i) / 64.0)))
        {
            init.push_str(&format!("    mov.{reg} {r}, {v};\n"));
        }
        init.push_str(&format!(
            "    mov.{reg} %k0, {};\n",
            constant(ty, 0.999_969_482_421_875)
        ));
        init.push_str(&format!(
            "    mov.{reg} %k1, {};\n",
            constant(ty, 0.000_976_562_5)
        ));
        let size = if reg.ends_with("64") { 8 } else { 4 };
        let keep = (0..CHAINS)
            .map(|i| format!("    st.global.{reg} [%rd0+{}], %a{i};\n", i * size))
            .collect();
        vec![
            ("REG", reg.to_string()),
            ("INIT", init),
            ("BODY", self.chain_lines(inst, |_| String::new())),
            ("KEEP", keep),
        ]
    }

    fn tensor_parts(&self) -> Vec<(&'static str, String)> {
        let (ty, n) = self
            .field("acc")
            .and_then(|a| a.split_once(':'))
            .unwrap_or(("f32", "4"));
        let n: u32 = n.parse().unwrap_or(4);
        let reg = |i: u32, j: u32| format!("%c{i}_{j}");
        let acc = |i: u32| {
            format!(
                "{{{}}}",
                (0..n).map(|j| reg(i, j)).collect::<Vec<_>>().join(", ")
            )
        };
        let all: Vec<String> = (0..self.chains())
            .flat_map(|i| (0..n).map(move |j| reg(i, j)))
            .collect();
        let decls = format!("    .reg .{ty} {};", all.join(", "));
        let size = if ty.ends_with("64") { 8 } else { 4 };
        let mut init = String::new();
        let mut keep = String::new();
        for (x, r) in all.iter().enumerate() {
            let v = match ty {
                "f64" => format!("0d{:016X}", (1.0 + x as f64 / 256.0).to_bits()),
                "f32" => format!("0f{:08X}", (1.0 + x as f32 / 256.0).to_bits()),
                _ => x.to_string(),
            };
            init.push_str(&format!("    mov.{ty} {r}, {v};\n"));
            keep.push_str(&format!("    st.global.{ty} [%rd0+{}], {r};\n", x * size));
        }
        let inst = self.field("inst").unwrap_or_default();
        vec![
            ("DECLS", decls),
            ("INIT", init),
            ("BODY", self.chain_lines(inst, acc)),
            ("KEEP", keep),
        ]
    }

    /// The walk's parts of the memory and validation templates: the buffers'
    /// base, where a thread starts and the step a trip.
    fn walk_parts(&self, level: GpuLevel, block_local: bool) -> Vec<(&'static str, String)> {
        let span = self.block_span();
        let base = if level == GpuLevel::Shared {
            "    mov.u64 %rd0, smem;\n    mov.u64 %rd1, smem;\n".to_string()
        } else {
            "    cvta.to.global.u64 %rd0, %rd0;\n    cvta.to.global.u64 %rd1, %rd1;\n".to_string()
        };
        let walk = if block_local {
            String::new()
        } else {
            "    mov.u32 %r4, %ctaid.x;\n    mul.wide.u32 %rd8, %r4, SPAN;\n    add.s64 %rd4, %rd4, %rd8;\n    \
             mov.u32 %r5, %nctaid.x;\n    mul.wide.u32 %rd5, %r5, SPAN;\n"
                .replace("SPAN", &span.to_string())
        };
        let span_text = if block_local {
            span.to_string()
        } else {
            "0".to_string()
        };
        vec![("BASE", base), ("WALK", walk), ("SPAN", span_text)]
    }

    fn memory_parts(&self) -> Vec<(&'static str, String)> {
        let Role::Memory {
            mix,
            block_local,
            unroll,
            level,
        } = self.role
        else {
            unreachable!()
        };
        let (ld, st) = (
            self.field("ld").unwrap_or_default(),
            self.field("st").unwrap_or_default(),
        );
        let mut body = String::new();
        if mix == GpuMix::Store {
            body.push_str("    mov.u32 %v0, %r2;\n    mov.u32 %v1, %r1;\n    mov.u32 %v2, %r2;\n    mov.u32 %v3, %r1;\n");
        }
        let block_bytes = u64::from(MEMORY_BLOCK) * VECTOR;
        let regs = |u: u64| {
            format!(
                "{{%v{}, %v{}, %v{}, %v{}}}",
                4 * u,
                4 * u + 1,
                4 * u + 2,
                4 * u + 3
            )
        };
        for u in 0..u64::from(unroll) {
            let off = u * block_bytes;
            match mix {
                GpuMix::Load => body.push_str(&format!(
                    "    {ld} {{%v0, %v1, %v2, %v3}}, [%rd6+{off}];\n    xor.b32 %x0, %x0, %v0;\n    \
                     xor.b32 %x1, %x1, %v1;\n    xor.b32 %x2, %x2, %v2;\n    xor.b32 %x3, %x3, %v3;\n"
                )),
                GpuMix::Store => body.push_str(&format!("    {st} [%rd7+{off}], {{%v0, %v1, %v2, %v3}};\n")),
                GpuMix::Copy => body.push_str(&format!("    {ld} {}, [%rd6+{off}];\n", regs(u))),
            }
        }
        if mix == GpuMix::Copy {
            for u in 0..u64::from(unroll) {
                body.push_str(&format!(
                    "    {st} [%rd7+{}], {};\n",
                    u * block_bytes,
                    regs(u)
                ));
            }
        }
        let mut parts = self.walk_parts(level, block_local);
        parts.push(("BODY", body));
        parts
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

    fn validation_parts(&self) -> Vec<(&'static str, String)> {
        let Role::Validation {
            level,
            ty,
            block_local,
            unroll,
            fmas,
        } = self.role
        else {
            unreachable!()
        };
        let (reg, lanes) = self
            .field("vec")
            .and_then(|v| v.split_once(':'))
            .unwrap_or(("f32", "4"));
        let lanes: u32 = lanes.parse().unwrap_or(4);
        let (bits, size) = if reg == "f64" { ("b64", 8) } else { ("b32", 4) };
        let vregs = unroll * lanes;
        let (ld, inst) = (
            self.field("ld").unwrap_or_default(),
            self.field("inst").unwrap_or_default(),
        );
        let mut init: String = (0..CHAINS)
            .map(|i| {
                format!(
                    "    mov.{reg} %a{i}, {};\n",
                    constant(ty, 1.0 + f64::from(i) / 64.0)
                )
            })
            .collect();
        init.push_str(&format!(
            "    mov.{reg} %k0, {};\n    mov.{bits} %x0, 0;\n",
            constant(ty, 0.999_969_482_421_875)
        ));
        let mut body = String::new();
        for u in 0..unroll {
            let regs: Vec<String> = (0..lanes).map(|l| format!("%v{}", u * lanes + l)).collect();
            let off = u64::from(u) * u64::from(MEMORY_BLOCK) * VECTOR;
            body.push_str(&format!(
                "    {ld} {{{}}}, [%rd6+{off}];\n",
                regs.join(", ")
            ));
        }
        for j in 0..fmas {
            let line = inst
                .replace("<a>", &format!("%a{}", j % CHAINS))
                .replace("<v>", &format!("%v{}", j % vregs))
                .replace("<k0>", "%k0");
            body.push_str(&format!("    {line}\n"));
        }
        // Values no FMA read: xored in, so that each load stays whole.
        for v in fmas..vregs {
            body.push_str(&format!("    xor.{bits} %x0, %x0, %v{v};\n"));
        }
        let mut keep: String = (0..CHAINS)
            .map(|i| format!("    st.global.{reg} [%rd9+{}], %a{i};\n", i * size))
            .collect();
        keep.push_str(&format!(
            "    st.global.{bits} [%rd9+{}], %x0;\n",
            CHAINS * size
        ));
        let mut parts = self.walk_parts(level, block_local);
        parts.extend([
            ("REG", reg.to_string()),
            ("XREG", bits.to_string()),
            ("VREGS", vregs.to_string()),
            ("FMAS", fmas.to_string()),
            ("INIT", init),
            ("BODY", body),
            ("KEEP", keep),
        ]);
        parts
    }
}

/// A constant of `ty` near `v`, as PTX writes it for a register of that
/// type: `0d...` (fp64), `0f...` (fp32), two halves in a `.b32`, an integer.
fn constant(ty: GpuType, v: f64) -> String {
    match ty {
        GpuType::Fp64 => format!("0d{:016X}", v.to_bits()),
        GpuType::Fp32 | GpuType::Tf32 => format!("0f{:08X}", (v as f32).to_bits()),
        GpuType::Fp16 => {
            let h = f16_bits(v);
            format!("0x{:08X}", u32::from(h) << 16 | u32::from(h))
        }
        GpuType::Bf16 => {
            let b = ((v as f32).to_bits() >> 16) as u16;
            format!("0x{:08X}", u32::from(b) << 16 | u32::from(b))
        }
        GpuType::Int32 | GpuType::Int8 | GpuType::Fp8 => format!("{}", (v * 1024.0) as u32 | 1),
    }
}

/// IEEE half bits of a normal `v` in [2^-14, 2) (truncated).
fn f16_bits(v: f64) -> u16 {
    let b = (v as f32).to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    ((exp.clamp(1, 30) as u16) << 10) | ((b >> 13) & 0x3ff) as u16
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
        // A warp's mma.sync m16n8k16 is 4096 flops: 128 a thread, 16 of them a trip.
        let mma = named("mma_bf16").unwrap();
        assert!(matches!(mma.role, Role::Compute { ops_per_trip, .. } if ops_per_trip == 2048.0));
        // A warpgroup's wgmma m64n256k16 is 524,288 flops: 4096 a thread, 8 of them a trip.
        let wg = named("wgmma_bf16").unwrap();
        assert!(matches!(wg.role, Role::Compute { ops_per_trip, .. } if ops_per_trip == 32768.0));
        assert_eq!(wg.sass, vec![("HGMMA.64x256x16.F32.BF16".to_string(), 8)]);
    }

    #[test]
    fn the_ptx_holds_every_chain_step_and_no_placeholder() {
        for k in all() {
            let ptx = k.ptx("sm_90");
            let code: String = ptx
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            assert!(!code.contains("${"), "{}: {}", k.name, ptx);
            assert!(!code.contains("<a>") && !code.contains("<c>"), "{}", k.name);
            assert!(ptx.contains(&format!(".entry {}(", k.name)));
        }
        let ptx = named("fma_dp").unwrap().ptx("sm_80");
        assert_eq!(ptx.matches("fma.rn.f64 %a3, %a3, %k0, %k1;").count(), 32);
        assert!(ptx.contains(".target sm_80"));
        let ptx = named("add_int32").unwrap().ptx("sm_80");
        assert!(ptx.contains("add.u32 %a7, %a7, %a0;"));
    }

    #[test]
    fn constants_are_the_types_own_bits() {
        assert_eq!(constant(GpuType::Fp64, 1.0), "0d3FF0000000000000");
        assert_eq!(constant(GpuType::Fp32, 1.0), "0f3F800000");
        assert_eq!(constant(GpuType::Fp16, 1.0), "0x3C003C00");
        assert_eq!(constant(GpuType::Bf16, 1.0), "0x3F803F80");
        assert_eq!(constant(GpuType::Fp16, 0.000_976_562_5), "0x14001400");
        assert!(!named("add_bf16").unwrap().runs_on("sm_80"));
        assert!(named("add_bf16").unwrap().runs_on("sm_90"));
    }
}
