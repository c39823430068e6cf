//! The MPI launchers `profile --mpi` knows, and how a launch command is
//! split into the launcher with its options and the program every rank
//! runs, so that carmbench can put its rank wrapper between them:
//! `mpirun -np 4 ./app x` becomes `mpirun -np 4 carmbench mpi-rank ... --
//! ./app x`. Every launcher starts the wrapper where it would have started
//! the program (on another node too), so daemons in between do not matter.

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// Open MPI's options that take values (`mpirun --help all`).
#[rustfmt::skip]
const OPEN_MPI: &[(&str, usize)] = &[
    ("np", 1), ("n", 1), ("c", 1), ("H", 1), ("host", 1), ("hostfile", 1),
    ("machinefile", 1), ("default-hostfile", 1), ("x", 1), ("map-by", 1),
    ("rank-by", 1), ("bind-to", 1), ("wdir", 1), ("wd", 1), ("path", 1),
    ("prefix", 1), ("npernode", 1), ("N", 1), ("npersocket", 1), ("ppr", 1),
    ("output-filename", 1), ("tune", 1), ("am", 1), ("cpus-per-proc", 1),
    ("cpus-per-rank", 1), ("cpu-set", 1), ("launch-agent", 1), ("rf", 1),
    ("rankfile", 1), ("report-uri", 1), ("stdin", 1), ("timeout", 1),
    ("personality", 1), ("preload-files", 1), ("ompi-server", 1),
    ("cpu-list", 1), ("report-pid", 1), ("max-restarts", 1), ("tmpdir", 1),
    ("xterm", 1), ("stream-buffering", 1), ("debugger", 1),
    ("server-wait-time", 1), ("slot-list", 1), ("report-events", 1),
    ("initial-errhandler", 1), ("add-host", 1), ("add-hostfile", 1),
    ("output", 1), ("display", 1), ("pset", 1), ("runtime-options", 1),
    ("mca", 2), ("gmca", 2), ("omca", 2), ("prtemca", 2), ("pmixmca", 2),
    ("gpmixmca", 2),
];

/// MPICH Hydra's (`mpiexec -h`).
#[rustfmt::skip]
const MPICH: &[(&str, usize)] = &[
    ("n", 1), ("np", 1), ("f", 1), ("hostfile", 1), ("machinefile", 1),
    ("hosts", 1), ("host", 1), ("ppn", 1), ("wdir", 1), ("genvlist", 1),
    ("envlist", 1), ("bind-to", 1), ("binding", 1), ("map-by", 1),
    ("iface", 1), ("launcher", 1), ("launcher-exec", 1), ("rmk", 1),
    ("demux", 1), ("errfile-pattern", 1), ("outfile-pattern", 1),
    ("prepend-pattern", 1), ("genv", 2), ("env", 2),
];

/// srun's (`man srun`): short ones, then long ones.
#[rustfmt::skip]
const SRUN: &[(&str, usize)] = &[
    ("A", 1), ("B", 1), ("b", 1), ("c", 1), ("C", 1), ("D", 1), ("d", 1),
    ("e", 1), ("G", 1), ("i", 1), ("J", 1), ("L", 1), ("M", 1), ("m", 1),
    ("N", 1), ("n", 1), ("o", 1), ("p", 1), ("q", 1), ("r", 1), ("S", 1),
    ("T", 1), ("t", 1), ("W", 1), ("w", 1), ("x", 1), ("account", 1),
    ("begin", 1), ("chdir", 1), ("clusters", 1), ("comment", 1),
    ("constraint", 1), ("core-spec", 1), ("cpu-bind", 1), ("cpus-per-gpu", 1),
    ("cpus-per-task", 1), ("dependency", 1), ("distribution", 1),
    ("error", 1), ("exclude", 1), ("export", 1), ("gpus", 1),
    ("gpus-per-node", 1), ("gpus-per-task", 1), ("gres", 1), ("input", 1),
    ("job-name", 1), ("jobid", 1), ("licenses", 1), ("mem", 1),
    ("mem-bind", 1), ("mem-per-cpu", 1), ("mem-per-gpu", 1), ("mpi", 1),
    ("nice", 1), ("nodelist", 1), ("nodes", 1), ("ntasks", 1),
    ("ntasks-per-core", 1), ("ntasks-per-node", 1), ("ntasks-per-socket", 1),
    ("output", 1), ("partition", 1), ("qos", 1), ("relative", 1),
    ("reservation", 1), ("signal", 1), ("thread-spec", 1), ("time", 1),
    ("time-min", 1), ("wait", 1),
];

pub use crate::profile::measured::Launcher;

