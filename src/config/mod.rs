//! Configuration: the benchmark plan and the theoretical limits, both kept
//! as YAML in `configs/` and embedded in the binary.

pub mod limits;
pub mod plan;

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;

/// Parse YAML, turning serde's error into one line that says where.
pub fn parse_yaml<T: DeserializeOwned>(text: &str, what: &str) -> Result<T> {
    serde_yaml::from_str(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(" at line {} column {}", l.line(), l.column()))
            .unwrap_or_default();
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        Error::input(format!("{what} is malformed{at}: {msg}"))
    })
}
