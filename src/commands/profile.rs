//! `carmbench profile`: put an application (its regions, its functions) on
//! the chart.

use crate::error::Result;
use crate::output::profile::{function_table, placements};
use crate::profile::ground::warnings::Warning;
use crate::profile::{self, ProfilePlan};
use crate::results::apps;

pub use crate::profile::ProfileArgs;

/// Warnings, one line each on standard error.
fn say(warnings: &[Warning]) {
    for w in warnings {
        eprintln!("carmbench: warning: {w}");
    }
}

/// Run the subcommand.
pub fn run(a: &ProfileArgs) -> Result<()> {
    // Before any thread starts: stopping carmbench stops the command too.
    profile::launch::signals::catch();
    if a.gpu {
        return gpu(a);
    }
    let plan = ProfilePlan::resolve(a)?;
    say(&plan.warnings);
    let mut profiled = profile::profile(&plan)?;
    say(&profiled.warnings);
    let before = profiled.warnings.len();
    let checked = profiled.check(&plan);
    say(&profiled.warnings[before..]);
    checked?;
    crate::results::advice::advise_all(plan.results.as_ref(), &mut profiled.points);
    apps::add_points(&plan.out, profiled.points.clone())?;
    if let Some(n) = &profiled.note {
        println!("{n}");
    }
    let doc = plan.results.as_ref();
    print!("{}", placements(&profiled.points, doc, &plan.results_path));
    if let Some(c) = profiled.method.caches() {
        println!("  ({})", c.model);
    }
    print!("{}", function_table(doc, &profiled.points));
    println!(
        "wrote {} ({} point(s)); draw with: carmbench plot {} --apps {}",
        plan.out.display(),
        profiled.points.len(),
        quoted(&plan.results_path),
        quoted(&plan.out)
    );
    Ok(())
}

/// `profile --gpu`: the kernels Nsight Compute counted.
fn gpu(a: &ProfileArgs) -> Result<()> {
    let (common, k) = profile::gpu::profile(a)?;
    say(&common.warnings);
    for (name, why) in &k.unplaced {
        eprintln!("carmbench: warning: kernel {name} has no point: {why}");
    }
    apps::add_points(&common.out, k.points.clone())?;
    print!(
        "{}",
        crate::output::gpu::kernels(&k.points, common.results.as_ref())
    );
    println!(
        "wrote {} ({} point(s))",
        common.out.display(),
        k.points.len()
    );
    Ok(())
}

/// A path as a shell word, so the hint can be pasted as it is.
fn quoted(p: &std::path::Path) -> String {
    let text = p.to_string_lossy();
    shlex::try_quote(&text).map_or_else(|_| text.to_string(), |q| q.into_owned())
}
