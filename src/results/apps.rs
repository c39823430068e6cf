//! Application points: an application's work W (flops), traffic Q (bytes
//! requested by the core) and time T, placed on the chart at AI = W/Q and
//! performance W/T. Written by `carmbench profile` or by hand.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version of the apps file layout.
pub const APPS_SCHEMA: u32 = 1;

/// One application (or region of one).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AppPoint {
    /// Name shown on the chart.
    pub name: String,
    /// Floating-point operations (an FMA counts two).
    pub flops: f64,
    /// Bytes requested by the core (loads and stores × their width).
    pub bytes: f64,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Threads the application ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Flops done by FMA instructions, when the counts separate them
    /// (adjusts the attainable peak in `carmbench predict`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fma_flops: Option<f64>,
    /// Where the counts came from ("perf", "manual", "emulation, qemu 7.2,
    /// x86-64-v3", ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The instruction mix behind the counts, when they were counted
    /// instruction by instruction (emulation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<InstructionMix>,
}

/// What an application's flops and bytes were made of.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstructionMix {
    /// Double-precision flops.
    pub dp_flops: f64,
    /// Single-precision flops.
    pub sp_flops: f64,
    /// Flops done by FMA instructions (both precisions).
    pub fma_flops: f64,
    /// Flops of other FP instructions.
    pub other_flops: f64,
    /// FP arithmetic instructions on one element.
    pub fp_scalar: f64,
    /// On 128-bit vectors.
    pub fp_128: f64,
    /// On 256-bit vectors.
    pub fp_256: f64,
    /// On 512-bit vectors.
    pub fp_512: f64,
    /// x87 arithmetic instructions (not in the flops: the PMUs' FP events
    /// leave them out).
    pub x87: f64,
    /// Bytes loaded.
    pub bytes_loaded: f64,
    /// Bytes stored.
    pub bytes_stored: f64,
    /// Memory reads.
    pub loads: f64,
    /// Memory writes.
    pub stores: f64,
    /// Instructions executed.
    pub instructions: f64,
}

impl AppPoint {
    /// Arithmetic intensity, flop/byte.
    pub fn ai(&self) -> f64 {
        self.flops / self.bytes
    }
    /// Performance, GFLOP/s.
    pub fn gflop_per_s(&self) -> f64 {
        self.flops / self.seconds / 1e9
    }
}

/// An apps file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AppsFile {
    /// Layout version: [`APPS_SCHEMA`].
    pub schema: u32,
    /// The points.
    pub applications: Vec<AppPoint>,
}

/// Load and check an apps file ([`super::check::apps`]).
pub fn load(path: &Path) -> Result<AppsFile> {
    let what = format!("apps file '{}'", path.display());
    parse(&crate::files::read_input(path, &what)?, &what)
}

/// An apps file from its text; `doc` names it in errors.
pub fn parse(text: &str, doc: &str) -> Result<AppsFile> {
    let f: AppsFile = crate::config::parse_yaml(text, doc)?;
    if f.schema != APPS_SCHEMA {
        return Err(Error::input(format!(
            "{doc} has schema {}, this carmbench reads schema {APPS_SCHEMA}",
            f.schema
        )));
    }
    super::check::apps(&f, doc)?;
    Ok(f)
}

/// Add `points` to the apps file at `path` (made when missing), each in
/// place of a point of the same name; written whole or not at all.
pub fn add_points(path: &Path, points: Vec<AppPoint>) -> Result<()> {
    let mut f = if path.exists() {
        load(path)?
    } else {
        AppsFile {
            schema: APPS_SCHEMA,
            applications: Vec::new(),
        }
    };
    let doc = format!("apps file '{}'", path.display());
    for p in &points {
        super::check::app(p, &doc)?;
    }
    for p in points {
        f.applications.retain(|a| a.name != p.name);
        f.applications.push(p);
    }
    let text = serde_yaml::to_string(&f).map_err(|e| Error::Io(e.to_string()))?;
    crate::files::write_atomic(path, &text)
}
