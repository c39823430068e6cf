//! The command a user profiles, found as a shell finds it: a name with a
//! slash is a path, a bare name is looked up on `PATH`; a `#!` script runs
//! its interpreter. Checked before anything runs, with one line saying why
//! it cannot run.

use crate::error::{Error, Result};
use carmbench_counts::follow::{self, Launch, Refused};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A command to profile, found. Its name and arguments are the bytes the
/// user gave, UTF-8 or not, as a shell passes them.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// The name as given, for people (shown lossily when not UTF-8).
    pub given: String,
    /// The name as given: the program's `argv[0]`.
    pub argv0: OsString,
    /// The file it names.
    pub path: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The longest one run of it may take (`--timeout`).
    pub timeout: Option<std::time::Duration>,
}

/// Find the program of `command` (checked: present, a file, executable).
pub fn find(command: &[OsString]) -> Result<Found> {
    let (given, args) = command.split_first().ok_or_else(|| {
        Error::input(
            "no command to profile; write it after --, e.g. carmbench profile -- ./app arg",
        )
    })?;
    found(given, args)
}

/// `given` with `args`, found on `PATH` as a shell would.
pub fn found(given: impl AsRef<OsStr>, args: &[OsString]) -> Result<Found> {
    let argv0 = given.as_ref().to_os_string();
    let given = argv0.to_string_lossy().into_owned();
    let given = given.as_str();
    let path_var = std::env::var_os("PATH");
    let path = if argv0.as_bytes().contains(&b'/') {
        PathBuf::from(&argv0)
    } else {
        follow::search(&argv0, path_var.as_deref()).ok_or_else(|| {
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
    runnable(given, &path)?;
    Ok(Found {
        given: given.to_string(),
        argv0,
        path,
        args: args.to_vec(),
        timeout: None,
    })
}

/// An error for a file the kernel would refuse to start (`execve`'s "Exec
/// format error"), saying what it is: a script without its `#!` line (a
/// shell runs those, the kernel does not) or a program for another machine.
fn runnable(given: &str, path: &Path) -> Result<()> {
    let Ok(head) = follow::head(path) else {
        // Unreadable but executable: the kernel decides, and says why.
        return Ok(());
    };
    match follow::kind(&head) {
        follow::Kind::Script { interpreter, .. } => shebang(given, &head, &interpreter),
        follow::Kind::Other => Err(Error::input(format!(
            "cannot run '{given}': it is neither a program nor a script with a #! line; add one (e.g. #!/bin/sh) as its first line, or give its interpreter: -- sh {given}"
        ))),
        follow::Kind::ForeignElf if !binfmt_enabled() => Err(Error::input(format!(
            "cannot run '{given}': it is a program for another machine ({}), and this one runs x86-64; build it for this machine or profile it on its own",
            machine_of(&head)
        ))),
        _ => Ok(()),
    }
}

/// An error for a script whose `#!` line the kernel cannot follow: one
/// that ends in a carriage return (the kernel takes it as part of the
/// interpreter's name), or one that names no interpreter there is.
fn shebang(given: &str, head: &[u8], interpreter: &Path) -> Result<()> {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    if line.ends_with(b"\r") {
        return Err(Error::input(format!(
            "cannot run '{given}': its #! line ends in a carriage return (Windows line ends), which the kernel reads as part of the interpreter's name; convert the file: sed -i 's/\\r$//' {given}"
        )));
    }
    if !follow::executable(interpreter) {
        return Err(Error::input(format!(
            "cannot run '{given}': its #! line names {}, which is not an executable file here; fix the #! line or install that interpreter",
            interpreter.display()
        )));
    }
    Ok(())
}

/// Whether the kernel hands other machines' programs to an emulator
/// (`binfmt_misc` with an entry enabled, as qemu-user-binfmt installs).
fn binfmt_enabled() -> bool {
    let dir = Path::new("/proc/sys/fs/binfmt_misc");
    let on = |p: &Path| std::fs::read_to_string(p).is_ok_and(|t| t.starts_with("enabled"));
    on(&dir.join("status"))
        && std::fs::read_dir(dir).is_ok_and(|d| {
            d.flatten()
                .filter(|e| !matches!(e.file_name().to_str(), Some("status" | "register")))
                .any(|e| on(&e.path()))
        })
}

/// The machine an ELF header names (`e_machine`), for a message.
fn machine_of(head: &[u8]) -> String {
    let class = head.get(4).copied();
    let m = head.get(18..20).map(|b| u16::from_le_bytes([b[0], b[1]]));
    match (m, class) {
        (Some(183), _) => "AArch64".into(),
        (Some(40), _) => "32-bit Arm".into(),
        (Some(243), _) => "RISC-V".into(),
        (Some(3), _) => "32-bit x86".into(),
        (Some(62), Some(1)) => "x32".into(),
        (Some(21), _) => "64-bit PowerPC".into(),
        (Some(22), _) => "IBM Z".into(),
        (Some(m), _) => format!("ELF machine {m}"),
        (None, _) => "a truncated ELF header".into(),
    }
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
        let e = find(&[plain.clone().into_os_string()]).unwrap_err();
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
        // Refused when found (the kernel could not run it either), or when
        // its launch is resolved.
        let e = found(s.to_str().unwrap(), &[])
            .and_then(|f| f.launch().map(|_| ()))
            .unwrap_err();
        assert!(e.to_string().contains("#! line"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
