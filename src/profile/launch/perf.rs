//! Counting a command's hardware events with perf_event, for the PMU
//! counter (`counter::Pmu`); the event tables and their arithmetic are
//! `measured::events`'.

use crate::error::{Error, Result};
use crate::profile::measured::events::Family;
use std::collections::BTreeMap;

/// The one-line explanation for a perf_event_open failure.
pub fn explain_open_error(e: &std::io::Error) -> Error {
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    let manual =
        "count by emulation (--counts emulate) or give the counts yourself (--flops N --bytes M)";
    let msg = match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::ENODEV) | Some(libc::EOPNOTSUPP) => format!(
            "hardware performance counters are not available here (perf_event_open: {e}): this CPU's PMU is not exposed (typical of a VM without PMU passthrough); run on bare metal or a VM with a virtual PMU, {manual}"
        ),
        Some(libc::EACCES) | Some(libc::EPERM) => format!(
            "not allowed to count hardware events (perf_event_open: {e}; kernel.perf_event_paranoid = {paranoid}); run `sysctl kernel.perf_event_paranoid=1` as root or profile as root, {manual}"
        ),
        _ => format!("cannot open the hardware counters (perf_event_open: {e}); {manual}"),
    };
    Error::input(msg)
}

/// Whether this process may count any hardware event (cycles): why not,
/// when it may not. Asked before the CPU's event table, as a missing PMU
/// is the cause a user can act on.
pub fn present() -> std::result::Result<(), Error> {
    use perf_event::Builder;
    use perf_event::events::Hardware;
    Builder::new(Hardware::CPU_CYCLES)
        .observe_self()
        .any_cpu()
        .build()
        .map(|_| ())
        .map_err(|err| explain_open_error(&err))
}

/// Whether the PMU counts `family`'s events for this process: why not,
/// when it does not.
pub fn usable(family: &Family) -> std::result::Result<(), Error> {
    use perf_event::Builder;
    use perf_event::events::Raw;
    let e = family
        .events
        .first()
        .ok_or_else(|| Error::input("the event table lists no event for this CPU"))?;
    Builder::new(Raw::new(e.config(family.vendor())))
        .observe_self()
        .any_cpu()
        .build()
        .map(|_| ())
        .map_err(|err| explain_open_error(&err))
}

/// Counts of one run of a command.
#[derive(Debug, Clone)]
pub struct Run {
    /// Counts by event name (and "cycles").
    pub counts: BTreeMap<String, u64>,
    /// How the command's processes ended, and when.
    pub ended: crate::profile::launch::tree::Ended,
}

/// Run `cmd` (directly, no shell) counting `family`'s events for it and
/// every thread and process it starts. The counters are opened on this
/// process, inherited by the child and enabled when it execs.
pub fn count_command(
    family: &Family,
    cmd: &mut std::process::Command,
    rules: &crate::profile::launch::tree::Rules,
) -> Result<Run> {
    use perf_event::Builder;
    use perf_event::events::{Hardware, Raw};
    let mut counters = Vec::new();
    let build = |b: &mut Builder| {
        b.observe_self()
            .any_cpu()
            .inherit(true)
            .enabled(false)
            .enable_on_exec(true);
        b.build()
    };
    for e in &family.events {
        let mut b = Builder::new(Raw::new(e.config(family.vendor())));
        let c = build(&mut b).map_err(|err| explain_open_error(&err))?;
        counters.push((e.name.clone(), c));
    }
    let mut b = Builder::new(Hardware::CPU_CYCLES);
    if let Ok(c) = build(&mut b) {
        counters.push(("cycles".to_string(), c));
    }
    let ended = crate::profile::launch::tree::run(cmd, rules, || {})?;
    let mut counts = BTreeMap::new();
    for (name, mut c) in counters {
        let v = c
            .read()
            .map_err(|e| Error::Io(format!("cannot read counter {name}: {e}")))?;
        counts.insert(name, v);
    }
    Ok(Run { counts, ended })
}
