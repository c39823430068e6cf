//! What `carmbench topology` shows of a machine (its topology, the buffer
//! ranges of every level, and for the live machine its ISA and clock), as a
//! document and as the text it prints.

use super::ghz;
use crate::gpu::GpuInfo;
use crate::machine::isa::{self, IsaReport};
use crate::machine::sizing::{self, ThreadRanges};
use crate::machine::{Machine, Source};
use crate::measure::clock::ClockReport;
use crate::units::human_bytes;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The machine as the benchmarks will see it.
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
    /// The GPUs the CUDA driver sees (live machine only; none without a driver).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<GpuInfo>,
    /// Why the CUDA driver, present, gave no GPUs (live machine only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_error: Option<String>,
}

impl TopologyReport {
    /// The report of a topology source; the ISA and clock only for the live
    /// machine (a saved or synthetic topology is not the CPU running this).
    pub fn of(source: &Source) -> crate::Result<TopologyReport> {
        let machine = Machine::load(source)?;
        let buffer_ranges = sizing::thread_ranges(&machine, &sizing::shown_thread_counts(&machine));
        let live = matches!(source, Source::Live);
        let driver = live && crate::gpu::driver::driver_present();
        let found = driver.then(crate::gpu::driver::devices);
        Ok(TopologyReport {
            machine,
            buffer_ranges,
            isa: live.then(isa::detect),
            clock: live.then(ClockReport::measure),
            gpu_error: found
                .as_ref()
                .and_then(|f| f.as_ref().err())
                .map(|e| e.0.clone()),
            gpus: found.and_then(Result::ok).unwrap_or_default(),
        })
    }
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
    // What `profile --traffic` simulates, and its spec for the plugin
    // (scripts/bench-traffic.py times the plugin with it).
    if let Ok(c) =
        crate::profile::measured::traffic::caches(m, crate::profile::measured::traffic::SAMPLE)
    {
        let _ = writeln!(
            s,
            "\nprofile --traffic: {}\n(plugin spec {})",
            c.model, c.spec
        );
    }
    buffer_ranges(&mut s, r);
    isa_and_clock(&mut s, r);
    if !r.gpus.is_empty() {
        s.push('\n');
        s.push_str(&render_gpus(&r.gpus));
    }
    if let Some(e) = &r.gpu_error {
        let _ = writeln!(s, "\nGPUs         none seen: {e}");
    }
    s
}

/// Each thread count's buffer range per level.
fn buffer_ranges(s: &mut String, r: &TopologyReport) {
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
                if !b.level.is_memory() {
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
}

/// The ISA features benchmarked and skipped, and the clocks.
fn isa_and_clock(s: &mut String, r: &TopologyReport) {
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
            "{:<14}{}{}",
            r.isa.as_ref().map_or("TSC", IsaReport::counter_name),
            ghz(c.tsc_ghz),
            c.cpuinfo_ghz
                .map(|x| format!("   (/proc/cpuinfo says {})", ghz(x)))
                .unwrap_or_default()
        );
    }
}

/// One line per GPU: what it is, its SMs and clock, its caches and memory.
pub fn render_gpus(gpus: &[GpuInfo]) -> String {
    let mut s = String::new();
    for g in gpus {
        let _ = writeln!(
            s,
            "GPU {}      {} (sm_{}{}, driver {}): {} SMs at up to {:.0} MHz, L2 {}, shared memory {} an SM, memory {} on a {}-bit bus at {:.0} MHz ({:.0} GB/s by its specification)",
            g.index,
            g.name,
            g.capability.major,
            g.capability.minor,
            g.driver,
            g.sms,
            g.clock_mhz,
            human_bytes(g.l2_bytes),
            human_bytes(g.shared_per_sm),
            human_bytes(g.memory_bytes),
            g.bus_bits,
            g.memory_clock_mhz,
            g.spec_gb_per_s()
        );
    }
    s
}
