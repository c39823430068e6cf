//! Each GPU kernel's PTX, made from its file's template (`asm/ptx/`): the
//! name and target put in, and the body the declaration describes written
//! out (chains and steps, a walk's loads and stores, a validation kernel's
//! FMAs), so that the driver compiles for the device it runs on.

use super::kernels::{CHAINS, GpuKernel, MEMORY_BLOCK, Role, VECTOR};
use super::{GpuLevel, GpuMix, GpuType};

impl GpuKernel {
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

    fn validation_parts(&self) -> Vec<(&'static str, String)> {
        let Role::Validation {
            level,
            ty,
            block_local,
            unroll,
            fmas,
            ..
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
    use crate::gpu::kernels::{all, named};

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
