//! The GPU: its vocabulary (levels, accesses, types, instructions), the
//! kernels declared in `asm/ptx/` ([`kernels`]), the CUDA driver loaded at
//! run time ([`driver`]: what each device is, a launch timed as a sample),
//! the reading of the machine code the kernels become ([`sass`]) and of
//! Nsight Compute's output ([`ncu`]). Nothing outside this module names CUDA.

use serde::{Deserialize, Serialize};
use std::fmt;

pub mod bench;
pub mod driver;
pub mod kernels;
pub mod model;
pub mod ncu;
pub mod ptx;
pub mod sass;

macro_rules! words {
    ($t:ident { $($v:ident => $s:literal),* $(,)? }) => {
        impl $t {
            /// Every value.
            pub const ALL: &'static [$t] = &[$($t::$v),*];
            /// Name in results and declarations.
            pub fn name(self) -> &'static str { match self { $($t::$v => $s),* } }
            /// Parse a name (any case), or list the known ones.
            pub fn parse(s: &str) -> Result<Self, String> {
                Self::ALL.iter().copied().find(|x| x.name().eq_ignore_ascii_case(s.trim())).ok_or_else(|| {
                    format!("unknown {} '{s}'; known: {}", stringify!($t),
                        Self::ALL.iter().map(|x| x.name()).collect::<Vec<_>>().join(", "))
                })
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.pad(self.name()) }
        }
    };
}

/// A GPU's memory level, nearest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum GpuLevel {
    /// Shared memory, per SM.
    #[serde(rename = "shared")]
    Shared,
    /// The L1 data cache, per SM.
    L1,
    /// The L2 cache, shared by every SM.
    L2,
    /// Device memory (HBM or GDDR).
    #[serde(rename = "HBM")]
    Hbm,
}
words!(GpuLevel { Shared => "shared", L1 => "L1", L2 => "L2", Hbm => "HBM" });

/// What a memory kernel does with each vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuMix {
    /// Loads only.
    Load,
    /// Stores only.
    Store,
    /// A load and a store of each vector (both counted).
    Copy,
}
words!(GpuMix { Load => "load", Store => "store", Copy => "copy" });

/// The data type of a compute kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuType {
    /// 64-bit double.
    Fp64,
    /// 32-bit single.
    Fp32,
    /// IEEE half, two to a register on the CUDA cores.
    Fp16,
    /// bfloat16, two to a register on the CUDA cores.
    Bf16,
    /// TensorFloat-32 (tensor cores).
    Tf32,
    /// 8-bit floats (tensor cores).
    Fp8,
    /// 32-bit integers.
    Int32,
    /// 8-bit integers (tensor cores).
    Int8,
}
words!(GpuType { Fp64 => "fp64", Fp32 => "fp32", Fp16 => "fp16", Bf16 => "bf16", Tf32 => "tf32", Fp8 => "fp8", Int32 => "int32", Int8 => "int8" });

impl GpuType {
    /// Whether its work is integer operations (GOP/s), not flops.
    pub fn is_integer(self) -> bool {
        matches!(self, GpuType::Int32 | GpuType::Int8)
    }
}

/// The instruction of a compute kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuOp {
    /// Fused multiply-add.
    Fma,
    /// Addition.
    Add,
    /// Multiplication.
    Mul,
    /// Integer multiply-add (Konstantinidis's T_int).
    Mad,
    /// A warp's matrix multiply-accumulate on the tensor cores (`mma.sync`).
    Mma,
    /// A warpgroup's asynchronous matrix multiply-accumulate (`wgmma`, sm_90a).
    Wgmma,
}
words!(GpuOp { Fma => "fma", Add => "add", Mul => "mul", Mad => "mad", Mma => "mma", Wgmma => "wgmma" });

impl GpuOp {
    /// Whether it runs on the tensor cores.
    pub fn is_tensor(self) -> bool {
        matches!(self, GpuOp::Mma | GpuOp::Wgmma)
    }
}

/// A compute capability, as the driver gives it: 9.0 is `{ major: 9, minor: 0 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Capability {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl Capability {
    /// Its `sm_XY` name.
    pub fn sm(self) -> String {
        format!("sm_{}{}", self.major, self.minor)
    }
    /// Parse `sm_90`, `sm_90a` or `9.0`.
    pub fn parse(s: &str) -> Option<Capability> {
        let t = s.trim();
        if let Some(d) = t.strip_prefix("sm_") {
            let d = d.trim_end_matches('a');
            let n: u32 = d.parse().ok()?;
            return Some(Capability {
                major: n / 10,
                minor: n % 10,
            });
        }
        let (a, b) = t.split_once('.')?;
        Some(Capability {
            major: a.parse().ok()?,
            minor: b.parse().ok()?,
        })
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// What a GPU is: from the driver, once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuInfo {
    /// Its ordinal among the driver's devices.
    pub index: usize,
    /// Marketing name.
    pub name: String,
    /// Compute capability.
    pub capability: Capability,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// The highest SM clock the driver reports, MHz (the measured clock is
    /// the roofs').
    pub clock_mhz: f64,
    /// L2 cache, bytes.
    pub l2_bytes: u64,
    /// Shared memory an SM has, bytes.
    pub shared_per_sm: u64,
    /// Device memory, bytes.
    pub memory_bytes: u64,
    /// Memory bus width, bits.
    pub bus_bits: u32,
    /// Memory clock, MHz (data moves twice a clock).
    pub memory_clock_mhz: f64,
    /// Driver version, as "13.0".
    pub driver: String,
}

impl GpuInfo {
    /// An H100 SXM as its driver describes it, for tests.
    #[cfg(test)]
    pub(crate) fn h100() -> GpuInfo {
        GpuInfo {
            index: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            capability: Capability { major: 9, minor: 0 },
            sms: 132,
            clock_mhz: 1980.0,
            l2_bytes: 50 << 20,
            shared_per_sm: 228 << 10,
            memory_bytes: 80 << 30,
            bus_bits: 5120,
            memory_clock_mhz: 2619.0,
            driver: "13.0".into(),
        }
    }

    /// The memory's bandwidth by its specification, GB/s: bus width x
    /// memory clock x 2 (double data rate).
    pub fn spec_gb_per_s(&self) -> f64 {
        f64::from(self.bus_bits) / 8.0 * self.memory_clock_mhz * 2.0 / 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_h100s_spec_bandwidth_follows_from_its_bus_and_clock() {
        let g = GpuInfo::h100();
        assert!(
            (g.spec_gb_per_s() - 3352.3).abs() < 0.1,
            "{}",
            g.spec_gb_per_s()
        );
    }

    #[test]
    fn capabilities_read_as_the_driver_and_ptxas_write_them() {
        let c = Capability { major: 9, minor: 0 };
        assert_eq!(Capability::parse("sm_90a"), Some(c));
        assert_eq!(Capability::parse("9.0"), Some(c));
        assert_eq!(c.sm(), "sm_90");
        assert_eq!(Capability::parse("sm_x"), None);
        assert_eq!(GpuLevel::parse("hbm"), Ok(GpuLevel::Hbm));
        assert!(GpuOp::parse("dot").unwrap_err().contains("wgmma"));
    }
}
