//! The files carmbench reads from users and writes for them, under one set of
//! rules: an input is a bounded UTF-8 text file (a folder, a device that never
//! ends or a file of hundreds of megabytes is refused with one line, before
//! any parsing), and an output is checked before the work that fills it
//! (format by its name, never one of the inputs, its folder made and
//! writable), then written whole through a temporary file and a rename, so
//! nothing already there is lost.

use crate::error::{Error, Result};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The names carmbench gives the files it writes, in one place.
pub mod names {
    use std::path::PathBuf;

    /// Where `run` writes by default.
    pub const RESULTS_DIR: &str = "carm-results";
    /// Where `fleet run` writes by default.
    pub const FLEET_DIR: &str = "fleet-results";
    /// A results file, in each format it is written in (YAML first).
    pub const RESULTS_FILES: [&str; 2] = ["carm.yaml", "carm.json"];
    /// The CARM chart beside a results file, as SVG and PNG.
    pub const CHARTS: [&str; 2] = ["carm.svg", "carm.png"];
    /// The memory curve beside a results file, as SVG and PNG.
    pub const CURVES: [&str; 2] = ["carm-curve.svg", "carm-curve.png"];

    /// GPU `index`'s CARM chart beside a results file (`ext`: svg or png).
    pub fn gpu_chart(index: usize, ext: &str) -> String {
        format!("carm-gpu{index}.{ext}")
    }
    /// The HTML report beside a results file.
    pub const REPORT: &str = "carm.html";
    /// The apps file `profile` writes by default.
    pub const APPS: &str = "apps.yaml";
    /// The quadrant chart `compare --quadrant` writes by default.
    pub const QUADRANT: &str = "quadrant.svg";

    /// `carm.yaml` or `carm.json`, by the format's extension.
    pub fn results_file(extension: &str) -> String {
        format!("carm.{extension}")
    }

    /// Where an interrupted run goes beside a complete one.
    pub fn partial_file(extension: &str) -> String {
        format!("carm.partial.{extension}")
    }

    /// The results file commands read when none is given.
    pub fn default_results() -> PathBuf {
        PathBuf::from(RESULTS_DIR).join(RESULTS_FILES[0])
    }
}

/// The largest input read: a results file with every roof, curve and
/// validation sweep is well under a megabyte; past this it is not one.
pub const MAX_INPUT: u64 = 32 << 20;

