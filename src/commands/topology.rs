//! `carmbench topology`: the machine as the benchmarks will see it.

use crate::cli::TopologyArgs;
use crate::output::topology::TopologyReport;
use crate::output::{self, Format};

/// Run the subcommand.
pub fn run(args: &TopologyArgs) -> crate::Result<()> {
    let rep = TopologyReport::of(&args.source.source())?;
    let text = match args.format {
        Format::Text => output::topology::render_text(&rep),
        f => output::to_string(&rep, f)?,
    };
    print!("{text}");
    Ok(())
}
