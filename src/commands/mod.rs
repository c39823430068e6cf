//! The subcommands.

pub mod topology;
