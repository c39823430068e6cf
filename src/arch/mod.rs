//! What differs between the architectures carmbench runs on, behind one
//! dispatch point: which CPU this is, which features it has, which ISA
//! families have kernels here, the core-clock probe and the fixed-rate
//! counter. The kernels themselves are in `asm/<arch>/`. A third
//! architecture is one more file here and one more folder there.
//!
//! The vocabulary every layer above shares is defined here, at the bottom:
//! the ISA families ([`Isa`]) and a CPU's identity ([`CpuId`]).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86_64;

#[cfg(target_arch = "aarch64")]
pub use aarch64::*;
#[cfg(target_arch = "x86_64")]
pub use x86_64::*;

/// A register CPUID answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    /// EAX.
    Eax,
    /// EBX.
    Ebx,
    /// ECX.
    Ecx,
    /// EDX.
    Edx,
}

/// The x86-64 CPUID words that hold feature flags: (leaf, subleaf,
/// register). Leaf 1, leaf 7 and its subleaf 1, extended leaf 0x80000001,
/// and XSAVE's subleaf 1 of leaf 0xD.
pub const FEATURE_WORDS: [(u32, u32, Reg); 9] = [
    (1, 0, Reg::Ecx),
    (1, 0, Reg::Edx),
    (7, 0, Reg::Ebx),
    (7, 0, Reg::Ecx),
    (7, 0, Reg::Edx),
    (7, 1, Reg::Eax),
    (0x8000_0001, 0, Reg::Ecx),
    (0x8000_0001, 0, Reg::Edx),
    (0xD, 1, Reg::Eax),
];

/// Instruction-set families carmbench has kernels for, narrowest first on
/// each architecture (x86-64: scalar to AVX-512; AArch64: scalar, NEON, SVE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Isa {
    /// Scalar FP (8-byte accesses, one lane): SSE2 on x86-64.
    Scalar,
    /// 128-bit SSE2.
    Sse,
    /// 256-bit AVX2 (with FMA3 for FMA kernels).
    Avx2,
    /// 512-bit AVX-512F.
    Avx512,
    /// 128-bit AArch64 Advanced SIMD.
    Neon,
    /// AArch64 SVE, at the vector length of the CPU (128 to 2048 bits).
    Sve,
}

impl Isa {
    /// All families.
    pub const ALL: [Isa; 6] = [
        Isa::Scalar,
        Isa::Sse,
        Isa::Avx2,
        Isa::Avx512,
        Isa::Neon,
        Isa::Sve,
    ];

    /// The families with kernels on this architecture, narrowest first.
    pub fn native() -> &'static [Isa] {
        ISAS
    }

    /// Name used on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Sse => "sse",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Neon => "neon",
            Isa::Sve => "sve",
        }
    }

    /// Vector width in bytes of one access (SVE: this CPU's vector length,
    /// 0 without SVE).
    pub fn width_bytes(self) -> u32 {
        match self {
            Isa::Scalar => 8,
            Isa::Sse | Isa::Neon => 16,
            Isa::Avx2 => 32,
            Isa::Avx512 => 64,
            Isa::Sve => sve_bytes(),
        }
    }

    /// CPU features the family needs on this architecture.
    pub fn required_features(self) -> &'static [&'static str] {
        required_features(self)
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Isa {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Isa::ALL
            .into_iter()
            .find(|i| i.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "unknown ISA '{s}'; known: {}",
                    Isa::ALL.map(|i| i.name()).join(", ")
                )
            })
    }
}

/// CPUID identity of a CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuId {
    /// Vendor string, e.g. "AuthenticAMD", "ARM".
    pub vendor: String,
    /// Family (base + extended).
    pub family: u32,
    /// Model (with extended model).
    pub model: u32,
}
