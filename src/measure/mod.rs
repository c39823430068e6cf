//! Measurement: the core-clock probe, the statistics of samples, the
//! time a hypervisor took from the CPUs and whether threads share a core.

pub mod clock;
pub mod interrupt;
pub mod runner;
pub mod sharing;
pub mod stats;
pub mod steal;
