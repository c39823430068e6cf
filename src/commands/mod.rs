//! The subcommands.

pub mod kernel;
pub mod plot;
pub mod profile;
pub mod run;
pub mod topology;
pub mod validate;
