//! The GPUs' part of `carmbench run`: which GPUs (every one found by
//! default, those `--gpu` names, none with `--no-gpu`), their roofs
//! measured into the results document.

use crate::config::{limits, plan};
use crate::error::{Error, Result};
use crate::gpu::GpuInfo;
use crate::gpu::driver;
use crate::machine::{Machine, Source};
use crate::results::gpu::GpuResults;
use crate::results::{self, DocFormat, Document};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A sweep fails when its median |deviation| passes this (the CPU's).
const THRESHOLD: f64 = 0.10;

/// Which GPUs `--gpu` asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuChoice {
    /// Every GPU the driver sees.
    All,
    /// These ordinals.
    Some(Vec<usize>),
}

impl FromStr for GpuChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(GpuChoice::All);
        }
        s.split(',')
            .map(|x| {
                x.trim().parse::<usize>().map_err(|_| {
                    format!("'{x}' is not a GPU number; give all or a list such as 0,1")
                })
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map(GpuChoice::Some)
    }
}

/// The GPUs to measure: for a default run (`choice` None) every GPU found,
/// or none without a driver (a CPU machine says nothing of GPUs); for
/// `--gpu`, those asked, or one line naming what is missing.
pub fn chosen(choice: Option<&GpuChoice>) -> Result<Vec<GpuInfo>> {
    let found = driver::devices();
    let Some(choice) = choice else {
        return Ok(found.unwrap_or_default());
    };
    let all = found.map_err(|m| Error::input(format!("--gpu: {}", m.0)))?;
    if all.is_empty() {
        return Err(Error::input(
            "--gpu: the CUDA driver sees no GPU; leave --gpu out to measure the CPU alone",
        ));
    }
    match choice {
        GpuChoice::All => Ok(all),
        GpuChoice::Some(ids) => ids
            .iter()
            .map(|i| {
                all.iter().find(|g| g.index == *i).cloned().ok_or_else(|| {
                    Error::input(format!(
                        "--gpu: there is no GPU {i}; this machine has GPUs 0 to {}",
                        all.len() - 1
                    ))
                })
            })
            .collect(),
    }
}

/// Measure each GPU's roofs, and validate them when asked (`--validate`),
/// telling `say` of each roof and sweep.
pub fn measure(
    gpus: Vec<GpuInfo>,
    validate: bool,
    mut say: impl FnMut(&str),
) -> Result<Vec<GpuResults>> {
    let mut out = Vec::new();
    for g in gpus {
        say(&format!(
            "GPU {} ({}, {} SMs, sm_{}{}):",
            g.index, g.name, g.sms, g.capability.major, g.capability.minor
        ));
        let mut r = crate::roofs::gpu::measure(g, |line| say(&format!("  {line}")))
            .map_err(|m| Error::Io(m.0))?;
        if validate {
            let t = std::time::Instant::now();
            say("  validation (each level's loads with FMAs, 1/16 to 64 flop/B):");
            r.validation =
                crate::validate::gpu::validate(&r, THRESHOLD, |line| say(&format!("  {line}")))
                    .map_err(|m| Error::Io(m.0))?;
            say(&format!(
                "  validation took {:.1} s",
                t.elapsed().as_secs_f64()
            ));
        }
        out.push(r);
    }
    Ok(out)
}

/// `run --gpu`: the GPUs' roofs alone, into the results in `dir` (their
/// CPU roofs kept, their GPUs of the same numbers replaced), or into new
/// results of this machine with no CPU roof.
pub fn into_results(
    dir: &Path,
    format: DocFormat,
    gpus: Vec<GpuInfo>,
    validate: bool,
    say: impl FnMut(&str),
) -> Result<(PathBuf, Document)> {
    let path = super::output_path(dir, format)?;
    // Results already there are kept (a file that does not read is an error, never replaced).
    let mut doc = if path.exists() {
        results::load(&path)?
    } else {
        let machine = Machine::load(&Source::Live)?;
        let plan = plan::resolve(&plan::PlanFile::default_plan(), &machine, false)?;
        Document::for_run(machine, plan, limits::detect().map(|u| u.name))
    };
    let fresh = measure(gpus, validate, say)?;
    doc.gpus
        .retain(|g| !fresh.iter().any(|f| f.device.index == g.device.index));
    doc.gpus.extend(fresh);
    doc.gpus.sort_by_key(|g| g.device.index);
    results::save(&doc, &path, format)?;
    Ok((path, doc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_lists_read_as_written() {
        assert_eq!("all".parse::<GpuChoice>(), Ok(GpuChoice::All));
        assert_eq!("0, 2".parse::<GpuChoice>(), Ok(GpuChoice::Some(vec![0, 2])));
        assert!("x".parse::<GpuChoice>().unwrap_err().contains("0,1"));
    }
}
