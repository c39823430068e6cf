//! Measurement: the core-clock probe and the statistics of samples.

pub mod clock;
pub mod stats;
pub mod runner;
