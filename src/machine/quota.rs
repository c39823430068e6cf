//! The CPU time a cgroup lets this process's threads have: a container or
//! a job step limited to N CPUs' worth of time (`cpu.max` under cgroup v2,
//! `cpu.cfs_quota_us` over `cpu.cfs_period_us` under v1), the least over
//! its cgroup and those above it. Threads beyond it share that time, so the
//! all-thread roofs of per-core resources get that many cores' worth.

use std::path::{Path, PathBuf};

/// CPUs' worth of time this process may use, when a cgroup limits it.
pub fn cpu_quota() -> Option<f64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let (root, path, v2) = place(&cgroups, &mounts)?;
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    least(&root, &path, v2, read)
}

/// Where this process's CPU cgroup is: the controller's mount, the
/// cgroup's path under it, and whether it is cgroup v2.
fn place(cgroups: &str, mountinfo: &str) -> Option<(PathBuf, String, bool)> {
    // v1: "4:cpu,cpuacct:/path"; v2: "0::/path".
    let v1 = cgroups.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctrl, path) = (f.next()?, f.next()?, f.next()?);
        ctrl.split(',')
            .any(|c| c == "cpu")
            .then(|| path.to_string())
    });
    let v2 = cgroups
        .lines()
        .find_map(|l| l.strip_prefix("0::").map(String::from));
    for line in mountinfo.lines() {
        // "id parent dev root mount-point options - fstype source super-options"
        let Some((head, tail)) = line.split_once(" - ") else {
            continue;
        };
        let h: Vec<&str> = head.split(' ').collect();
        let (Some(&mounted), Some(&point)) = (h.get(3), h.get(4)) else {
            continue;
        };
        let mut t = tail.split(' ');
        let (fs, opts) = (t.next().unwrap_or(""), t.nth(1).unwrap_or(""));
        // A container sees its own cgroup as the mount's root.
        let under = |p: &str| p.strip_prefix(mounted).unwrap_or(p).to_string();
        match (fs, &v1, &v2) {
            ("cgroup", Some(p), _) if opts.split(',').any(|o| o == "cpu") => {
                return Some((point.into(), under(p), false));
            }
            ("cgroup2", None, Some(p)) => return Some((point.into(), under(p), true)),
            _ => {}
        }
    }
    None
}

/// The least quota from `path` up to the mount's root, read by `read`.
fn least(root: &Path, path: &str, v2: bool, read: impl Fn(&Path) -> Option<String>) -> Option<f64> {
    let mut best: Option<f64> = None;
    let mut here = Path::new(path.trim_start_matches('/'));
    loop {
        let dir = root.join(here);
        let quota = match v2 {
            true => read(&dir.join("cpu.max")).and_then(|t| v2_quota(&t)),
            false => {
                let num = |f: &str| read(&dir.join(f))?.trim().parse::<i64>().ok();
                let (q, p) = (num("cpu.cfs_quota_us"), num("cpu.cfs_period_us"));
                q.zip(p)
                    .filter(|(q, p)| *q > 0 && *p > 0)
                    .map(|(q, p)| q as f64 / p as f64)
            }
        };
        if let Some(q) = quota {
            best = Some(best.map_or(q, |b: f64| b.min(q)));
        }
        match here.parent() {
            Some(p) => here = p,
            None => return best,
        }
    }
}

/// "200000 100000" → 2.0; "max 100000" → none.
fn v2_quota(text: &str) -> Option<f64> {
    let mut w = text.split_whitespace();
    let (q, p) = (
        w.next()?.parse::<f64>().ok()?,
        w.next()?.parse::<f64>().ok()?,
    );
    (q > 0.0 && p > 0.0).then(|| q / p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_v1_quota_is_the_least_of_the_cgroup_and_those_above_it() {
        let cgroups = "4:memory:/x\n3:cpu,cpuacct:/job/step\n0::/\n";
        let mounts =
            "30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw shared:9 - cgroup cgroup rw,cpu,cpuacct\n";
        let (root, path, v2) = place(cgroups, mounts).unwrap();
        assert_eq!(
            (root.to_str(), path.as_str(), v2),
            (Some("/sys/fs/cgroup/cpu,cpuacct"), "job/step", false)
        );
        // A container's mount has its own cgroup as root.
        let inside = "30 25 0:26 /docker/c1 /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
        let (_, path_in, _) = place("3:cpu:/docker/c1/job\n", inside).unwrap();
        assert_eq!(path_in, "/job");
        let files: HashMap<&str, &str> = [
            (
                "/sys/fs/cgroup/cpu,cpuacct/job/step/cpu.cfs_quota_us",
                "-1\n",
            ),
            (
                "/sys/fs/cgroup/cpu,cpuacct/job/step/cpu.cfs_period_us",
                "100000\n",
            ),
            (
                "/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us",
                "150000\n",
            ),
            (
                "/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_period_us",
                "100000\n",
            ),
        ]
        .into();
        let read = |p: &Path| files.get(p.to_str()?).map(|s| s.to_string());
        assert_eq!(least(&root, &path, v2, read), Some(1.5));
    }

    #[test]
    fn a_v2_quota_is_read_and_no_limit_is_none() {
        let mounts = "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let (root, path, v2) = place("0::/a\n", mounts).unwrap();
        assert!(v2);
        let read = |p: &Path| match p.to_str()? {
            "/sys/fs/cgroup/a/cpu.max" => Some("50000 100000\n".to_string()),
            _ => Some("max 100000\n".to_string()),
        };
        assert_eq!(least(&root, &path, v2, read), Some(0.5));
        assert_eq!(v2_quota("max 100000"), None);
        assert_eq!(place("0::/a\n", ""), None);
    }
}
