//! `carmbench topology`: the machine as the benchmarks will see it.

use crate::cli::TopologyArgs;
use crate::isa::{self, IsaReport};
use crate::measure::clock::{self, ClockMeasurement};
use crate::output::{self, Format, ghz};
use crate::topology::sizing::{self, BufferRange, human_bytes};
use crate::topology::{Machine, Source};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::time::Duration;

/// Clock facts of the live machine.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ClockReport {
    /// Core clock from the dependent-add chain.
    pub measured: ClockMeasurement,
    /// TSC rate measured against the monotonic clock, GHz.
    pub tsc_ghz: f64,
    /// "cpu MHz" of /proc/cpuinfo, GHz.
    pub cpuinfo_ghz: Option<f64>,
}

/// Buffer ranges for one thread count.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ThreadRanges {
    /// Benchmark threads.
    pub threads: usize,
    /// One range per level, caches then DRAM.
    pub levels: Vec<BufferRange>,
}

/// What `carmbench topology` prints.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TopologyReport {
    /// The machine.
    pub machine: Machine,
    /// Buffer ranges with 1 thread and with one thread per core.
    pub buffer_ranges: Vec<ThreadRanges>,
    /// ISA of the CPU running carmbench (live machine only).
    pub isa: Option<IsaReport>,
    /// Clock of the CPU running carmbench (live machine only).
    pub clock: Option<ClockReport>,
}

/// Measure the clock of the live machine the way every command does.
pub fn measure_clock() -> ClockReport {
    ClockReport {
        measured: clock::measure(11, Duration::from_millis(2)),
        tsc_ghz: clock::tsc_ghz(Duration::from_millis(10)),
        cpuinfo_ghz: clock::cpuinfo_ghz(),
    }
}

/// The thread counts the ranges are shown for: 1 and all cores.
pub fn default_thread_counts(m: &Machine) -> Vec<usize> {
    let mut v = vec![1, m.cores];
    v.dedup();
    v
}

/// Build the report for a topology source.
pub fn report(source: &Source) -> crate::Result<TopologyReport> {
    let machine = Machine::load(source)?;
    let buffer_ranges = default_thread_counts(&machine)
        .into_iter()
        .map(|t| ThreadRanges {
            threads: t,
            levels: sizing::ranges(&machine, t),
        })
        .collect();
    let live = matches!(source, Source::Live);
    Ok(TopologyReport {
        machine,
        buffer_ranges,
        isa: live.then(isa::detect),
        clock: live.then(measure_clock),
    })
}

/// Run the subcommand.
pub fn run(args: &TopologyArgs) -> crate::Result<()> {
    let rep = report(&args.source.source())?;
    let text = match args.format {
        Format::Text => render_text(&rep),
        f => output::to_string(&rep, f)?,
    };
    print!("{text}");
    Ok(())
}

fn assoc(a: Option<u32>) -> String {
    match a {
        Some(0) => "full".to_string(),
        Some(w) => format!("{w}-way"),
        None => "?".to_string(),
    }
}

/// Human-readable report.
pub fn render_text(r: &TopologyReport) -> String {
    let m = &r.machine;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "CPU        {} ({})",
        m.cpu_model.as_deref().unwrap_or("unknown model"),
        m.cpu_vendor.as_deref().unwrap_or("unknown vendor")
    );
    let _ = writeln!(s, "source     {}", m.source);
    let _ = writeln!(
        s,
        "packages   {}   cores {}   hardware threads {}",
        m.packages, m.cores, m.hardware_threads
    );
    for n in &m.numa_nodes {
        let _ = writeln!(
            s,
            "NUMA {}     {} local memory, {} cores",
            n.os_index,
            human_bytes(n.memory_bytes),
            n.cores
        );
    }
    if let Some(a) = m.mem_available_bytes {
        let _ = writeln!(s, "memory     {} available", human_bytes(a));
    }
    let _ = writeln!(
        s,
        "\ncache  size        line  assoc    cores/instance  instances"
    );
    for c in &m.caches {
        let _ = writeln!(
            s,
            "{:<6} {:<11} {:<5} {:<8} {:<15} {}",
            c.name,
            human_bytes(c.size_bytes),
            c.line_bytes.map_or("?".into(), |l| format!("{l} B")),
            assoc(c.associativity),
            c.cores_sharing,
            c.instances
        );
    }
    for tr in &r.buffer_ranges {
        let _ = writeln!(
            s,
            "\nbuffer per thread, {} thread(s), one per core:",
            tr.threads
        );
        for b in &tr.levels {
            let _ = writeln!(
                s,
                "  {:<5} {:>11} .. {:<11}{}{}",
                b.level,
                human_bytes(b.min_bytes),
                human_bytes(b.max_bytes),
                if b.level != "DRAM" {
                    format!(
                        " ({} per thread, {} thread(s) per instance)",
                        human_bytes(b.share_bytes.unwrap_or(0)),
                        b.threads_per_instance
                    )
                } else {
                    String::new()
                },
                b.note
                    .as_ref()
                    .map(|n| format!("  [{}{n}]", if b.isolated { "" } else { "NOT ISOLATED: " }))
                    .unwrap_or_default()
            );
        }
    }
    if let Some(i) = &r.isa {
        let _ = writeln!(s, "\nISA features  {}", i.features.join(" "));
        let _ = writeln!(
            s,
            "benchmarked   {}",
            i.benchmarked
                .iter()
                .map(|x| x.name())
                .collect::<Vec<_>>()
                .join(" ")
        );
        if !i.skipped.is_empty() {
            let _ = writeln!(
                s,
                "skipped       {} (not supported by this CPU)",
                i.skipped
                    .iter()
                    .map(|x| x.name())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
    if let Some(c) = &r.clock {
        let g = &c.measured.ghz;
        let _ = writeln!(
            s,
            "\ncore clock    {} measured (dependent adds; fastest of {} runs of {:.0} ms, as other work only slows a run; quartiles {:.2}..{:.2}, range {:.2}..{:.2})",
            ghz(c.measured.core_ghz()),
            g.n,
            c.measured.run_ms,
            g.q1,
            g.q3,
            g.min,
            g.max
        );
        let _ = writeln!(
            s,
            "TSC           {}{}",
            ghz(c.tsc_ghz),
            c.cpuinfo_ghz
                .map(|x| format!("   (/proc/cpuinfo says {})", ghz(x)))
                .unwrap_or_default()
        );
    }
    s
}
