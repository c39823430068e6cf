//! `carmbench profile`: put an application (or its regions) on the chart.

use crate::chart::geometry::tightest_roof;
use crate::chart::{self, Filter};
use crate::cli::ProfileArgs;
use crate::config::limits;
use crate::error::{Error, Result};
use crate::kernels::Kind;
use crate::profile::{self, Family};
use crate::results::apps::{self, APPS_SCHEMA, AppPoint, AppsFile};
use crate::results::{self, Document};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A region line written by the regions library.
#[derive(serde::Deserialize)]
struct RegionLine {
    name: String,
    seconds: f64,
    calls: u64,
    counts: BTreeMap<String, u64>,
    #[serde(default)]
    error: Option<String>,
}

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

fn point(name: String, d: &profile::Derived, seconds: f64, threads: Option<usize>) -> AppPoint {
    AppPoint {
        name,
        flops: d.flops,
        bytes: d.bytes,
        seconds,
        threads,
        fma_flops: None,
        source: Some(format!("perf: {}", d.note)),
    }
}

/// The roofs a point is compared with: the chart's default selection of a
/// results file, for `threads`.
pub fn bound_text(doc: &Document, p: &AppPoint, threads: usize) -> Option<String> {
    let avail: Vec<usize> = doc.roofs.iter().map(|r| r.threads).collect();
    let t = if avail.contains(&threads) {
        threads
    } else {
        *avail.iter().min()?
    };
    let f = Filter {
        threads: Some(vec![t]),
        ..Filter::default()
    };
    let sel = chart::select(&[("r".into(), doc.clone())], &f, Vec::new()).ok()?;
    let s = sel.series.first()?;
    let levels: Vec<(String, f64)> = s
        .bandwidth
        .iter()
        .map(|r| {
            (
                format!(
                    "{} {} roof",
                    r.level.as_deref().unwrap_or("?"),
                    r.mix.map_or("", |m| m.name())
                ),
                r.value(),
            )
        })
        .collect();
    let peaks: Vec<(String, f64)> = s
        .compute
        .iter()
        .filter(|r| r.kind == Kind::Compute)
        .map(|r| (format!("{} peak", r.label()), r.value()))
        .collect();
    let (ai, perf) = (p.ai(), p.gflop_per_s());
    Some(match tightest_roof(ai, perf, &levels, &peaks) {
        Some((label, v)) => format!(
            "{}: AI {:.3} flop/B, {:.2} GFLOP/s; bound by the {label} ({:.2} GFLOP/s at this AI, {t} thread(s)): {:.1}% of it",
            p.name,
            ai,
            perf,
            v,
            100.0 * perf / v
        ),
        None => format!(
            "{}: AI {:.3} flop/B, {:.2} GFLOP/s: above every roof of the {t}-thread results; check the counts",
            p.name, ai, perf
        ),
    })
}

fn save_apps(path: &Path, new: Vec<AppPoint>) -> Result<()> {
    let mut f = if path.exists() {
        apps::load(path)?
    } else {
        AppsFile {
            schema: APPS_SCHEMA,
            applications: Vec::new(),
        }
    };
    for p in new {
        f.applications.retain(|a| a.name != p.name);
        f.applications.push(p);
    }
    let text = serde_yaml::to_string(&f).map_err(|e| Error::Io(e.to_string()))?;
    results::write_atomic(path, &text)
}

fn measured(
    a: &ProfileArgs,
    family: &Family,
    name: &str,
) -> Result<(Vec<AppPoint>, std::process::ExitStatus)> {
    let dir = std::env::temp_dir().join(format!("carmbench-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::Io(e.to_string()))?;
    let regions = dir.join("regions.jsonl");
    let events: Vec<String> = family
        .events
        .iter()
        .map(|e| format!("{}={:x}", e.name, e.config(&family.vendor)))
        .collect();
    let mut cmd = command(a)?;
    cmd.env(crate::regions::OUT_ENV, &regions)
        .env(crate::regions::EVENTS_ENV, events.join(","));
    let run = profile::count_command(family, &mut cmd)?;
    let d = profile::derive(family, &run.counts, a.access_bytes);
    let mut pts = vec![point(name.to_string(), &d, run.seconds, a.threads)];
    if let Ok(text) = std::fs::read_to_string(&regions) {
        for line in text.lines() {
            let r: RegionLine = serde_json::from_str(line)
                .map_err(|e| Error::Io(format!("unreadable region record '{line}': {e}")))?;
            if let Some(e) = r.error {
                eprintln!(
                    "carmbench: warning: region {} counted without hardware events: {e}",
                    r.name
                );
            }
            let rd = profile::derive(family, &r.counts, a.access_bytes);
            let mut p = point(format!("{name}/{}", r.name), &rd, r.seconds, a.threads);
            p.source = Some(format!("perf region, {} call(s): {}", r.calls, rd.note));
            pts.push(p);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok((pts, run.status))
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
            let mut cmd = command(a)?;
            let t0 = std::time::Instant::now();
            let status = cmd
                .status()
                .map_err(|e| Error::input(format!("cannot run '{}': {e}", a.command[0])))?;
            let seconds = t0.elapsed().as_secs_f64();
            let p = AppPoint {
                name: name.clone(),
                flops,
                bytes,
                seconds,
                threads: a.threads,
                fma_flops: None,
                source: Some("manual counts".into()),
            };
            (vec![p], status)
        }
        (None, None) => {
            let id = limits::cpuid();
            let family = profile::family_of(&id).ok_or_else(|| {
                Error::input(format!(
                    "no PMU event table for this CPU ({} family {:#x} model {:#x}; configs/events.yaml lists Zen 3/4/5, Skylake-SP, Ice Lake-SP, Sapphire Rapids); give the counts yourself: carmbench profile --flops N --bytes M -- COMMAND",
                    id.vendor, id.family, id.model
                ))
            })?;
            measured(a, &family, &name)?
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
    let placeable: Vec<AppPoint> = points
        .into_iter()
        .filter(|p| {
            let ok = p.flops > 0.0 && p.bytes > 0.0 && p.seconds > 0.0;
            if !ok {
                eprintln!(
                    "carmbench: warning: {} has no counted flops or bytes; it cannot be placed",
                    p.name
                );
            }
            ok
        })
        .collect();
    if placeable.is_empty() {
        return Err(Error::input(format!(
            "'{}' did no floating-point work the counters saw: nothing to place",
            a.command[0]
        )));
    }
    save_apps(&out, placeable.clone())?;
    let results_path = a
        .results
        .clone()
        .unwrap_or_else(|| Path::new("carm-results").join("carm.yaml"));
    let doc = results::load(&results_path).ok();
    for p in &placeable {
        match &doc {
            Some(d) => println!(
                "{}",
                bound_text(d, p, p.threads.unwrap_or(1)).unwrap_or_else(|| p.name.clone())
            ),
            None => println!(
                "{}: AI {:.3} flop/B, {:.2} GFLOP/s, {:.3} s",
                p.name,
                p.ai(),
                p.gflop_per_s(),
                p.seconds
            ),
        }
    }
    if doc.is_none() {
        println!(
            "(no results at {}: run `carmbench run` or give --results to see the bounding roof)",
            results_path.display()
        );
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
