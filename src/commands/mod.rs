//! The subcommands.

pub mod kernel;
pub mod run;
pub mod topology;
