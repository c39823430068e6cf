//! The subcommands.

pub mod kernel;
pub mod plot;
pub mod run;
pub mod topology;
pub mod validate;
