//! AArch64: HWCAP features (through `is_aarch64_feature_detected!`), MIDR_EL1
//! for the CPU's identity, `cntb` for the SVE vector length, the generic
//! timer.

use super::{CpuId, Isa};
use std::sync::OnceLock;

/// The ISA families with kernels on this architecture, narrowest first.
pub const ISAS: &[Isa] = &[Isa::Scalar, Isa::Neon, Isa::Sve];

/// Features `carmbench topology` reports.
pub const FEATURES: &[&str] = &[
    "fp", "asimd", "sve", "sve2", "dotprod", "fp16", "bf16", "i8mm", "svebf16", "svei8mm",
];

/// The fixed-rate counter reported beside the core clock.
pub const COUNTER: &str = "generic timer";

/// CPU features a family needs.
pub fn required_features(isa: Isa) -> &'static [&'static str] {
    match isa {
        Isa::Scalar | Isa::Neon => &["asimd"],
        Isa::Sve => &["sve"],
        Isa::Sse | Isa::Avx2 | Isa::Avx512 => &["sse2 (an x86-64 CPU)"],
    }
}

/// FMA (`fmla`, `fmadd`) is in every AArch64 FP unit.
pub const FMA_FEATURE: Option<&str> = None;

/// Whether this CPU has a named feature.
pub fn has_feature(name: &str) -> bool {
    match name {
        "fp" => std::arch::is_aarch64_feature_detected!("fp"),
        "asimd" => std::arch::is_aarch64_feature_detected!("neon"),
        "sve" => std::arch::is_aarch64_feature_detected!("sve"),
        "sve2" => std::arch::is_aarch64_feature_detected!("sve2"),
        "dotprod" => std::arch::is_aarch64_feature_detected!("dotprod"),
        "fp16" => std::arch::is_aarch64_feature_detected!("fp16"),
        "bf16" => std::arch::is_aarch64_feature_detected!("bf16"),
        "i8mm" => std::arch::is_aarch64_feature_detected!("i8mm"),
        // The SVE forms of BF16 and I8MM have HWCAP2 bits of their own (Linux
        // arch/arm64/include/uapi/asm/hwcap.h): a CPU may have SVE and the
        // Advanced SIMD forms without them.
        "svebf16" => hwcap2() & HWCAP2_SVEBF16 != 0,
        "svei8mm" => hwcap2() & HWCAP2_SVEI8MM != 0,
        _ => false,
    }
}

const HWCAP2_SVEI8MM: u64 = 1 << 9;
const HWCAP2_SVEBF16: u64 = 1 << 12;

fn hwcap2() -> u64 {
    // SAFETY: getauxval reads the process's auxiliary vector.
    unsafe { libc::getauxval(libc::AT_HWCAP2) }
}

/// x86-64's CPUID feature words: none here.
pub fn feature_words() -> [u32; super::FEATURE_WORDS.len()] {
    [0; super::FEATURE_WORDS.len()]
}

/// x86-64's stepping: none here.
pub fn stepping() -> u32 {
    0
}

/// x86-64's brand string: none here (the MIDR names the CPU).
pub fn brand() -> String {
    String::new()
}

/// Bytes of an SVE vector on this CPU (0 without SVE), read once.
pub fn sve_bytes() -> u32 {
    static VL: OnceLock<u32> = OnceLock::new();
    *VL.get_or_init(|| {
        if has_feature("sve") {
            // SAFETY: the CPU has SVE.
            unsafe { cntb() }
        } else {
            0
        }
    })
}

#[target_feature(enable = "sve")]
unsafe fn cntb() -> u32 {
    let n: u64;
    // SAFETY: register only; the caller checked for SVE.
    unsafe {
        core::arch::asm!("cntb {}", out(reg) n, options(nomem, nostack, pure));
    }
    n as u32
}

/// This CPU's identity from MIDR_EL1 (the kernel emulates the read at EL0):
/// vendor "ARM" for implementer 0x41, family the implementer code, model
/// the part number (Neoverse N1 0xd0c, V1 0xd40, N2 0xd49, V2 0xd4f).
pub fn cpu_id() -> CpuId {
    // HWCAP_CPUID: Linux emulates MRS of the ID registers at EL0.
    const HWCAP_CPUID: u64 = 1 << 11;
    // SAFETY: getauxval reads the process's auxiliary vector.
    let hwcap = unsafe { libc::getauxval(libc::AT_HWCAP) };
    let midr = if hwcap & HWCAP_CPUID != 0 {
        let v: u64;
        // SAFETY: reading MIDR_EL1 at EL0 is emulated by Linux with HWCAP_CPUID.
        unsafe {
            core::arch::asm!("mrs {}, midr_el1", out(reg) v, options(nomem, nostack));
        }
        v
    } else {
        std::fs::read_to_string("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1")
            .ok()
            .and_then(|s| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok())
            .unwrap_or(0)
    };
    let implementer = ((midr >> 24) & 0xFF) as u32;
    let part = ((midr >> 4) & 0xFFF) as u32;
    let vendor = match implementer {
        0x41 => "ARM",
        0x61 => "Apple",
        0xC0 => "Ampere",
        0x48 => "HiSilicon",
        0x4E => "NVIDIA",
        0x51 => "Qualcomm",
        _ => "unknown",
    };
    CpuId {
        vendor: vendor.to_string(),
        family: implementer,
        model: part,
    }
}

/// Run `iters` × 128 dependent scalar adds: one cycle each on every Arm
/// core known.
#[inline(never)]
pub fn add_chain(iters: u64) {
    let iters = iters.max(1);
    // SAFETY: register-only arithmetic; no memory, no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            ".rept 128",
            "add {acc}, {acc}, {one}",
            ".endr",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            acc = inout(reg) 0u64 => _,
            one = in(reg) 1u64,
            n = inout(reg) iters => _,
            options(nostack, nomem),
        );
    }
}

/// The generic timer's rate, GHz (CNTFRQ_EL0: the rate it is set to).
pub fn counter_ghz(_span: std::time::Duration) -> f64 {
    let f: u64;
    // SAFETY: CNTFRQ_EL0 is readable at EL0 on Linux.
    unsafe {
        core::arch::asm!("mrs {}, cntfrq_el0", out(reg) f, options(nomem, nostack));
    }
    f as f64 / 1e9
}