impl Launcher {
    /// Its options that take values, and how many (the others take none).
    /// A value joined with `=` is one argument, whatever the table says.
    fn values(self, option: &str) -> usize {
        let name = option.trim_start_matches('-');
        let table = match self {
            Launcher::OpenMpi => OPEN_MPI,
            Launcher::Mpich => MPICH,
            Launcher::Srun => SRUN,
        };
        if option.contains('=') {
            return 0;
        }
        // srun's short options take their value joined too: `-n2`.
        if self == Launcher::Srun && !option.starts_with("--") && name.len() > 1 {
            let (first, _) = name.split_at(1);
            if table.iter().any(|(n, _)| *n == first) {
                return 0;
            }
        }
        table
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, k)| *k)
    }

    /// Which launcher the program at `path` (given as `given`) is: by its
    /// name, the name its links resolve to, or what it says of itself.
    pub fn of(given: &str, path: &Path) -> Option<Launcher> {
        let name = |p: &Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        for n in [name(&real), name(Path::new(given))] {
            match n.as_str() {
                "srun" => return Some(Launcher::Srun),
                "orterun" | "mpirun.openmpi" | "mpiexec.openmpi" | "prterun" => {
                    return Some(Launcher::OpenMpi);
                }
                "mpiexec.hydra" | "mpirun.mpich" | "mpiexec.mpich" | "hydra_pmi_proxy" => {
                    return Some(Launcher::Mpich);
                }
                _ => {}
            }
        }
        if !matches!(name(Path::new(given)).as_str(), "mpirun" | "mpiexec") {
            return None;
        }
        // An mpirun of no telling name: it says whose it is.
        let out = version(path)?;
        let text = String::from_utf8_lossy(&out.stdout).to_lowercase()
            + &String::from_utf8_lossy(&out.stderr).to_lowercase();
        if text.contains("open mpi") || text.contains("open-mpi") {
            Some(Launcher::OpenMpi)
        } else if text.contains("hydra") || text.contains("mpich") {
            Some(Launcher::Mpich)
        } else {
            None
        }
    }
}

/// A launch command split: the launcher with its options, then the
/// program every rank runs and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct MpiCommand {
    /// Which launcher.
    pub launcher: Launcher,
    /// The launcher and its options, as given.
    pub head: Vec<String>,
    /// The program, as given.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// How long `mpirun --version` may take to say whose it is.
