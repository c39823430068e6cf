//! The ground every step stands on: the functions of a run's files
//! ([`symbols`]), the language runtimes told apart from user code
//! ([`runtime`]), and what could not be counted or placed ([`warnings`]).

pub mod runtime;
pub mod symbols;
pub mod warnings;
