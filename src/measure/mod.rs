//! Measurement: the core-clock probe and the statistics of samples.

pub mod clock;
pub mod interrupt;
pub mod runner;
pub mod stats;
