//! Where a native run spends its time, without a PMU: the kernel's software
//! `cpu-clock` event samples the user-mode instruction pointer of the
//! command and of every thread and process it starts, and its records of
//! their file mappings turn each sample into a place in a file (a file
//! offset, as the counting plugin gives its counts).

use crate::error::{Error, Result};
use crate::profile::launch::tree::{Ended, Leftovers, Rules};
use crate::profile::measured::samples::Samples;
use std::collections::HashMap;
use std::process::{Command, ExitStatus};

/// Nanoseconds of CPU time between samples: 1 kHz, a hundred samples in a
/// tenth of a second, at 1-3 % of the run's time (docs/evidence.md).
pub const PERIOD_NS: u64 = 1_000_000;

/// One file mapping of a process.
#[derive(Debug, Clone)]
struct FileMap {
    start: u64,
    end: u64,
    offset: u64,
    path: String,
}

/// The mappings of each process, from the kernel's records. The records
/// arrive from one buffer per CPU without an order between them, so a
/// process's mappings are all kept (an exec's new image lands elsewhere, by
/// address randomisation), the latest first, then its parent's.
#[derive(Debug, Default)]
pub struct Maps {
    by_pid: HashMap<u32, Vec<FileMap>>,
    parent: HashMap<u32, u32>,
}

impl Maps {
    /// A new mapping of `pid` (a file's path, or a label like `[vdso]`).
    pub fn mapped(&mut self, pid: u32, start: u64, len: u64, offset: u64, path: &str) {
        if path.starts_with('/') {
            // Anonymous code's offsets are from its mapping's start, as the
            // emulated run's are (the kernel gives its address as offset).
            let offset = match path == carmbench_counts::protocol::ANONYMOUS {
                true => 0,
                false => offset,
            };
            self.by_pid.entry(pid).or_default().push(FileMap {
                start,
                end: start.saturating_add(len),
                offset,
                path: path.to_string(),
            });
        }
    }

    /// `child` was forked from `parent`: it has its parent's mappings.
    pub fn forked(&mut self, parent: u32, child: u32) {
        if parent != child {
            self.parent.insert(child, parent);
        }
    }

    /// The place of `ip` in `pid`: (path, file offset), or ("", ip).
    pub fn place(&self, pid: u32, ip: u64) -> (String, u64) {
        let mut p = pid;
        for _ in 0..64 {
            let found = self
                .by_pid
                .get(&p)
                .and_then(|maps| maps.iter().rev().find(|m| (m.start..m.end).contains(&ip)));
            if let Some(m) = found {
                return (m.path.clone(), ip - m.start + m.offset);
            }
            match self.parent.get(&p) {
                Some(&q) => p = q,
                None => break,
            }
        }
        (String::new(), ip)
    }
}

/// The user-mode CPU time of this process's children that were waited
/// for, seconds: the time the samples share out.
fn children_user_seconds() -> f64 {
    crate::profile::launch::cpu_use::children_seconds().0
}

/// The CPUs online, from sysfs ("0-3,8"); the first `available_parallelism`
/// when it cannot be read.
fn online_cpus() -> Vec<usize> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
            cpus.extend(a..=b.min(a + 4096));
        }
    }
    if cpus.is_empty() {
        cpus = (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect();
    }
    cpus
}

/// Hardware events between two samples of one (the PMU path): prime, so
/// that a loop of a round number of events does not always land its
/// samples on the same instruction.
pub const EVENT_PERIOD: u64 = 100_003;

/// Run `cmd` sampled: its exit status, wall time in seconds, and samples.
pub fn run(cmd: &mut Command) -> Result<(ExitStatus, f64, Samples)> {
    let rules = Rules {
        timeout: None,
        leftovers: Leftovers::Leave,
        run: "sampled run",
    };
    let (ended, s) = run_with_events(cmd, &[], &rules)?;
    Ok((ended.status, ended.seconds, s))
}

