//! Running `carmbench run` on every node through Slurm: one exclusive task
//! per node (`srun --exclusive --ntasks-per-node=1`), from a login node or
//! inside an allocation (`salloc`, `sbatch`). Each task is `carmbench fleet
//! task`, which writes `DIR/nodes/<node>/carm.yaml`, named by the node
//! Slurm gave it (`SLURMD_NODENAME`: host names need not differ), or
//! `error.txt` beside it when its run failed.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Which nodes to run on.
#[derive(Debug, Clone, PartialEq)]
pub enum Nodes {
    /// This many nodes Slurm picks.
    Count(u32),
    /// These nodes (Slurm's host list syntax: n[1-4],m7).
    List(String),
    /// Every node of this partition.
    Partition(String),
    /// The nodes of the allocation the command runs in.
    Allocation,
}

/// How long a Slurm client may take to answer (without its configuration
/// file, sinfo looks for the controller in DNS for about a minute).
const ANSWER_WITHIN: Duration = Duration::from_secs(15);

/// Standard output of a Slurm client, or one line saying why it failed.
fn client(program: &str, args: &[&str]) -> Result<String> {
    let mut child = Command::new(program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::input(format!(
                "Slurm is not installed here: cannot run {program}: {e}; run on a cluster's login node (Debian: apt-get install slurm-client)"
            ))
        })?;
    let started = Instant::now();
    while child
        .try_wait()
        .map_err(|e| Error::Io(e.to_string()))?
        .is_none()
    {
        if started.elapsed() > ANSWER_WITHIN {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::input(format!(
                "Slurm is not answering: {program} gave no answer within {} s; check SLURM_CONF and that slurmctld runs",
                ANSWER_WITHIN.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::Io(e.to_string()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(Error::input(format!(
            "Slurm is not answering: {program} {} failed: {}; check SLURM_CONF and that slurmctld runs",
            args.join(" "),
            first.trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Check that Slurm answers (`sinfo`).
pub fn check() -> Result<()> {
    client("sinfo", &["-h", "-o", "%P"]).map(|_| ())
}

/// How many nodes a partition has.
fn partition_nodes(p: &str) -> Result<u32> {
    let out = client("sinfo", &["-h", "-p", p, "-o", "%D"])?;
    let n: u32 = out
        .lines()
        .filter_map(|l| l.trim().parse::<u32>().ok())
        .sum();
    if n == 0 {
        return Err(Error::input(format!(
            "partition '{p}' has no nodes; `sinfo` lists the partitions"
        )));
    }
    Ok(n)
}

/// `srun`'s arguments to run `exe fleet task --dir DIR <run_args>` once on
/// each node, each task's output in `DIR/logs/task-<n>.log`.
pub fn srun_args(
    nodes: &Nodes,
    exe: &Path,
    dir: &Path,
    run_args: &[String],
) -> Result<Vec<String>> {
    let mut a: Vec<String> = [
        "--exclusive",
        "--ntasks-per-node=1",
        "--job-name=carmbench-fleet",
        "--kill-on-bad-exit=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!(
        "--output={}",
        dir.join("logs").join("task-%t.log").display()
    ));
    match nodes {
        Nodes::Count(n) => a.push(format!("--nodes={n}")),
        Nodes::List(l) => {
            a.push(format!("--nodelist={l}"));
            // One task per listed node: as many nodes as the list names.
            let n = client("scontrol", &["show", "hostnames", l])?
                .lines()
                .count();
            a.push(format!("--nodes={n}"));
        }
        Nodes::Partition(p) => {
            a.push(format!("--partition={p}"));
            a.push(format!("--nodes={}", partition_nodes(p)?));
        }
        Nodes::Allocation => {}
    }
    a.push(exe.display().to_string());
    a.extend(["fleet", "task", "--dir"].map(String::from));
    a.push(dir.display().to_string());
    a.extend(run_args.iter().cloned());
    Ok(a)
}

/// The name of the node this process runs on: Slurm's, else the host's.
pub fn node_name() -> String {
    std::env::var("SLURMD_NODENAME")
        .ok()
        .filter(|n| !n.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .unwrap_or_else(|| "node".into())
}

/// Run `srun` with `args`: its exit status and what it said on standard
/// error (which tasks failed).
pub fn srun(args: &[String]) -> Result<(bool, String)> {
    let out = Command::new("srun").args(args).output().map_err(|e| {
        Error::input(format!(
            "Slurm is not installed here: cannot run srun: {e}; run on a cluster's login node"
        ))
    })?;
    Ok((
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The folder of a node's results in `dir`.
pub fn node_dir(dir: &Path, node: &str) -> PathBuf {
    super::gather::nodes_dir(dir).join(node)
}

/// The tasks srun says failed, each with the last line of its log.
pub fn failed_tasks(srun_err: &str, dir: &Path) -> Vec<String> {
    srun_err
        .lines()
        .filter_map(|l| {
            // "srun: error: n2: task 1: Exited with exit code 2"
            let rest = l.split("error: ").nth(1)?;
            let mut parts = rest.splitn(3, ": ");
            let (node, task, what) = (parts.next()?, parts.next()?, parts.next()?);
            let t = task.strip_prefix("task ")?;
            let log = dir.join("logs").join(format!("task-{t}.log"));
            let why = std::fs::read_to_string(&log)
                .ok()
                .and_then(|s| {
                    s.lines()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .map(str::to_string)
                })
                .unwrap_or_else(|| what.to_string());
            Some(format!("{node} ({task}): {why}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_tasks_are_named_with_the_last_line_of_their_log() {
        let dir = std::env::temp_dir().join(format!("carmbench-srun-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("logs")).unwrap();
        std::fs::write(
            dir.join("logs").join("task-1.log"),
            "node n2\ncarmbench: error: cannot create output directory\n\n",
        )
        .unwrap();
        let said = "srun: error: n2: task 1: Exited with exit code 2\nsrun: error: n3: task 2: Killed\nsrun: Job step aborted\n";
        let f = failed_tasks(said, &dir);
        assert_eq!(
            f,
            [
                "n2 (task 1): carmbench: error: cannot create output directory",
                "n3 (task 2): Killed"
            ]
        );
        assert!(failed_tasks("", &dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn srun_runs_one_exclusive_task_per_node_of_the_selection() {
        let a = srun_args(
            &Nodes::Count(4),
            Path::new("/opt/carmbench"),
            Path::new("/scratch/fleet"),
            &["--quick".to_string()],
        )
        .unwrap();
        let s = a.join(" ");
        assert!(s.starts_with("--exclusive --ntasks-per-node=1"), "{s}");
        assert!(
            s.contains("--output=/scratch/fleet/logs/task-%t.log --nodes=4"),
            "{s}"
        );
        assert!(
            s.ends_with("/opt/carmbench fleet task --dir /scratch/fleet --quick"),
            "{s}"
        );
        let a = srun_args(&Nodes::Allocation, Path::new("c"), Path::new("d"), &[]).unwrap();
        assert!(!a.iter().any(|x| x.starts_with("--nodes")));
    }
}