pub const VERSION_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What `path --version` says, within [`VERSION_LIMIT`] (a launcher that
/// hangs is stopped: None).
fn version(path: &Path) -> Option<std::process::Output> {
    use std::process::Stdio;
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let t0 = std::time::Instant::now();
    while child.try_wait().ok()?.is_none() {
        if t0.elapsed() > VERSION_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().ok()
}

/// The launchers' names, for the one line that refuses another.
pub const KNOWN: &str = "Open MPI's mpirun or mpiexec, MPICH's mpiexec, Slurm's srun";

impl MpiCommand {
    /// Split `command` (the launcher found at `path` first).
    pub fn split(command: &[String], path: &Path) -> Result<MpiCommand> {
        let given = command.first().map_or("", String::as_str);
        let launcher = Launcher::of(given, path).ok_or_else(|| {
            Error::input(format!(
                "--mpi: '{given}' is not an MPI launcher carmbench knows ({KNOWN}); start the program with one of them, e.g. carmbench profile --mpi -- mpirun -np 4 ./app"
            ))
        })?;
        Self::split_as(launcher, command)
    }

    /// Split `command` as `launcher`'s.
    pub fn split_as(launcher: Launcher, command: &[String]) -> Result<MpiCommand> {
        let mut k = 1;
        while let Some(a) = command.get(k) {
            if a == ":" {
                break;
            }
            if !a.starts_with('-') || a == "-" {
                break;
            }
            if launcher == Launcher::Srun && a == "--multi-prog" {
                return Err(Error::input(
                    "--mpi: srun --multi-prog runs a different program per rank; profile one program: srun -n N ./app",
                ));
            }
            if launcher == Launcher::OpenMpi && matches!(a.as_str(), "--app" | "-app") {
                return Err(Error::input(
                    "--mpi: mpirun --app reads the programs from a file; profile one program on every rank: mpirun -np N ./app",
                ));
            }
            k += 1 + launcher.values(a);
        }
        let Some(program) = command.get(k) else {
            return Err(Error::input(format!(
                "--mpi: no program after {}'s options in '{}'; give it last, e.g. {} -n 4 ./app",
                launcher.name(),
                command.join(" "),
                command[0]
            )));
        };
        if program == ":" || command[k + 1..].iter().any(|a| a == ":") {
            return Err(Error::input(
                "--mpi: the command runs several programs (':' between them); profile one program on every rank",
            ));
        }
        Ok(MpiCommand {
            launcher,
            head: command[..k].to_vec(),
            program: program.clone(),
            args: command[k + 1..].to_vec(),
        })
    }

    /// The ranks the launch asks for, when its options say (`-np 4`, `-n4`,
    /// `--ntasks=4`).
    pub fn ranks(&self) -> Option<u32> {
        let names: &[&str] = match self.launcher {
            Launcher::OpenMpi => &["-np", "--np", "-n", "--n", "-c"],
            Launcher::Mpich => &["-n", "-np"],
            Launcher::Srun => &["-n", "--ntasks"],
        };
        let mut found = None;
        for (k, a) in self.head.iter().enumerate() {
            let value = match a.split_once('=') {
                Some((n, v)) if names.contains(&n) => Some(v),
                _ if names.contains(&a.as_str()) => self.head.get(k + 1).map(String::as_str),
                _ if self.launcher == Launcher::Srun
                    && a.len() > 2
                    && a.starts_with("-n")
                    && !a.starts_with("--") =>
                {
                    Some(&a[2..])
                }
                _ => None,
            };
            found = value.and_then(|v| v.parse().ok()).or(found);
        }
        found
    }

    /// The launch command with `wrapper` (carmbench and its rank-wrapper
    /// arguments, ending with `--`) before the program.
    pub fn wrapped(&self, wrapper: &[OsString]) -> Vec<OsString> {
        let mut v: Vec<OsString> = self.head.iter().map(OsString::from).collect();
        v.extend(wrapper.iter().cloned());
        v.push(OsString::from(&self.program));
        v.extend(self.args.iter().map(OsString::from));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(l: Launcher, c: &str) -> Result<MpiCommand> {
        let v: Vec<String> = c.split_whitespace().map(String::from).collect();
        MpiCommand::split_as(l, &v)
    }

    #[test]
    fn the_program_follows_the_launchers_options_and_their_values() {
        let l = split(
            Launcher::OpenMpi,
            "mpirun -np 4 --mca btl self,vader --oversubscribe -x A=1 ./app -n 3",
        )
        .unwrap();
        assert_eq!(l.program, "./app");
        assert_eq!(l.args, ["-n", "3"]);
        assert_eq!(l.head.len(), 9);
        let s = split(
            Launcher::Srun,
            "srun -n2 -N 1 --mpi=pmix --ntasks-per-node 2 -l app",
        )
        .unwrap();
        assert_eq!((s.program.as_str(), s.head.len()), ("app", 8));
        let m = split(Launcher::Mpich, "mpiexec -genv A 1 -n 2 app x").unwrap();
        assert_eq!((m.program.as_str(), m.args.len()), ("app", 1));
        assert_eq!(
            (l.ranks(), s.ranks(), m.ranks()),
            (Some(4), Some(2), Some(2))
        );
        let srun = split(Launcher::Srun, "srun --ntasks=3 app").unwrap();
        assert_eq!(srun.ranks(), Some(3));
        let w = l.wrapped(&["carmbench".into(), "--".into()]);
        assert_eq!(w[9], "carmbench");
        assert_eq!(w[11], "./app");
    }

    #[test]
    fn a_launch_of_no_program_or_of_several_is_refused() {
        for (l, c, says) in [
            (Launcher::OpenMpi, "mpirun -np 2", "no program"),
            (
                Launcher::OpenMpi,
                "mpirun -np 1 a : -np 1 b",
                "several programs",
            ),
            (Launcher::Srun, "srun --multi-prog conf", "multi-prog"),
        ] {
            let e = split(l, c).unwrap_err().to_string();
            assert!(e.contains(says), "{c}: {e}");
        }
    }

    #[test]
    fn a_program_that_is_no_launcher_is_refused_by_name() {
        let e = MpiCommand::split(&["./app".into()], Path::new("/bin/true")).unwrap_err();
        assert!(e.to_string().contains("not an MPI launcher"), "{e}");
        assert_eq!(
            Launcher::of("srun", Path::new("/x/srun")),
            Some(Launcher::Srun)
        );
        let hydra = Launcher::of("mpiexec.hydra", Path::new("/x/mpiexec.hydra"));
        assert_eq!(hydra, Some(Launcher::Mpich));
    }

    #[test]
    fn open_mpis_options_with_values_keep_them_before_the_program() {
        let l = split(
            Launcher::OpenMpi,
            "mpirun --cpu-list 0,1 --report-pid - --max-restarts 2 --tmpdir /t -np 2 ./app x",
        )
        .unwrap();
        assert_eq!(
            (l.program.as_str(), l.args.as_slice()),
            ("./app", &["x".to_string()][..])
        );
        assert_eq!(l.ranks(), Some(2));
        let e = split(Launcher::OpenMpi, "mpirun --app jobs.txt").unwrap_err();
        assert!(
            e.to_string()
                .contains("--app reads the programs from a file"),
            "{e}"
        );
    }

    #[test]
    fn an_mpirun_that_hangs_on_version_is_given_up_on() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::files::scratch_dir("hang").unwrap();
        let fake = dir.join("mpirun");
        std::fs::write(&fake, "#!/bin/sh\nexec sleep 600\n").unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let t0 = std::time::Instant::now();
        assert_eq!(Launcher::of("mpirun", &fake), None);
        assert!(t0.elapsed() < VERSION_LIMIT + std::time::Duration::from_secs(5));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
