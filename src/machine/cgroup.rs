//! This process's cgroup limits, read where cgroups keep them: the room
//! under its memory limits and the CPU time it may use. A limit anywhere
//! from its own cgroup up to the hierarchy's root holds, so each is the
//! tightest of them all. Under v2 the hierarchy is at `/sys/fs/cgroup`;
//! under v1 each controller has its own at `/sys/fs/cgroup/<controller>`.

use std::path::{Path, PathBuf};

/// The directories of this process's cgroup and those above it for
/// `controller`, in a /proc/self/cgroup text `own`, each with whether it is
/// cgroup v2: v1's hierarchy of that controller where it has one, else v2's.
fn dirs(own: &str, controller: &str) -> Vec<(PathBuf, bool)> {
    let mut v2 = None;
    for line in own.lines() {
        let mut f = line.splitn(3, ':');
        let (_, controllers, path) = (f.next(), f.next().unwrap_or(""), f.next().unwrap_or(""));
        let rel = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == controller) {
            return up(Path::new("/sys/fs/cgroup").join(controller), rel, false);
        }
        if controllers.is_empty() {
            v2 = Some(up(PathBuf::from("/sys/fs/cgroup"), rel, true));
        }
    }
    v2.unwrap_or_default()
}

/// `root/rel` and each directory above it up to `root`.
fn up(root: PathBuf, rel: &str, v2: bool) -> Vec<(PathBuf, bool)> {
    let mut dir = root.join(rel);
    let mut out = vec![(dir.clone(), v2)];
    while dir != root && dir.pop() {
        out.push((dir.clone(), v2));
    }
    out
}

/// The room under this process's cgroup memory limits (v2 `memory.max`
/// less `memory.current`; v1 `memory.limit_in_bytes` less
/// `memory.usage_in_bytes`); `None` without a limit.
pub fn room() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    room_in(&own, |p| std::fs::read_to_string(p).ok())
}

/// [`room`] from a /proc/self/cgroup text, files read with `read`.
pub fn room_in(own: &str, read: impl Fn(&Path) -> Option<String>) -> Option<u64> {
    let num = |p: PathBuf| read(&p)?.trim().parse::<u64>().ok();
    let rooms = dirs(own, "memory").into_iter().filter_map(|(dir, v2)| {
        let (max, used) = match v2 {
            true => ("memory.max", "memory.current"),
            false => ("memory.limit_in_bytes", "memory.usage_in_bytes"),
        };
        let (max, used) = (num(dir.join(max))?, num(dir.join(used))?);
        // v1 writes a page-rounded i64::MAX when there is no limit.
        (max < 1 << 60).then(|| max.saturating_sub(used))
    });
    rooms.min()
}

/// CPUs' worth of time this process may use, when a cgroup limits it (v2
/// `cpu.max`; v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us`).
pub fn cpu_quota() -> Option<f64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    cpu_quota_in(&own, |p| std::fs::read_to_string(p).ok())
}

/// [`cpu_quota`] from a /proc/self/cgroup text, files read with `read`.
pub fn cpu_quota_in(own: &str, read: impl Fn(&Path) -> Option<String>) -> Option<f64> {
    let quotas = dirs(own, "cpu").into_iter().filter_map(|(dir, v2)| {
        let (q, p) = match v2 {
            true => {
                let text = read(&dir.join("cpu.max"))?;
                let mut w = text.split_whitespace();
                (
                    w.next()?.parse::<f64>().ok()?,
                    w.next()?.parse::<f64>().ok()?,
                )
            }
            false => {
                let num = |f: &str| read(&dir.join(f))?.trim().parse::<f64>().ok();
                (num("cpu.cfs_quota_us")?, num("cpu.cfs_period_us")?)
            }
        };
        // v2's "max" does not parse; v1 writes -1 for no quota.
        (q > 0.0 && p > 0.0).then(|| q / p)
    });
    quotas.min_by(f64::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tightest_cgroup_limit_gives_the_room() {
        let files = |p: &Path| -> Option<String> {
            Some(
                match p.to_str()? {
                    "/sys/fs/cgroup/job/step/memory.max" => "max",
                    "/sys/fs/cgroup/job/step/memory.current" => "100",
                    "/sys/fs/cgroup/job/memory.max" => "4294967296",
                    "/sys/fs/cgroup/job/memory.current" => "1073741824",
                    "/sys/fs/cgroup/memory/batch/memory.limit_in_bytes" => "9223372036854771712",
                    "/sys/fs/cgroup/memory/batch/memory.usage_in_bytes" => "5",
                    _ => return None,
                }
                .to_string(),
            )
        };
        assert_eq!(room_in("0::/job/step\n", files), Some(3 << 30));
        assert_eq!(room_in("0::/\n", files), None, "the root: no limit");
        assert_eq!(
            room_in("4:memory:/batch\n", files),
            None,
            "v1 without a limit"
        );
    }

    #[test]
    fn a_cpu_quota_is_the_least_of_the_cgroup_and_those_above_it() {
        let files = |p: &Path| -> Option<String> {
            Some(
                match p.to_str()? {
                    "/sys/fs/cgroup/cpu/job/step/cpu.cfs_quota_us" => "-1",
                    "/sys/fs/cgroup/cpu/job/step/cpu.cfs_period_us" => "100000",
                    "/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us" => "150000",
                    "/sys/fs/cgroup/cpu/job/cpu.cfs_period_us" => "100000",
                    "/sys/fs/cgroup/a/cpu.max" => "50000 100000",
                    "/sys/fs/cgroup/cpu.max" => "max 100000",
                    _ => return None,
                }
                .to_string(),
            )
        };
        // v1 (the cpu controller's own line, beside a v2 one) and v2.
        assert_eq!(
            cpu_quota_in("3:cpu,cpuacct:/job/step\n0::/\n", files),
            Some(1.5)
        );
        assert_eq!(cpu_quota_in("0::/a\n", files), Some(0.5));
        assert_eq!(cpu_quota_in("0::/\n", files), None, "max: no quota");
    }
}
