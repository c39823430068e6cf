//! The GPU kernels against their machine code, without a GPU: each kernel's
//! PTX assembled by `ptxas` for sm_80 and sm_90, disassembled by `nvdisasm`,
//! and its loop's instructions counted against its declaration
//! (`asm/ptx/`). A declaration the SASS disagrees with fails here.

mod common;
use common::parts::{Part, cuda_tool};

use carmbench::gpu::kernels::{self, GpuKernel, Role};
use carmbench::gpu::sass;
use std::process::{Command, ExitCode};

/// The opcodes of `k`'s innermost loop, assembled for `sm`.
fn loop_of(k: &GpuKernel, sm: &str) -> Vec<String> {
    let dir = common::tmpdir(&format!("sass-{}-{sm}", k.name));
    let ptx = dir.join(format!("{}.ptx", k.name));
    let cubin = dir.join(format!("{}.cubin", k.name));
    std::fs::write(&ptx, k.ptx(sm)).unwrap();
    let arch = if k.target.ends_with('a') {
        k.target.clone()
    } else {
        sm.to_string()
    };
    let out = Command::new(cuda_tool("ptxas").unwrap())
        .arg(format!("-arch={arch}"))
        .arg("-o")
        .arg(&cubin)
        .arg(&ptx)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ptxas {} for {arch}: {}",
        k.name,
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(cuda_tool("nvdisasm").unwrap())
        .arg("-c")
        .arg(&cubin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "nvdisasm {}: {}",
        k.name,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    sass::innermost_loop(&text).unwrap_or_else(|| panic!("{} for {sm}: no loop in\n{text}", k.name))
}

/// Every kernel; the validation kernels at a few FMA counts (fewer FMAs
/// than loaded values, and many more).
fn instances() -> Vec<GpuKernel> {
    kernels::all()
        .into_iter()
        .flat_map(|k| match k.role {
            Role::Validation { .. } => [2, 64, 1024].map(|f| k.with_fmas(f)).to_vec(),
            _ => vec![k],
        })
        .collect()
}

fn every_kernel_is_the_machine_code_it_declares() {
    let mut wrong = Vec::new();
    for k in instances() {
        for sm in ["sm_80", "sm_90"].into_iter().filter(|sm| k.runs_on(sm)) {
            let ops = loop_of(&k, sm);
            wrong.extend(
                sass::disagreements(&k, &ops)
                    .into_iter()
                    .map(|w| format!("{sm} {w}\n    {}", ops.join(" "))),
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "declarations the SASS disagrees with:\n{}",
        wrong.join("\n")
    );
}

fn a_declaration_off_by_one_instruction_is_caught() {
    for name in ["fma_sp", "hbm_copy", "mma_bf16", "validate_l2_fp64"] {
        let mut k = kernels::named(name).unwrap().with_fmas(16);
        let ops = loop_of(&k, "sm_90");
        assert!(sass::disagreements(&k, &ops).is_empty(), "{name}");
        k.sass[0].1 += 1;
        let w = sass::disagreements(&k, &ops);
        assert_eq!(w.len(), 1, "{name}: {w:?}");
        assert!(w[0].contains("declared a trip"), "{w:?}");
    }
}

fn main() -> ExitCode {
    common::parts::main(tests![
        (Part::CudaTools) every_kernel_is_the_machine_code_it_declares,
        (Part::CudaTools) a_declaration_off_by_one_instruction_is_caught,
    ])
}
