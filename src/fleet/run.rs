//! `fleet run`'s and `fleet report`'s engine: the nodes asked for, the
//! fleet folder checked and made, the tasks launched through Slurm, and a
//! fleet folder read back, whatever put the nodes' results there.

use super::gather::{self, NodeResult};
use super::slurm::{self, Nodes};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// `--threshold`, checked: a fraction between 0 and 1.
pub fn check_threshold(t: f64) -> Result<()> {
    if t.is_finite() && t > 0.0 && t < 1.0 {
        Ok(())
    } else {
        Err(Error::input(format!(
            "--threshold {t} is not a fraction between 0 and 1; give e.g. 0.1 for 10%"
        )))
    }
}

/// Which nodes the flags ask for: a count, a list, a partition, or the
/// allocation the command runs in.
pub fn nodes(count: Option<u32>, list: Option<&str>, partition: Option<&str>) -> Result<Nodes> {
    match (count, list, partition) {
        (Some(0), _, _) => Err(Error::input("-N 0 runs on no node; give at least 1")),
        (Some(n), _, _) => Ok(Nodes::Count(n)),
        (_, Some(l), _) => Ok(Nodes::List(l.to_string())),
        (_, _, Some(p)) => Ok(Nodes::Partition(p.to_string())),
        _ if std::env::var_os("SLURM_JOB_ID").is_some() => Ok(Nodes::Allocation),
        _ => Err(Error::input(
            "say which nodes: -N COUNT, --nodelist LIST or --partition P (or run inside salloc or sbatch)",
        )),
    }
}

/// The nodes of a fleet folder, and each unreadable one as "node: why"; an
/// error when none can be read (not a fleet without outliers).
pub fn read(dir: &Path) -> Result<(Vec<NodeResult>, Vec<String>)> {
    let nodes = gather::gather(dir)?;
    let unreadable: Vec<String> = nodes
        .iter()
        .filter_map(|n| Some(format!("{}: {}", n.node, n.doc.as_ref().err()?)))
        .collect();
    if unreadable.len() == nodes.len() {
        let first: Vec<&str> = unreadable.iter().take(3).map(String::as_str).collect();
        return Err(Error::input(format!(
            "none of the {} node(s) in {} could be read ({}{}); give a folder of results written by `carmbench run`",
            nodes.len(),
            gather::nodes_dir(dir).display(),
            first.join("; "),
            if unreadable.len() > 3 { "; ..." } else { "" }
        )));
    }
    Ok((nodes, unreadable))
}

/// What launching the tasks gave.
#[derive(Debug, Clone)]
pub struct Launched {
    /// The fleet folder, absolute.
    pub dir: PathBuf,
    /// The `srun` command's arguments.
    pub args: Vec<String>,
    /// Whether srun succeeded.
    pub ok: bool,
    /// What srun said on standard error.
    pub said: String,
    /// Each node whose task failed, with why.
    pub failed: Vec<String>,
}

/// Launch `carmbench fleet task` with `plan` on `nodes` into a new fleet
/// folder `out`; `started` is told srun's arguments before it runs.
pub fn launch(
    nodes: &Nodes,
    out: &Path,
    plan: &[String],
    started: impl FnOnce(&[String]),
) -> Result<Launched> {
    let dir = std::path::absolute(out).map_err(|e| Error::input(format!("-o: {e}")))?;
    let node_dirs = gather::nodes_dir(&dir);
    let holds_results = |e: std::fs::DirEntry| gather::results_file(&e.path()).is_some();
    if std::fs::read_dir(&node_dirs).is_ok_and(|d| d.filter_map(|e| e.ok()).any(holds_results)) {
        return Err(Error::input(format!(
            "{} already holds a fleet's results; give a new folder with -o (or `carmbench fleet report {}`)",
            node_dirs.display(),
            dir.display()
        )));
    }
    slurm::check()?;
    for d in [node_dirs.clone(), dir.join("logs")] {
        std::fs::create_dir_all(&d).map_err(|e| {
            Error::input(format!(
                "cannot create {}: {e}; give another -o",
                d.display()
            ))
        })?;
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::Io(format!("cannot find carmbench itself: {e}")))?;
    let args = slurm::srun_args(nodes, &exe, &dir, plan)?;
    started(&args);
    let (ok, said) = slurm::srun(&args)?;
    let failed = slurm::failed_tasks(&said, &dir);
    Ok(Launched {
        dir,
        args,
        ok,
        said,
        failed,
    })
}

/// This node's name (as Slurm gave it, safe as a folder name) and the
/// folder its task writes in the fleet folder `dir`.
pub fn task_folder(dir: &Path) -> (String, PathBuf) {
    let node: String = slurm::node_name()
        .chars()
        .map(|c| if c == '/' || c.is_control() { '_' } else { c })
        .collect();
    let out = slurm::node_dir(dir, node.trim_start_matches('.'));
    (node, out)
}

/// A task's run failed: the error beside where its results would be.
pub fn task_failed(out: &Path, error: &Error) {
    let _ = std::fs::create_dir_all(out);
    let _ = std::fs::write(out.join(super::ERROR_FILE), format!("{error}\n"));
}
