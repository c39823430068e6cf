//! carmbench: the Cache-aware Roofline Model of the machine it runs on.
//!
//! Pipeline, one folder per stage:
//! - [`topology`]: hwloc → machine description → per-level buffer ranges;
//! - [`isa`]: what the CPU can run;
//! - [`measure`]: clock probe, statistics (and the benchmark runner);
//! - [`commands`]: the subcommands, each reading or writing results;
//! - [`output`]: formats for people and for programs.

pub mod chart;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod config;
pub mod error;
pub mod isa;
pub mod kernels;
pub mod measure;
pub mod output;
pub mod profile;
pub mod results;
pub mod topology;
pub mod validate;

pub use carmbench_regions::{self as regions, Region};
pub use error::{Error, Result};
