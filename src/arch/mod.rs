//! What differs between the architectures carmbench runs on, behind one
//! dispatch point: which CPU this is, which features it has, which ISA
//! families have kernels here, the core-clock probe and the fixed-rate
//! counter. The kernels themselves are in `asm/<arch>/`. A third
//! architecture is one more file here and one more folder there.

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86_64;

#[cfg(target_arch = "aarch64")]
pub use aarch64::*;
#[cfg(target_arch = "x86_64")]
pub use x86_64::*;
