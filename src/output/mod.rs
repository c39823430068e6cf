//! Output formats shared by the subcommands.

use crate::error::{Error, Result};
use clap::ValueEnum;
use serde::Serialize;

/// How a subcommand prints its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text with units.
    Text,
    /// YAML document.
    Yaml,
    /// JSON document.
    Json,
}

/// Serialize a document as YAML or JSON text.
pub fn to_string<T: Serialize>(doc: &T, format: Format) -> Result<String> {
    match format {
        Format::Json => serde_json::to_string_pretty(doc)
            .map(|s| s + "\n")
            .map_err(|e| Error::Io(format!("cannot encode JSON: {e}"))),
        Format::Yaml | Format::Text => {
            serde_yaml::to_string(doc).map_err(|e| Error::Io(format!("cannot encode YAML: {e}")))
        }
    }
}

/// GHz with two decimals.
pub fn ghz(x: f64) -> String {
    format!("{x:.2} GHz")
}
