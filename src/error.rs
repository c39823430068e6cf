//! One error type for the whole tool.
//!
//! Every error a user can cause (bad flag, bad file, a level the machine does
//! not have...) is an [`Error::Input`]: the binary prints it on one line and
//! exits with status 2. [`Error::Io`] covers failures writing results.

use std::fmt;

/// What went wrong, in words a user can act on.
#[derive(Debug)]
pub enum Error {
    /// The user's input (flags, files, plan) is wrong: exit status 2.
    Input(String),
    /// Something outside the user's input failed (I/O, the OS, hwloc).
    Io(String),
    /// The user stopped a run (Ctrl-C); what was measured is saved.
    Interrupted(String),
}

impl Error {
    /// Convenience constructor for input errors.
    pub fn input(msg: impl Into<String>) -> Self {
        Error::Input(msg.into())
    }
    /// Exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => 2,
            Error::Io(_) => 1,
            Error::Interrupted(_) => 130,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(m) | Error::Io(m) | Error::Interrupted(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;
