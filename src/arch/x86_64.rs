//! x86-64: CPUID, `is_x86_feature_detected!`, the TSC.

use super::{CpuId, Isa};

/// The ISA families with kernels on this architecture, narrowest first.
pub const ISAS: &[Isa] = &[Isa::Scalar, Isa::Sse, Isa::Avx2, Isa::Avx512];

/// Features `carmbench topology` reports.
pub const FEATURES: &[&str] = &[
    "sse2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512vl",
    "avx512dq",
    "avx512bw",
    "avx512vnni",
    "avx512bf16",
    "avx512fp16",
    "avxvnni",
];

/// The fixed-rate counter reported beside the core clock.
pub const COUNTER: &str = "TSC";

/// CPU features (`is_x86_feature_detected!` names) a family needs.
pub fn required_features(isa: Isa) -> &'static [&'static str] {
    match isa {
        Isa::Scalar | Isa::Sse => &["sse2"],
        Isa::Avx2 => &["avx2"],
        Isa::Avx512 => &["avx512f"],
        Isa::Neon | Isa::Sve => &["neon (an AArch64 CPU)"],
    }
}

/// The feature an FMA kernel needs beside its family's.
pub const FMA_FEATURE: Option<&str> = Some("fma");

/// Whether this CPU has a named feature.
pub fn has_feature(name: &str) -> bool {
    match name {
        "sse2" => std::arch::is_x86_feature_detected!("sse2"),
        "avx" => std::arch::is_x86_feature_detected!("avx"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "fma" => std::arch::is_x86_feature_detected!("fma"),
        "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
        "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
        "avx512dq" => std::arch::is_x86_feature_detected!("avx512dq"),
        "avx512bw" => std::arch::is_x86_feature_detected!("avx512bw"),
        "avx512vnni" => std::arch::is_x86_feature_detected!("avx512vnni"),
        "avx512bf16" => std::arch::is_x86_feature_detected!("avx512bf16"),
        "avx512fp16" => std::arch::is_x86_feature_detected!("avx512fp16"),
        "avxvnni" => std::arch::is_x86_feature_detected!("avxvnni"),
        _ => false,
    }
}

/// Bytes of an SVE vector: none here.
pub fn sve_bytes() -> u32 {
    0
}

/// This CPU's CPUID identity: vendor string, family and model.
pub fn cpu_id() -> CpuId {
    use core::arch::x86_64::__cpuid;
    // CPUID leaves 0 and 1 exist on every x86-64 CPU.
    let l0 = __cpuid(0);
    let mut v = Vec::with_capacity(12);
    for r in [l0.ebx, l0.edx, l0.ecx] {
        v.extend_from_slice(&r.to_le_bytes());
    }
    let l1 = __cpuid(1);
    let base_family = (l1.eax >> 8) & 0xF;
    let ext_family = (l1.eax >> 20) & 0xFF;
    let base_model = (l1.eax >> 4) & 0xF;
    let ext_model = (l1.eax >> 16) & 0xF;
    let family = if base_family == 0xF {
        base_family + ext_family
    } else {
        base_family
    };
    let model = if base_family == 0xF || base_family == 6 {
        (ext_model << 4) | base_model
    } else {
        base_model
    };
    CpuId {
        vendor: String::from_utf8_lossy(&v).into_owned(),
        family,
        model,
    }
}

/// The CPUID words that hold feature flags, in [`super::FEATURE_WORDS`]
/// order; a leaf beyond the CPU's highest reads as zeros.
pub fn feature_words() -> [u32; super::FEATURE_WORDS.len()] {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    let basic = __cpuid(0).eax;
    let extended = __cpuid(0x8000_0000).eax;
    super::FEATURE_WORDS.map(|(leaf, sub, reg)| {
        let top = if leaf >= 0x8000_0000 { extended } else { basic };
        if leaf > top {
            return 0;
        }
        let r = __cpuid_count(leaf, sub);
        match reg {
            super::Reg::Eax => r.eax,
            super::Reg::Ebx => r.ebx,
            super::Reg::Ecx => r.ecx,
            super::Reg::Edx => r.edx,
        }
    })
}

/// This CPU's stepping (CPUID leaf 1).
pub fn stepping() -> u32 {
    core::arch::x86_64::__cpuid(1).eax & 0xF
}

/// This CPU's brand string (CPUID leaves 0x80000002-4), trimmed.
pub fn brand() -> String {
    use core::arch::x86_64::__cpuid;
    if __cpuid(0x8000_0000).eax < 0x8000_0004 {
        return String::new();
    }
    let mut b = Vec::with_capacity(48);
    for leaf in 0x8000_0002..=0x8000_0004 {
        let r = __cpuid(leaf);
        for x in [r.eax, r.ebx, r.ecx, r.edx] {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).trim().to_string()
}

/// Run `iters` × 128 dependent scalar adds: one cycle each on every x86-64
/// core known (vector adds are not: `vpaddq zmm` takes two on Zen 5).
#[inline(never)]
pub fn add_chain(iters: u64) {
    let iters = iters.max(1);
    // SAFETY: register-only arithmetic; no memory, no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            ".rept 128",
            "add {acc}, {one}",
            ".endr",
            "dec {n}",
            "jnz 2b",
            acc = inout(reg) 0u64 => _,
            one = in(reg) 1u64,
            n = inout(reg) iters => _,
            options(nostack, nomem),
        );
    }
}

/// The TSC's rate, GHz, measured against the monotonic clock over `span`.
pub fn counter_ghz(span: std::time::Duration) -> f64 {
    // SAFETY: rdtsc is available on every x86-64 CPU.
    let r0 = unsafe { core::arch::x86_64::_rdtsc() };
    let t0 = std::time::Instant::now();
    while t0.elapsed() < span {
        std::hint::spin_loop();
    }
    let r1 = unsafe { core::arch::x86_64::_rdtsc() };
    (r1 - r0) as f64 / t0.elapsed().as_secs_f64() / 1e9
}
