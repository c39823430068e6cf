//! The plan-time model (`roofs::cost`) against a run, and what it predicts
//! for other machines:
//!
//! `cargo run --release --example plan_time -- RUN.yaml [OTHER.yaml ...]`
//!
//! For each roof of RUN.yaml (a run that recorded its roofs' seconds), the
//! ideal first pass the model predicts from the run's own rates and the
//! seconds measured, and the ratio of their sums: this machine's overhead.
//! Then, for each OTHER results file, the default plan on its machine (its
//! topology, ISAs and rates) with that overhead, and the pages
//! its buffers need at 0.2 GB/s (the slowest first touch seen on our
//! guests; `CARMBENCH_FAULT_GBPS` sets another).

use carmbench::results;
use carmbench::roofs::cost::{self, Speeds};
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(run) = args.first() else {
        eprintln!("usage: plan_time RUN.yaml [OTHER.yaml ...]");
        std::process::exit(2);
    };
    let fault_rate = std::env::var("CARMBENCH_FAULT_GBPS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.2)
        * 1e9;
    let doc = load(run);
    let (_, s) = cost::default_plan_on(&doc).unwrap_or_else(|e| fail(&e.to_string()));
    let rate = cost::rate_from(&doc);
    let tasks = cost::tasks_from(&doc);
    println!(
        "{:<40} {:>9} {:>9} {:>6}",
        "roof", "ideal s", "took s", "ratio"
    );
    let mut ratios = Vec::new();
    let (mut ideal_sum, mut took_sum) = (0.0, 0.0);
    for (t, r) in tasks.iter().zip(&doc.roofs) {
        let Some(took) = r.seconds else { continue };
        let ideal = cost::task_seconds(t, &s.at(t.level), &rate);
        let name = format!(
            "{} {} x{}",
            r.kernel,
            r.level.map_or(String::new(), |l| l.name()),
            r.threads
        );
        println!("{name:<40} {ideal:>9.3} {took:>9.3} {:>6.2}", took / ideal);
        ratios.push(took / ideal);
        ideal_sum += ideal;
        took_sum += took;
    }
    if ratios.is_empty() {
        fail(&format!(
            "{run} records no roof's seconds: measure it with this version"
        ));
    }
    ratios.sort_by(f64::total_cmp);
    let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f).round() as usize];
    let overhead = q(0.5);
    println!(
        "{} roofs: took {took_sum:.1} s, ideal {ideal_sum:.1} s (x{:.2} overall); per roof x{overhead:.2} median, x{:.2}-x{:.2} quartiles",
        ratios.len(),
        took_sum / ideal_sum,
        q(0.25),
        q(0.75)
    );
    for other in &args[1..] {
        let d = load(other);
        let (tasks, s) = cost::default_plan_on(&d).unwrap_or_else(|e| fail(&e.to_string()));
        let rate = cost::rate_from(&d);
        let e = cost::estimate(
            &tasks,
            &s,
            &Speeds {
                rate: &rate,
                fault_rate,
                overhead: took_sum / ideal_sum,
            },
        );
        println!(
            "default plan on {other} ({} cores, {} tasks): {:.1} s ideal x{:.2} = {:.1} s, pages {:.1} s: {:.1} s",
            d.machine.topology.cores,
            tasks.len(),
            e.measuring,
            e.overhead,
            e.measuring * e.overhead,
            e.faulting,
            e.seconds()
        );
    }
}

fn load(path: &str) -> results::Document {
    results::load(Path::new(path)).unwrap_or_else(|e| fail(&e.to_string()))
}

fn fail(msg: &str) -> ! {
    eprintln!("plan_time: {msg}");
    std::process::exit(2)
}
