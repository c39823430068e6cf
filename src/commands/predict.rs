//! `carmbench predict`: an application's time and bound on a machine,
//! T = W / min(P, AI × B), with the peak adjusted for its FMA share.

use crate::compare::{self, roofs_for};
use crate::error::{Error, Result};
use crate::results;
use crate::results::apps::{self, AppPoint};
use clap::Args;
use std::path::PathBuf;

/// `carmbench predict`.
#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Applications (an apps file).
    #[arg(long, value_name = "APPS.yaml", conflicts_with_all = ["flops", "bytes"])]
    pub app: Option<PathBuf>,
    /// Flops of the application.
    #[arg(long, value_name = "N")]
    pub flops: Option<f64>,
    /// Bytes it requests.
    #[arg(long, value_name = "M")]
    pub bytes: Option<f64>,
    /// Flops done by FMAs (adjusts the peak between the ADD/MUL and FMA roofs).
    #[arg(long, value_name = "F")]
    pub fma_flops: Option<f64>,
    /// Memory level whose bandwidth bounds it (L1, L2, L3, DRAM) [default: every level].
    #[arg(long, value_parser = crate::machine::Level::parse)]
    pub level: Option<crate::machine::Level>,
    /// Results of the machine to predict on.
    #[arg(long, value_name = "RESULTS")]
    pub on: PathBuf,
    /// Results of the machine the application was profiled on (prints both and the speedup).
    #[arg(long, value_name = "RESULTS")]
    pub from: Option<PathBuf>,
    /// Thread count of the roofs [default: the fewest measured].
    #[arg(long)]
    pub threads: Option<usize>,
}

/// The applications to predict: an apps file's, or one given by hand.
fn applications(a: &PredictArgs) -> Result<Vec<AppPoint>> {
    let apps: Vec<AppPoint> = match (&a.app, a.flops, a.bytes) {
        (Some(_), _, _) if a.fma_flops.is_some() => {
            return Err(Error::input(
                "--fma-flops goes with --flops and --bytes; an apps file gives each application's fma_flops",
            ));
        }
        (Some(p), None, None) => {
            let mut all = apps::load(p)?.applications;
            all.retain(AppPoint::placeable);
            all
        }
        (None, Some(w), Some(q)) => {
            apps::manual_counts(w, q)?;
            vec![AppPoint {
                threads: a.threads,
                fma_flops: a.fma_flops,
                source: Some("given".into()),
                ..AppPoint::new("app", w, q, f64::NAN)
            }]
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
            "--fma-flops is {}; give the flops done by FMAs, from 0 to --flops",
            crate::units::num(f)
        )));
    }
    Ok(apps)
}

/// Run the subcommand.
pub fn run(a: &PredictArgs) -> Result<()> {
    let (kernels, apps): (Vec<AppPoint>, Vec<AppPoint>) =
        (applications(a)?.into_iter()).partition(|p| p.kernel().is_some());
    let on = results::load(&a.on)?;
    let kernels: Vec<&AppPoint> = kernels.iter().collect();
    print!(
        "{}",
        crate::output::gpu::predicted(&kernels, &on).map_err(Error::input)?
    );
    let from = a.from.as_ref().map(|p| results::load(p)).transpose()?;
    if let (Some(f), Some(path), false) = (&from, &a.from, kernels.is_empty()) {
        let gpus = ["", " (it holds no GPU roofs either)"][usize::from(f.gpus.is_empty())];
        eprintln!(
            "carmbench: warning: --from {} places the CPU points only{gpus}: each of the {} GPU kernel(s) is set against its own time, measured on the GPU it was profiled on",
            path.display(),
            kernels.len()
        );
    }
    // Every application's roofs first: an error prints no half a table.
    let mut plans = Vec::new();
    for app in &apps {
        let on_m = roofs_for(&on, a.threads, a.level, app, "--on")?;
        let from_m = from
            .as_ref()
            .map(|d| roofs_for(d, a.threads, a.level, app, "--from"))
            .transpose()?;
        let on_p = compare::predict(app, &on_m.0, a.level)?;
        let from_p = from_m
            .as_ref()
            .map(|m| compare::predict(app, &m.0, a.level))
            .transpose()?;
        plans.push((app, on_m, on_p, from_p));
    }
    for (app, (on_m, note), on_p, from_p) in plans {
        println!(
            "{}: W = {:.4e} flop, Q = {:.4e} B, AI = {:.3} flop/B",
            app.name,
            app.flops,
            app.bytes,
            app.ai()
        );
        for (i, p) in on_p.iter().enumerate() {
            println!(
                "  on {} ({}, {} thr{note}) with the {} bandwidth: {:.4e} s at {:.2} GFLOP/s, bound by {}",
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
