//! carmbench: the Cache-aware Roofline Model of the machine it runs on.
//!
//! The pipeline, one module per stage ([`arch`] holds what differs between
//! x86-64 and AArch64):
//! - [`machine`]: what this machine is: topology from hwloc, memory levels,
//!   buffer sizes per level, ISA, CPUID;
//! - [`kernels`]: the assembly kernels, declared once in `asm/`;
//! - [`config`]: the plan (what to measure) and the theoretical limits;
//! - [`measure`]: pinned threads at a barrier behind the [`measure::bench::Bench`]
//!   trait, the clock, statistics, steal, the core guard, the campaign loop;
//! - [`roofs`]: planning, measuring and judging the roofs of `carmbench run`;
//! - [`validate`]: variable-intensity sweeps against the roofs;
//! - [`run`]: `carmbench run` end to end: plan, roofs, validation, saved;
//! - [`results`]: the versioned results document and the apps file;
//! - [`roofline`]: the model's arithmetic, shared by everything below;
//! - [`chart`], [`compare`], [`profile`], [`report`]: what reads the results;
//! - [`fleet`]: every node of a cluster through Slurm, judged against its peers;
//! - [`output`]: tables and documents as text, YAML, JSON, CSV, Markdown, HTML;
//! - [`cli`], [`commands`]: argument parsing and the subcommands;
//! - [`error`], [`units`], [`files`]: one error type; byte counts as text;
//!   reading inputs and writing outputs under one set of rules.

pub mod arch;
pub mod chart;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod config;
pub mod error;
pub mod files;
pub mod fleet;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod gpu;
pub mod kernels;
pub mod machine;
pub mod measure;
pub mod output;
pub mod profile;
pub mod report;
pub mod results;
pub mod roofline;
pub mod roofs;
pub mod run;
pub mod units;
pub mod validate;

/// The results fixture the unit tests share (a Zen 5 with AVX-512).
#[cfg(test)]
pub(crate) fn fixture() -> results::Document {
    results::parse(
        include_str!("../tests/fixtures/zen5-avx512.yaml"),
        "tests/fixtures/zen5-avx512.yaml",
    )
    .expect("the fixture parses")
}

pub use carmbench_regions::{self as regions, Region};
pub use error::{Error, Result};
