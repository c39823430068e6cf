//! How a run of the command used the CPUs: the CPU time of its processes,
//! the time its threads were ready but waited for a CPU, and the host's
//! steal meanwhile. A point's T is wall time; these say whether it was the
//! program's own (advice: `shared_cores`, `mostly_waited`).

use crate::measure::steal::machine_ticks;
use crate::results::apps::NativeTime;
use std::collections::HashMap;

/// The readings from the start of a run, and each thread's wait seen.
pub struct CpuUse {
    children: f64,
    stat: Option<(u64, u64)>,
    /// Each thread's wait for a CPU at the last look at it, nanoseconds.
    waited: HashMap<i32, u64>,
}

impl CpuUse {
    /// Readings now, before the run starts.
    pub fn start() -> CpuUse {
        CpuUse {
            children: children_cpu_seconds(),
            stat: machine_ticks(),
            waited: HashMap::new(),
        }
    }

    /// Look at thread `tid`, whose `/proc` folder is `dir`: its wait for
    /// a CPU so far (`schedstat`, the scheduler's own count).
    pub fn thread(&mut self, tid: i32, dir: &std::path::Path) {
        let text = std::fs::read_to_string(dir.join("schedstat"));
        if let Some(ns) = text.ok().and_then(|s| run_delay(&s)) {
            let w = self.waited.entry(tid).or_default();
            *w = (*w).max(ns);
        }
    }

    /// Thread `tid`'s wait for a CPU when it ended (`ns`, where read).
    pub fn waited(&mut self, tid: i32, ns: Option<u64>) {
        if let Some(ns) = ns {
            let w = self.waited.entry(tid).or_default();
            *w = (*w).max(ns);
        }
    }

    /// What the run used up to now, its processes ended and waited for.
    /// The CPU time is of every child this process waited for meanwhile:
    /// carmbench runs one command at a time.
    pub fn end(self) -> NativeTime {
        let steal = match (self.stat, machine_ticks()) {
            (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
                s1.saturating_sub(s0) as f64 / (t1 - t0) as f64
            }
            _ => 0.0,
        };
        NativeTime {
            cpu_seconds: (children_cpu_seconds() - self.children).max(0.0),
            waited_seconds: self.waited.values().sum::<u64>() as f64 * 1e-9,
            steal: steal.clamp(0.0, 1.0),
            emulated_seconds: None,
        }
    }
}

/// The second figure of a schedstat line: time on a run queue, waiting.
pub fn run_delay(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().nth(1)?.parse().ok()
}

/// The user and the system time of this process's children waited for,
/// seconds.
pub fn children_seconds() -> (f64, f64) {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    (s(u.ru_utime), s(u.ru_stime))
}

/// Their sum.
fn children_cpu_seconds() -> f64 {
    let (user, system) = children_seconds();
    user + system
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_and_the_steal_are_read_from_the_kernels_lines() {
        assert_eq!(run_delay("98889 103447 2\n"), Some(103447));
        assert_eq!(run_delay("98889"), None);
        let stat = "cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 50 0 25 400 5 0 0 20 0 0\n";
        assert_eq!(crate::measure::steal::parse_machine(stat), Some((40, 1000)));
    }

    #[test]
    fn a_busy_childs_cpu_time_is_counted() {
        let mut u = CpuUse::start();
        let mut c = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
            .spawn()
            .unwrap();
        let pid = c.id() as i32;
        std::thread::sleep(std::time::Duration::from_millis(50));
        u.thread(pid, std::path::Path::new(&format!("/proc/{pid}")));
        c.wait().unwrap();
        let n = u.end();
        assert!(n.cpu_seconds > 0.02, "{n:?}");
        assert!((0.0..=1.0).contains(&n.steal), "{n:?}");
    }
}