/// The text of the file at `path`, `what` naming it in errors ("results file
/// 'a.yaml'"): at most [`MAX_INPUT`] bytes of UTF-8, a byte-order mark dropped.
pub fn read_input(path: &Path, what: &str) -> Result<String> {
    let cannot = |e: &dyn std::fmt::Display| Error::input(format!("cannot read {what}: {e}"));
    if path.is_dir() {
        return Err(Error::input(format!(
            "{what} is a folder; give the file inside it"
        )));
    }
    let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(Error::input(format!(
            "{what} is larger than {} MiB: not a file carmbench wrote; give the right file",
            MAX_INPUT >> 20
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::input(format!(
            "{what} is not UTF-8 text (byte {}); give a file carmbench wrote",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// Write `text` to `path` through a temporary file in the same directory and
/// a rename, so an existing file is replaced whole or not at all.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    read_only(path, "the output")?;
    // Through a link to its target: the link stays a link.
    let target = resolved(path);
    let dir = folder_of(&target);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    // A file replaced keeps its permissions.
    let mode = std::fs::metadata(&target).ok().map(|m| m.permissions());
    std::fs::write(&tmp, text)
        .and_then(|_| mode.map_or(Ok(()), |m| std::fs::set_permissions(&tmp, m)))
        .and_then(|_| std::fs::rename(&tmp, &target))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::Io(format!("cannot write {}: {e}", path.display()))
        })
}

/// The file a path names: a link's target (followed however deep; where a
/// target is missing, the link's own text taken from its folder).
pub fn resolved(path: &Path) -> PathBuf {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return path.to_path_buf();
    }
    std::fs::canonicalize(path).unwrap_or_else(|_| match std::fs::read_link(path) {
        Ok(t) if t.is_absolute() => t,
        Ok(t) => folder_of(path).join(t),
        Err(_) => path.to_path_buf(),
    })
}

/// An error when `path` exists and nobody may write it (mode 444): a file
/// its owner made read-only is not replaced, even by root.
fn read_only(path: &Path, flag: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(resolved(path)) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o222 == 0 => Err(Error::input(format!(
            "{flag} {} is read-only; make it writable (chmod u+w) or give another file",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// The folder a file goes to ("." for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// What an output file holds, which its name must say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// A chart: `.svg` or `.png`.
    Chart,
    /// The HTML report: `.html` or `.htm`.
    Html,
    /// A YAML document (apps file): `.yaml` or `.yml`.
    Yaml,
}

impl OutputKind {
    fn extensions(self) -> &'static [&'static str] {
        match self {
            OutputKind::Chart => &["svg", "png"],
            OutputKind::Html => &["html", "htm"],
            OutputKind::Yaml => &["yaml", "yml"],
        }
    }
    fn what(self) -> &'static str {
        match self {
            OutputKind::Chart => "a chart (.svg or .png)",
            OutputKind::Html => "an HTML page (.html)",
            OutputKind::Yaml => "a YAML file (.yaml)",
        }
    }
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Check, before any work, that `path` can take output of `kind`: its name
/// says that kind, it is none of `inputs`, it is not a folder, and its folder
/// exists (made when missing) and takes a new file. `flag` names the option
/// that gave it ("-o").
pub fn check_output(path: &Path, kind: OutputKind, inputs: &[&Path], flag: &str) -> Result<()> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !ext
        .as_deref()
        .is_some_and(|e| kind.extensions().contains(&e))
    {
        return Err(Error::input(format!(
            "{flag} {}: this writes {}; give a file name ending so",
            path.display(),
            kind.what()
        )));
    }
    if let Some(input) = inputs.iter().find(|i| same_file(i, path)) {
        return Err(Error::input(format!(
            "{flag} {} is an input of this command ({}); give another file, so as not to overwrite it",
            path.display(),
            input.display()
        )));
    }
    if path.is_dir() {
        return Err(Error::input(format!(
            "{flag} {} is a folder; give a file name",
            path.display()
        )));
    }
    read_only(path, flag)?;
    if std::fs::canonicalize(path).is_err_and(|e| e.raw_os_error() == Some(libc::ELOOP)) {
        return Err(Error::input(format!(
            "{flag} {} is a link that leads back to itself; remove it or give another file",
            path.display()
        )));
    }
    writable_folder(folder_of(&resolved(path)), flag)
}

/// Run `f` while holding the lock of `path`'s folder: two carmbench writing
/// one file (reading it, adding to it, writing it back) take turns, so
/// neither loses the other's part. An advisory lock (`flock`) on the
/// folder, which is never replaced as the file is.
pub fn locked<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    use std::os::fd::AsRawFd;
    let dir = folder_of(&resolved(path)).to_path_buf();
    let handle = std::fs::File::open(&dir)
        .map_err(|e| Error::Io(format!("cannot open {}: {e}", dir.display())))?;
    // SAFETY: flock on a descriptor this function owns; released when the
    // file is closed.
    if unsafe { libc::flock(handle.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(Error::Io(format!(
            "cannot lock {}: {}",
            dir.display(),
            std::io::Error::last_os_error()
        )));
    }
    let out = f();
    drop(handle);
    out
}

/// Check that `dir` exists (made when missing) and takes a new file: what a
/// command that writes into a folder checks before its work.
pub fn writable_folder(dir: &Path, flag: &str) -> Result<()> {
    let cannot = |e: &dyn std::fmt::Display| {
        Error::input(format!(
            "cannot write into {}: {e}; give another {flag}",
            dir.display()
        ))
    };
    if dir.exists() && !dir.is_dir() {
        return Err(cannot(&"it is a file, not a folder"));
    }
    std::fs::create_dir_all(dir).map_err(|e| cannot(&e))?;
    let probe: PathBuf = dir.join(format!(".carmbench-probe.{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| cannot(&e))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// A fresh private directory for one run's files.
pub fn scratch_dir(what: &str) -> Result<PathBuf> {
    match SCRATCH_PARENT.get() {
        Some(parent) => scratch_dir_in(parent, what),
        None => scratch_dir_in(&std::env::temp_dir(), what),
    }
}

/// Where this process makes its scratch folders, when not the temporary
/// directory.
static SCRATCH_PARENT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Make every scratch folder of this process in `parent` from now on: a
/// process that may be killed (an MPI rank's wrapper) leaves them where
/// the process that started it removes them.
pub fn scratch_in(parent: &Path) {
    let _ = SCRATCH_PARENT.set(parent.to_path_buf());
}

/// A fresh private directory for one run's files in `parent` (hidden).
pub fn scratch_dir_in(parent: &Path, what: &str) -> Result<PathBuf> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let hidden = if parent == std::env::temp_dir() {
        ""
    } else {
        "."
    };
    let d = parent.join(format!(
        "{hidden}carmbench-{what}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d)
        .map_err(|e| Error::Io(format!("cannot make {}: {e}", d.display())))?;
    if let Ok(mut all) = SCRATCH.lock() {
        all.push(d.clone());
    }
    Ok(d)
}

/// Every scratch folder made, for [`remove_scratch`].
static SCRATCH: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Remove every scratch folder still there (carmbench is being stopped).
pub fn remove_scratch() {
    let all = SCRATCH.lock().map(|mut a| std::mem::take(&mut *a));
    for d in all.unwrap_or_default() {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("carmbench-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn inputs_are_bounded_utf8_files_and_a_bom_is_dropped() {
        let d = dir("in");
        let f = d.join("a.yaml");
        std::fs::write(&f, "\u{feff}schema: 1\n").unwrap();
        assert_eq!(read_input(&f, "results file").unwrap(), "schema: 1\n");
        std::fs::write(&f, b"schema: \xff\n").unwrap();
        let e = read_input(&f, "results file").unwrap_err().to_string();
        assert!(e.contains("not UTF-8"), "{e}");
        let e = read_input(&d, "results file").unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        // A device that never ends is cut at the cap, not read until memory runs out.
        let e = read_input(Path::new("/dev/zero"), "results file")
            .unwrap_err()
            .to_string();
        assert!(e.contains("larger than 32 MiB"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_output_must_say_its_kind_be_no_input_and_be_writable() {
        let d = dir("out");
        let input = d.join("carm.yaml");
        std::fs::write(&input, "x").unwrap();
        let check = |p: &Path, k| check_output(p, k, &[&input], "-o");
        assert!(check(&d.join("r.html"), OutputKind::Html).is_ok());
        let e = check(&d.join("r.png"), OutputKind::Html).unwrap_err();
        assert!(e.to_string().contains("HTML page"), "{e}");
        let e = check(&input, OutputKind::Yaml).unwrap_err();
        assert!(e.to_string().contains("is an input"), "{e}");
        // The same file by another path is still the input.
        let other = d.join(".").join("carm.yaml");
        assert!(check(&other, OutputKind::Yaml).is_err());
        // Missing folders are made.
        assert!(check(&d.join("new/deeper/c.svg"), OutputKind::Chart).is_ok());
        assert!(d.join("new/deeper").is_dir());
        // A file where the folder goes.
        let e = check(&input.join("c.svg"), OutputKind::Chart).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_atomic_write_replaces_a_file_whole_or_leaves_it() {
        let dir = std::env::temp_dir().join(format!("carmbench-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("carm.yaml");
        std::fs::write(&f, "old\n").unwrap();
        write_atomic(&f, "new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new\n");
        // The rename cannot happen (a directory is in the way): an error,
        // the directory untouched, no temporary file left.
        let blocked = dir.join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("inside"), "kept").unwrap();
        let e = write_atomic(&blocked, "text").unwrap_err();
        assert!(e.to_string().contains("cannot write"), "{e}");
        assert_eq!(
            std::fs::read_to_string(blocked.join("inside")).unwrap(),
            "kept"
        );
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(left.iter().all(|n| !n.ends_with(".tmp")), "{left:?}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
