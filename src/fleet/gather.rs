//! Reading a fleet's results: every `DIR/nodes/<node>/carm.yaml` (or
//! `carm.json`), however they were gathered (Slurm, pdsh, Ansible). A node
//! whose file is missing or damaged is listed with why; the rest are read.

use crate::error::{Error, Result};
use crate::results::{self, Document};
use std::path::{Path, PathBuf};

/// A node's results, or why there are none.
#[derive(Debug)]
pub struct NodeResult {
    /// The node's name: its folder's name.
    pub node: String,
    /// Its document, or the one-line reason it could not be read.
    pub doc: std::result::Result<Document, String>,
}

/// The folder a fleet keeps its nodes' results in.
pub fn nodes_dir(dir: &Path) -> PathBuf {
    dir.join("nodes")
}

/// The results file of a node folder: carm.yaml, else carm.json.
pub fn results_file(node_dir: &Path) -> Option<PathBuf> {
    crate::files::names::RESULTS_FILES
        .iter()
        .map(|f| node_dir.join(f))
        .find(|p| p.is_file())
}

/// Why a node left no results: the error its task recorded, when it did.
fn missing(node_dir: &Path) -> String {
    match std::fs::read_to_string(node_dir.join(super::ERROR_FILE)) {
        Ok(e) if !e.trim().is_empty() => e.trim().lines().last().unwrap_or("").to_string(),
        _ => format!("no carm.yaml in {}", node_dir.display()),
    }
}

/// A node's name from its folder's: bytes that are not UTF-8 written as
/// `\xNN`, so two such names never become the same.
pub fn node_name(folder: &std::ffi::OsStr) -> String {
    let mut out = String::new();
    for chunk in folder.as_encoded_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// Every node of `dir`, by name, read on every core at once (a fleet can
/// have thousands of files).
pub fn gather(dir: &Path) -> Result<Vec<NodeResult>> {
    let nodes = nodes_dir(dir);
    let entries = std::fs::read_dir(&nodes).map_err(|e| {
        Error::input(format!(
            "cannot read {}: {e}; give the folder `carmbench fleet run -o` wrote (its nodes/<node>/carm.yaml)",
            nodes.display()
        ))
    })?;
    let mut dirs: Vec<(String, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| (node_name(&e.file_name()), e.path()))
        .collect();
    if dirs.is_empty() {
        return Err(Error::input(format!(
            "{} holds no node folders; each node's results go to nodes/<node>/carm.yaml",
            nodes.display()
        )));
    }
    dirs.sort();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = dirs.len().div_ceil(workers);
    let read = |(node, path): &(String, PathBuf)| NodeResult {
        node: node.clone(),
        doc: match results_file(path) {
            Some(f) => results::load_roofs(&f).map_err(|e| e.to_string()),
            None => Err(missing(path)),
        },
    };
    let out = std::thread::scope(|s| {
        let handles: Vec<_> = dirs
            .chunks(chunk)
            .map(|c| s.spawn(move || c.iter().map(read).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a reader thread does not panic"))
            .collect()
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn names_that_are_not_utf8_stay_apart() {
        let a = node_name(std::ffi::OsStr::from_bytes(b"n\xff1"));
        let b = node_name(std::ffi::OsStr::from_bytes(b"n\xfe1"));
        assert_eq!(a, "n\\xff1");
        assert_ne!(a, b);
        assert_eq!(node_name(std::ffi::OsStr::new("node-7")), "node-7");
    }
}
