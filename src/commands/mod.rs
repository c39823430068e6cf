//! The subcommands.

pub mod compare;
pub mod kernel;
pub mod plot;
pub mod predict;
pub mod profile;
pub mod run;
pub mod topology;
pub mod validate;
