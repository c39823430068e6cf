//! `carmbench topology`: the machine as the benchmarks will see it.

use crate::machine::Source;
use crate::output::topology::TopologyReport;
use crate::output::{self, Format};
use clap::Args;
use std::path::PathBuf;

/// Where to read the topology from (live machine by default).
#[derive(Debug, Args, Clone)]
pub struct TopologySource {
    /// Load an hwloc XML topology (from `lstopo --of xml FILE`) instead of this machine.
    #[arg(long, value_name = "FILE", conflicts_with = "synthetic")]
    pub topology_xml: Option<PathBuf>,
    /// Load an hwloc synthetic topology, e.g. "pack:2 l3:1(size=32MiB) core:8 l2:1(size=1MiB) l1d:1(size=48KiB) pu:2".
    #[arg(long, value_name = "DESC")]
    pub synthetic: Option<String>,
}

impl TopologySource {
    /// The source these flags select.
    pub fn source(&self) -> Source {
        match (&self.topology_xml, &self.synthetic) {
            (Some(p), _) => Source::Xml(p.clone()),
            (None, Some(d)) => Source::Synthetic(d.clone()),
            _ => Source::Live,
        }
    }
}

/// `carmbench topology`.
#[derive(Debug, Args)]
pub struct TopologyArgs {
    #[command(flatten)]
    pub source: TopologySource,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

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
