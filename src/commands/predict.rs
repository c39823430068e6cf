//! `carmbench predict`: an application's time and bound on a machine,
//! T = W / min(P, AI × B), with the peak adjusted for its FMA share.

use crate::cli::PredictArgs;
use crate::compare::{self, MachineRoofs, Prediction, machine_roofs, mixed_peak};
use crate::error::{Error, Result};
use crate::results::apps::{self, AppPoint};
use crate::results::{self, Document};

/// Predictions of one app on one machine, per level (or the level asked).
pub fn predictions(
    app: &AppPoint,
    m: &MachineRoofs,
    level: Option<&str>,
) -> Result<(f64, Vec<Prediction>)> {
    let peak = match (app.fma_flops, m.fma, m.addmul) {
        (Some(f), Some(fma), Some(other)) => mixed_peak(app.flops, f, fma, other),
        _ => m
            .peak
            .map(|p| p.1)
            .ok_or_else(|| Error::input("the results have no FP roof to predict with"))?,
    };
    let levels: Vec<&(String, f64)> = m
        .levels
        .iter()
        .filter(|(l, _)| level.is_none_or(|x| x.eq_ignore_ascii_case(l)))
        .collect();
    if levels.is_empty() {
        return Err(Error::input(format!(
            "the results have no level '{}'; they have {}",
            level.unwrap_or("?"),
            m.levels
                .iter()
                .map(|l| l.0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let peak_name = match (app.fma_flops, m.fma, m.addmul) {
        (Some(_), Some(_), Some(_)) => "FMA/ADD-MUL mix peak".to_string(),
        _ => format!("{} peak", m.peak.map_or("FP".into(), |p| p.0.to_string())),
    };
    let out = levels
        .into_iter()
        .map(|(l, b)| {
            let (t, mem) = compare::predict(app.flops, app.bytes, peak, *b);
            Prediction {
                level: l.clone(),
                gflop_per_s: app.flops / t / 1e9,
                seconds: t,
                bound: if mem {
                    format!("memory ({l}, {b:.1} GB/s)")
                } else {
                    format!("compute ({peak_name}, {peak:.1} GFLOP/s)")
                },
            }
        })
        .collect();
    Ok((peak, out))
}

fn threads_of(doc: &Document, want: Option<usize>) -> Result<usize> {
    let mut t: Vec<usize> = doc.roofs.iter().map(|r| r.threads).collect();
    t.sort();
    t.dedup();
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

/// Run the subcommand.
pub fn run(a: &PredictArgs) -> Result<()> {
    let apps: Vec<AppPoint> = match (&a.app, a.flops, a.bytes) {
        (Some(p), None, None) => apps::load(p)?.applications,
        (None, Some(w), Some(q)) if w > 0.0 && q > 0.0 => vec![AppPoint {
            name: "app".into(),
            flops: w,
            bytes: q,
            seconds: f64::NAN,
            threads: a.threads,
            fma_flops: a.fma_flops,
            source: Some("given".into()),
        }],
        (None, Some(_), Some(_)) => {
            return Err(Error::input("--flops and --bytes must be positive"));
        }
        _ => return Err(Error::input("give --app APPS.yaml, or --flops N --bytes M")),
    };
    if apps.is_empty() {
        return Err(Error::input("the apps file lists no application"));
    }
    let on = results::load(&a.on)?;
    let from = a.from.as_ref().map(|p| results::load(p)).transpose()?;
    let on_m = machine_roofs(&on, threads_of(&on, a.threads)?)
        .ok_or_else(|| Error::input("no usable roofs in --on"))?;
    let from_m = match &from {
        Some(d) => Some(
            machine_roofs(d, threads_of(d, a.threads)?)
                .ok_or_else(|| Error::input("no usable roofs in --from"))?,
        ),
        None => None,
    };
    let cpu = |d: &Document| {
        d.machine
            .topology
            .cpu_model
            .clone()
            .unwrap_or_else(|| "unknown CPU".into())
    };
    for app in &apps {
        println!(
            "{}: W = {:.4e} flop, Q = {:.4e} B, AI = {:.3} flop/B",
            app.name,
            app.flops,
            app.bytes,
            app.ai()
        );
        let (_, on_p) = predictions(app, &on_m, a.level.as_deref())?;
        let from_p = match &from_m {
            Some(m) => Some(predictions(app, m, a.level.as_deref())?.1),
            None => None,
        };
        for (i, p) in on_p.iter().enumerate() {
            let mut line = format!(
                "  on {} ({}, {} thr) with the {} bandwidth: {:.4e} s at {:.2} GFLOP/s, bound by {}",
                cpu(&on),
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
                let _ = std::fmt::Write::write_fmt(
                    &mut line,
                    format_args!(
                        "\n  on {} (--from) with the {} bandwidth: {:.4e} s, bound by {}; expected speedup on the --on machine: {:.2}x",
                        cpu(d),
                        q.level,
                        q.seconds,
                        q.bound,
                        q.seconds / p.seconds
                    ),
                );
            }
            println!("{line}");
        }
        if app.seconds.is_finite() && from.is_some() {
            println!("  measured on the --from machine: {:.4e} s", app.seconds);
        }
    }
    Ok(())
}