/// One sampler per CPU and kind: the time's (`None`, which also reports
/// the mappings) and each hardware event's (its index in `events`).
type Samplers = Vec<(Option<usize>, perf_event::Sampler)>;

/// The samplers of the time and of `events`, on every CPU, followed into
/// the children and enabled when the command execs.
fn samplers(events: &[(String, u64)]) -> Result<Samplers> {
    use perf_event::events::{Raw, Software};
    use perf_event::{Builder, SampleFlag};
    // The kernel maps no buffer of an inherited event on every CPU: one
    // event per CPU, each followed into the children.
    let mut samplers = Vec::new();
    for cpu in online_cpus() {
        let mut time = Builder::new(Software::CPU_CLOCK);
        time.sample_period(PERIOD_NS).mmap(true).task(true);
        let mut kinds = vec![(None, time)];
        for (k, (_, config)) in events.iter().enumerate() {
            let mut b = Builder::new(Raw::new(*config));
            b.sample_period(EVENT_PERIOD);
            kinds.push((Some(k), b));
        }
        for (k, mut b) in kinds {
            b.observe_self()
                .one_cpu(cpu)
                .inherit(true)
                .enabled(false)
                .enable_on_exec(true)
                .exclude_kernel(true)
                .exclude_hv(true)
                .clockid(perf_event::Clock::MONOTONIC)
                .sample(SampleFlag::IP | SampleFlag::TID | SampleFlag::TIME);
            let s = b
                .build()
                .and_then(|c| c.sampled(2 << 20))
                .map_err(|e| Error::input(refused(&e)))?;
            samplers.push((k, s));
        }
    }
    Ok(samplers)
}

/// One sample: its kind (None: the time's), pid, ip and time stamp.
type Taken = (Option<usize>, u32, u64, u64);

/// What the samplers recorded so far: each sample into `ips`, the
/// mappings and forks into `maps`; whether there was any.
fn drain(samplers: &mut Samplers, ips: &mut Vec<Taken>, maps: &mut Maps, lost: &mut u64) -> bool {
    use perf_event::data::Record;
    let mut any = false;
    for (kind, sampler) in samplers {
        while let Some(r) = sampler.next_record() {
            any = true;
            match r.parse_record() {
                Ok(Record::Sample(x)) => {
                    if let (Some(pid), Some(ip)) = (x.pid(), x.ip()) {
                        ips.push((*kind, pid, ip, x.time().unwrap_or(0)));
                    }
                }
                Ok(Record::Mmap(m)) => maps.mapped(
                    m.pid,
                    m.addr,
                    m.len,
                    m.pgoff,
                    &m.filename_os().to_string_lossy(),
                ),
                Ok(Record::Fork(f)) => maps.forked(f.ppid, f.pid),
                Ok(Record::Lost(l)) => *lost += l.lost,
                _ => {}
            }
        }
    }
    any
}

/// The same, sampling also the raw hardware `events` (name, config) every
/// [`EVENT_PERIOD`] of each, for what each function does; the command's
/// processes run and end as `rules` say.
pub fn run_with_events(
    cmd: &mut Command,
    events: &[(String, u64)],
    rules: &Rules,
) -> Result<(Ended, Samples)> {
    let mut samplers = samplers(events)?;
    let before = children_user_seconds();
    let (mut maps, mut s) = (Maps::default(), Samples::default());
    let mut ips: Vec<Taken> = Vec::new();
    // Records are read as they come, and those left once it ended.
    let mut read = || while drain(&mut samplers, &mut ips, &mut maps, &mut s.lost) {};
    let start_ns = monotonic_ns();
    let ended = crate::profile::launch::tree::run(cmd, rules, &mut read)?;
    read();
    drop(samplers);
    s.cpu_seconds = (children_user_seconds() - before).max(0.0);
    s.wall_seconds = ended.seconds;
    s.event_period = EVENT_PERIOD;
    for (kind, pid, ip, at) in ips {
        let place = maps.place(pid, ip);
        let seconds = at.saturating_sub(start_ns) as f64 * 1e-9;
        let places = match kind {
            None => {
                s.total += 1;
                s.timed.push((seconds, place.clone()));
                s.timed_pid.push(pid);
                &mut s.places
            }
            Some(k) => {
                let name = &events[k].0;
                s.event_times.entry(name.clone()).or_default().push(seconds);
                s.events.entry(name.clone()).or_default()
            }
        };
        *places.entry(place).or_default() += 1;
    }
    // The buffers of the CPUs are read one after the other.
    let mut order: Vec<usize> = (0..s.timed.len()).collect();
    order.sort_by(|&a, &b| s.timed[a].0.total_cmp(&s.timed[b].0));
    s.timed_pid = order.iter().map(|&k| s.timed_pid[k]).collect();
    s.timed = order.iter().map(|&k| s.timed[k].clone()).collect();
    (s.event_times.values_mut()).for_each(|t| t.sort_by(f64::total_cmp));
    Ok((ended, s))
}

