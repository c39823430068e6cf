//! Measurement: the core-clock probe, the statistics of samples and the
//! time a hypervisor took from the CPUs.

pub mod clock;
pub mod interrupt;
pub mod runner;
pub mod stats;
pub mod steal;
