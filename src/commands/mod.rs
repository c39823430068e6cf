//! The subcommands.

pub mod topology;
pub mod kernel;
