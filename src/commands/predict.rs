//! `carmbench predict`: an application's time and bound on a machine,
//! T = W / min(P, AI × B), with the peak adjusted for its FMA share.

use crate::cli::PredictArgs;
use crate::compare::{self, MachineRoofs, machine_roofs};
use crate::error::{Error, Result};
use crate::machine::Level;
use crate::results::apps::{self, AppPoint};
use crate::results::{self, Document};

/// The thread count of the roofs: the one asked for, else the fewest.
fn threads_of(doc: &Document, want: Option<usize>) -> Result<usize> {
    let t = doc.thread_counts();
    match want {
        Some(w) if t.contains(&w) => Ok(w),
        Some(w) => Err(Error::input(format!(
            "the results have no {w}-thread roofs; they have {}",
            t.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        None => t
            .first()
            .copied()
            .ok_or_else(|| Error::input("the results hold no roofs")),
    }
}

fn roofs_of(doc: &Document, threads: Option<usize>, flag: &str) -> Result<MachineRoofs> {
    machine_roofs(doc, threads_of(doc, threads)?)
        .ok_or_else(|| Error::input(format!("no usable roofs in {flag}")))
}

/// Run the subcommand.
pub fn run(a: &PredictArgs) -> Result<()> {
    let apps: Vec<AppPoint> = match (&a.app, a.flops, a.bytes) {
        (Some(p), None, None) => apps::load(p)?.applications,
        (None, Some(w), Some(q)) if w > 0.0 && q > 0.0 && w.is_finite() && q.is_finite() => {
            vec![AppPoint {
                name: "app".into(),
                flops: w,
                bytes: q,
                seconds: f64::NAN,
                threads: a.threads,
                fma_flops: a.fma_flops,
                source: Some("given".into()),
                mix: None,
            }]
        }
        (None, Some(_), Some(_)) => {
            return Err(Error::input("--flops and --bytes must be positive numbers"));
        }
        _ => return Err(Error::input("give --app APPS.yaml, or --flops N --bytes M")),
    };
    if apps.is_empty() {
        return Err(Error::input("the apps file lists no application"));
    }
    if let Some(f) = a.fma_flops
        && !(f.is_finite() && f >= 0.0 && f <= apps[0].flops)
    {
        return Err(Error::input(format!(
            "--fma-flops is {f}; give the flops done by FMAs, from 0 to --flops"
        )));
    }
    let level = a
        .level
        .as_deref()
        .map(|l| Level::parse(l).map_err(Error::input))
        .transpose()?;
    let on = results::load(&a.on)?;
    let from = a.from.as_ref().map(|p| results::load(p)).transpose()?;
    let on_m = roofs_of(&on, a.threads, "--on")?;
    let from_m = from
        .as_ref()
        .map(|d| roofs_of(d, a.threads, "--from"))
        .transpose()?;
    for app in &apps {
        println!(
            "{}: W = {:.4e} flop, Q = {:.4e} B, AI = {:.3} flop/B",
            app.name,
            app.flops,
            app.bytes,
            app.ai()
        );
        let on_p = compare::predict(app, &on_m, level)?;
        let from_p = from_m
            .as_ref()
            .map(|m| compare::predict(app, m, level))
            .transpose()?;
        for (i, p) in on_p.iter().enumerate() {
            println!(
                "  on {} ({}, {} thr) with the {} bandwidth: {:.4e} s at {:.2} GFLOP/s, bound by {}",
                on.cpu_name(),
                on_m.isa,
                on_m.threads,
                p.level,
                p.seconds,
                p.gflop_per_s,
                p.bound
            );
            if let (Some(fp), Some(d)) = (&from_p, &from)
                && let Some(q) = fp.get(i).filter(|q| q.level == p.level)
            {
                println!(
                    "  on {} (--from) with the {} bandwidth: {:.4e} s, bound by {}; expected speedup on the --on machine: {:.2}x",
                    d.cpu_name(),
                    q.level,
                    q.seconds,
                    q.bound,
                    q.seconds / p.seconds
                );
            }
        }
        if app.seconds.is_finite() && from.is_some() {
            println!("  measured on the --from machine: {:.4e} s", app.seconds);
        }
    }
    Ok(())
}