/// `CLOCK_MONOTONIC` now, nanoseconds: the clock the samples are stamped
/// with.
fn monotonic_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: fills the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Whether this process may sample its children's time: why not, when it
/// may not.
pub fn available() -> std::result::Result<(), String> {
    use perf_event::Builder;
    use perf_event::events::Software;
    Builder::new(Software::CPU_CLOCK)
        .observe_self()
        .any_cpu()
        .sample_period(PERIOD_NS)
        .enabled(false)
        .build()
        .map(drop)
        .map_err(|e| refused(&e))
}

/// The one line for a refused `perf_event_open`.
fn refused(e: &std::io::Error) -> String {
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    format!(
        "cannot sample the command's time per function (perf_event_open of the software cpu-clock event: {e}; kernel.perf_event_paranoid = {paranoid}): run `sysctl kernel.perf_event_paranoid=2` as root (or lower; 3 and above forbid it), or profile without --functions"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_find_their_file_through_forks_and_execs() {
        let mut m = Maps::default();
        m.mapped(10, 0x1000, 0x2000, 0x400, "/bin/prog");
        m.mapped(10, 0x7000, 0x1000, 0, "[vdso]");
        assert_eq!(m.place(10, 0x1800), ("/bin/prog".into(), 0xc00));
        assert_eq!(m.place(10, 0x7010), (String::new(), 0x7010));
        m.forked(10, 11);
        assert_eq!(m.place(11, 0x1800).0, "/bin/prog");
        // A thread's fork record names its own process: nothing changes.
        m.forked(11, 11);
        // The child's own mapping comes first, then its parent's.
        m.mapped(11, 0x1000, 0x1000, 0, "/lib/libx.so");
        assert_eq!(m.place(11, 0x1800), ("/lib/libx.so".into(), 0x800));
        assert_eq!(m.place(11, 0x2800), ("/bin/prog".into(), 0x1c00));
        assert_eq!(m.place(10, 0x1800).0, "/bin/prog");
        assert_eq!(m.place(12, 0x1800).0, "");
    }

    #[test]
    fn a_refusal_names_the_setting_and_the_way_out() {
        let e = std::io::Error::from_raw_os_error(libc::EACCES);
        let line = refused(&e);
        assert!(line.contains("perf_event_paranoid") && line.contains("without --functions"));
        assert!(!line.contains('\n'));
    }

    #[test]
    fn a_busy_child_is_sampled_in_its_own_code() {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"]);
        let (status, seconds, s) = match run(&mut cmd) {
            Ok(x) => x,
            Err(e) => panic!("sampling refused here: {e}"),
        };
        assert!(status.success() && seconds > 0.0);
        assert!(online_cpus().contains(&0));
        assert!(s.total > 0 && s.cpu_seconds > 0.0, "{s:?}");
        // Most samples land in a file the shell mapped (its own code or libc).
        let in_files: u64 = s
            .places
            .iter()
            .filter(|((p, _), _)| !p.is_empty())
            .map(|(_, n)| n)
            .sum();
        assert!(in_files * 10 >= s.total * 9, "{in_files} of {}", s.total);
    }
}
