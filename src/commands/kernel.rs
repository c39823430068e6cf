//! `carmbench kernel`: run one kernel at one size, for experts and for the
//! comparison script (`scripts/bench-vs-likwid.sh`).

use crate::cli::KernelArgs;
use crate::error::{Error, Result};
use crate::kernels::{KERNELS, Kind, Shape};
use crate::measure::runner::{self, Settings};
use crate::topology::{Machine, Source};
use std::time::Duration;

/// Parse "32KiB", "1MiB", "4096", "2GiB" (also kB/MB/GB as powers of 1000).
pub fn parse_size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a size; write e.g. 32KiB, 1MiB or 4096"))?;
    let m = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kib" | "k" => 1024.0,
        "mib" | "m" => 1048576.0,
        "gib" | "g" => 1073741824.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        u => {
            return Err(format!(
                "unknown size unit '{u}' in '{s}'; use B, KiB, MiB or GiB"
            ));
        }
    };
    Ok((x * m) as u64)
}

/// Run the subcommand.
pub fn run(a: &KernelArgs) -> Result<()> {
    let k = KERNELS
        .iter()
        .find(|k| k.decl.name == a.name)
        .ok_or_else(|| {
            Error::input(format!(
                "unknown kernel '{}'; known: {}",
                a.name,
                KERNELS
                    .iter()
                    .map(|k| k.decl.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    if !k.runnable() {
        return Err(Error::input(format!(
            "this CPU cannot run kernel '{}' (needs {})",
            a.name,
            k.decl.required_features().join(", ")
        )));
    }
    let m = Machine::load(&Source::Live)?;
    if a.threads == 0 || a.threads > m.cores {
        return Err(Error::input(format!(
            "--threads {} is not between 1 and the {} cores of this machine",
            a.threads, m.cores
        )));
    }
    let s = Settings::new(Duration::from_secs_f64(a.min_ms / 1e3), a.samples);
    let shape = match a.shape.as_deref() {
        Some([j, k]) if *j > 0 && *k > 0 => Shape { j: *j, k: *k },
        Some(_) => return Err(Error::input("--shape takes two positive counts, J,K")),
        None => Shape::ONE,
    };
    let cpus = &m.core_first_pu[..a.threads];
    let r = runner::with_pool(cpus, runner::alloc_for(k, a.bytes, shape), |p| {
        p.measure(k, a.bytes, shape, &s)
    })
    .and_then(|r| r)
    .map_err(Error::Io)?;
    let (unit, scale) = match k.decl.kind {
        Kind::Bandwidth => ("GB/s", "B/cycle"),
        Kind::Compute | Kind::Validation => ("GFLOP/s", "flop/cycle"),
    };
    println!(
        "{} threads={} bytes/thread={} ai={} value={:.2} {unit} median={:.2} q1={:.2} q3={:.2} cv={:.4} per_cycle={:.2} {scale} clock={:.3} GHz drift={:.3} steal={:.3} passes={} parts={} iters={}",
        k.decl.name,
        a.threads,
        r.bytes_per_thread,
        if k.decl.kind == Kind::Validation {
            format!("{:.4}", k.decl.intensity(shape))
        } else {
            "-".into()
        },
        r.value() / 1e9,
        r.rates.median / 1e9,
        r.rates.q1 / 1e9,
        r.rates.q3 / 1e9,
        r.rates.cv,
        r.per_cycle(),
        r.clock_ghz(),
        r.clock_drift(),
        r.steal,
        r.passes,
        r.parts,
        r.iters
    );
    Ok(())
}
