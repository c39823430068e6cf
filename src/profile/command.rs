//! The command a user profiles, found as a shell finds it: a name with a
//! slash is a path, a bare name is looked up on `PATH`; a `#!` script runs
//! its interpreter. Checked before anything runs, with one line saying why
//! it cannot run.

use crate::error::{Error, Result};
use carmbench_counts::follow::{self, Launch, Refused};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// A command to profile, found.
#[derive(Debug, Clone)]
pub struct Found {
    /// The name as given (`argv[0]`).
    pub given: String,
    /// The file it names.
    pub path: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

/// Find the program of `command` (checked: present, a file, executable).
pub fn find(command: &[String]) -> Result<Found> {
    let (given, args) = command.split_first().ok_or_else(|| {
        Error::input(
            "no command to profile; write it after --, e.g. carmbench profile -- ./app arg",
        )
    })?;
    found(given, args)
}

/// `given` with `args`, found on `PATH` as a shell would.
pub fn found(given: &str, args: &[String]) -> Result<Found> {
    let path_var = std::env::var_os("PATH");
    let path = if given.contains('/') {
        PathBuf::from(given)
    } else {
        follow::search(OsStr::new(given), path_var.as_deref()).ok_or_else(|| {
            Error::input(format!(
                "cannot run '{given}': no such program on PATH (give its path, e.g. ./{given}, or install it)"
            ))
        })?
    };
    if path.is_dir() {
        return Err(Error::input(format!(
            "cannot run '{given}': it is a folder; give the program inside it"
        )));
    }
    if !path.is_file() {
        return Err(Error::input(format!(
            "cannot run '{given}': no such program (give its path, or a command on PATH)"
        )));
    }
    if !follow::executable(&path) {
        return Err(Error::input(format!(
            "cannot run '{given}': it is not executable (chmod +x {given})"
        )));
    }
    Ok(Found {
        given: given.to_string(),
        path,
        args: args.to_vec(),
    })
}

impl Found {
    /// The x86-64 ELF program QEMU loads for it (a script's interpreter,
    /// in turn), as the kernel would; a file of neither kind runs under
    /// `/bin/sh`, as a shell runs it.
    pub fn launch(&self) -> Result<Launch> {
        follow::resolve(&self.path, true).map_err(|r| match r {
            Refused::Io(p, e) => Error::input(format!(
                "cannot run '{}': {} cannot be read ({}){}",
                self.given,
                p.display(),
                std::io::Error::from_raw_os_error(e),
                if p != self.path {
                    "; fix the script's #! line"
                } else {
                    ""
                }
            )),
            Refused::Foreign(p) => Error::input(format!(
                "cannot count '{}' by emulation: {} is not an x86-64 program; count with the PMU (--counts pmu) or give the counts (--flops N --bytes M)",
                self.given,
                p.display()
            )),
            Refused::NotExecutable(p) => Error::input(format!(
                "cannot run '{}': {} nests #! interpreters more than 4 deep",
                self.given,
                p.display()
            )),
        })
    }

    /// The file name, for a point's default name.
    pub fn file_name(&self) -> String {
        Path::new(&self.given)
            .file_name()
            .map_or(self.given.clone(), |f| f.to_string_lossy().into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_are_found_on_path_and_bad_ones_named() {
        let f = find(&["sh".into(), "-c".into(), "true".into()]).unwrap();
        assert!(f.path.is_absolute() && f.path.ends_with("sh"));
        assert_eq!(f.args, ["-c", "true"]);
        assert!(f.launch().unwrap().dynamic);
        let e = find(&["no-such-program-carmbench".into()]).unwrap_err();
        assert!(e.to_string().contains("no such program on PATH"), "{e}");
        let e = find(&["/".into()]).unwrap_err();
        assert!(e.to_string().contains("folder"), "{e}");
        assert!(find(&[]).is_err());
        let dir = crate::files::scratch_dir("command-plain").unwrap();
        let plain = dir.join("notes.txt");
        std::fs::write(&plain, "text").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = find(&[plain.to_string_lossy().into_owned()]).unwrap_err();
        assert!(e.to_string().contains("not executable"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_script_with_a_missing_interpreter_names_its_line() {
        let dir = crate::files::scratch_dir("command-test").unwrap();
        let s = dir.join("s.sh");
        std::fs::write(&s, "#!/no/such/interpreter\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&s, std::fs::Permissions::from_mode(0o755)).unwrap();
        let e = found(s.to_str().unwrap(), &[])
            .unwrap()
            .launch()
            .unwrap_err();
        assert!(e.to_string().contains("#! line"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
