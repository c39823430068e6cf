//! `carmbench profile`: put an application (or its regions) on the chart.

use crate::cli::ProfileArgs;
use crate::error::{Error, Result};
use crate::machine::cpuid;
use crate::profile::{self, Counted};
use crate::results::apps::{self, AppPoint};
use crate::results::{self, Document};
use std::path::{Path, PathBuf};
use std::process::Command;

fn command(a: &ProfileArgs) -> Result<Command> {
    let (prog, args) = a.command.split_first().ok_or_else(|| {
        Error::input(
            "no command to profile; write it after --, e.g. carmbench profile -- ./app arg",
        )
    })?;
    let mut c = Command::new(prog);
    c.args(args);
    Ok(c)
}

fn point(name: &str, c: &Counted, threads: Option<usize>) -> AppPoint {
    let d = &c.derived;
    AppPoint {
        name: match &c.region {
            Some(r) => format!("{name}/{r}"),
            None => name.to_string(),
        },
        flops: d.flops,
        bytes: d.bytes,
        seconds: c.seconds,
        threads,
        fma_flops: None,
        source: Some(match &c.region {
            Some(_) => format!("perf region, {} call(s): {}", c.calls, d.note),
            None => format!("perf: {}", d.note),
        }),
    }
}

/// The line that places a point under a results file's roofs.
fn placed(doc: &Document, p: &AppPoint) -> String {
    let (ai, perf) = (p.ai(), p.gflop_per_s());
    match profile::placement(doc, p, p.threads.unwrap_or(1)) {
        Some(profile::Placement {
            threads,
            roof: Some((label, v)),
        }) => format!(
            "{}: AI {ai:.3} flop/B, {perf:.2} GFLOP/s; bound by the {label} ({v:.2} GFLOP/s at this AI, {threads} thread(s)): {:.1}% of it",
            p.name,
            100.0 * perf / v
        ),
        Some(profile::Placement {
            threads,
            roof: None,
        }) => format!(
            "{}: AI {ai:.3} flop/B, {perf:.2} GFLOP/s: above every roof of the {threads}-thread results; check the counts",
            p.name
        ),
        None => p.name.clone(),
    }
}

/// Run the subcommand.
pub fn run(a: &ProfileArgs) -> Result<()> {
    let name = a.name.clone().unwrap_or_else(|| {
        a.command.first().map_or("app".into(), |c| {
            Path::new(c)
                .file_name()
                .map_or(c.clone(), |f| f.to_string_lossy().into_owned())
        })
    });
    let (points, status) = match (a.flops, a.bytes) {
        (Some(flops), Some(bytes)) => {
            if !(flops > 0.0 && bytes > 0.0 && flops.is_finite() && bytes.is_finite()) {
                return Err(Error::input("--flops and --bytes must be positive numbers"));
            }
            let t0 = std::time::Instant::now();
            let status = command(a)?
                .status()
                .map_err(|e| Error::input(format!("cannot run '{}': {e}", a.command[0])))?;
            let p = AppPoint {
                name: name.clone(),
                flops,
                bytes,
                seconds: t0.elapsed().as_secs_f64(),
                threads: a.threads,
                fma_flops: None,
                source: Some("manual counts".into()),
            };
            (vec![p], status)
        }
        (None, None) => {
            let id = cpuid::cpuid();
            let family = profile::family_of(&id).ok_or_else(|| {
                Error::input(format!(
                    "no PMU event table for this CPU ({} family {:#x} model {:#x}; configs/events.yaml lists Zen 3/4/5, Skylake-SP, Ice Lake-SP, Sapphire Rapids); give the counts yourself: carmbench profile --flops N --bytes M -- COMMAND",
                    id.vendor, id.family, id.model
                ))
            })?;
            let (counted, status) =
                profile::count_program(&family, &mut command(a)?, a.access_bytes)?;
            let pts = counted.iter().map(|c| point(&name, c, a.threads)).collect();
            (pts, status)
        }
        _ => {
            return Err(Error::input(
                "give both --flops and --bytes (manual counts), or neither (hardware counters)",
            ));
        }
    };
    if !status.success() {
        eprintln!(
            "carmbench: warning: '{}' exited with {status}; its point is recorded anyway",
            a.command[0]
        );
    }
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("apps.yaml"));
    let (placeable, empty): (Vec<AppPoint>, Vec<AppPoint>) = points
        .into_iter()
        .partition(|p| p.flops > 0.0 && p.bytes > 0.0 && p.seconds > 0.0);
    for p in &empty {
        eprintln!(
            "carmbench: warning: {} has no counted flops or bytes; it cannot be placed",
            p.name
        );
    }
    if placeable.is_empty() {
        return Err(Error::input(format!(
            "'{}' did no floating-point work the counters saw: nothing to place",
            a.command[0]
        )));
    }
    apps::add_points(&out, placeable.clone())?;
    let results_path = a
        .results
        .clone()
        .unwrap_or_else(|| Path::new("carm-results").join("carm.yaml"));
    match results::load(&results_path) {
        Ok(doc) => placeable
            .iter()
            .for_each(|p| println!("{}", placed(&doc, p))),
        Err(_) => {
            for p in &placeable {
                println!(
                    "{}: AI {:.3} flop/B, {:.2} GFLOP/s, {:.3} s",
                    p.name,
                    p.ai(),
                    p.gflop_per_s(),
                    p.seconds
                );
            }
            println!(
                "(no results at {}: run `carmbench run` or give --results to see the bounding roof)",
                results_path.display()
            );
        }
    }
    println!(
        "wrote {} ({} point(s)); draw with: carmbench plot {} --apps {}",
        out.display(),
        placeable.len(),
        results_path.display(),
        out.display()
    );
    Ok(())
}
