//! The emulator that counts (`profile --counts emulate`): the program
//! runs under QEMU's user-mode emulator (`qemu-x86_64`, Debian's
//! `qemu-user`) with carmbench's counting plugin
//! (`qemu-plugin/`, its own crate under GPL-2.0-or-later, loaded by QEMU in
//! its own process), which decodes every instruction once and counts the
//! flops and bytes each block requests each time it runs, per thread and per
//! region. Exact where a PMU estimates bytes from instruction counts, and
//! available where no PMU is exposed (most VMs and containers).
//!
//! Every program the command starts is counted too: the preload library
//! (`follow/`) restarts QEMU with the plugin at each exec, forked children
//! count from zero, and the plugin writes one file per process; their sum
//! is the command's W and Q ([`Emulated`]).

use crate::error::{Error, Result};
use crate::profile::launch::command::Found;
use crate::profile::launch::identity::{Flag, Identity};
use crate::profile::launch::plugin_counts::{Emulated, read_processes};
use crate::profile::launch::stderr::{emulation_failure, one_line, unwritten, with_stderr};
use crate::profile::launch::tree::{self, Leftovers, Rules};
use carmbench_counts::follow::{self, Config};
use carmbench_counts::protocol::PROGRAM_ENV;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The plugin's file name, as cargo builds it.
pub const PLUGIN_FILE: &str = "libcarmbench_qemu_plugin.so";
/// The preload library's file name, as cargo builds it.
pub const PRELOAD_FILE: &str = "libcarmbench_follow.so";
/// The program that tells what CPU QEMU shows a guest (`carmbench cpuid`).
pub const PROBE_FILE: &str = "carmbench";

/// The emulator binary.
pub const QEMU: &str = "qemu-x86_64";

/// The x86-64 level QEMU's own CPU model offers: AVX2 and FMA, no
/// AVX-512.
pub const LEVEL: &str = "x86-64-v3";

/// The emulator, the plugin and the preload library, found.
#[derive(Debug, Clone)]
pub struct Emulator {
    /// `qemu-x86_64`.
    pub qemu: PathBuf,
    /// Its version, e.g. "7.2.22".
    pub version: String,
    /// The counting plugin.
    pub plugin: PathBuf,
    /// The preload library that follows every program the command starts.
    pub preload: PathBuf,
    /// The CPU every emulated program is shown: this one's, or why not.
    pub identity: std::result::Result<Identity, String>,
}

/// `name` on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    follow::search(OsStr::new(name), std::env::var_os("PATH").as_deref()).filter(|p| p.is_file())
}

/// A part carmbench runs beside itself: beside `near` when there, else
/// beside this executable.
fn beside(file: &str, near: Option<&Path>) -> PathBuf {
    if let Some(here) = near.map(|n| n.with_file_name(file)).filter(|p| p.is_file()) {
        return here;
    }
    std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.join(file)))
        .unwrap_or_else(|| PathBuf::from(file))
}

impl Emulator {
    /// Find `qemu-x86_64` on `PATH`, the plugin (`plugin` when given, else
    /// beside this executable) and the preload library (beside the plugin,
    /// else beside this executable). Why not, as one line with the fix.
    pub fn find(plugin: Option<&Path>) -> Result<Emulator> {
        Self::find_without(plugin, &[])
    }

    /// [`Emulator::find`], the emulated CPU without the features `without`
    /// besides those QEMU cannot emulate.
    pub fn find_without(plugin: Option<&Path>, without: &[&'static Flag]) -> Result<Emulator> {
        // The plugin decodes x86-64 instructions: it cannot count another
        // architecture's programs.
        if cfg!(not(target_arch = "x86_64")) {
            return Err(Error::input(
                "counting by emulation decodes x86-64 programs only; on this machine count with the PMU (--counts pmu) or give the counts (--flops N --bytes M)",
            ));
        }
        let qemu = on_path(QEMU).ok_or_else(|| {
            Error::input(format!(
                "{QEMU} is not installed: install it with `apt-get install qemu-user` (as root)"
            ))
        })?;
        let out = Command::new(&qemu)
            .arg("--version")
            .output()
            .map_err(|e| Error::input(format!("cannot run {}: {e}", qemu.display())))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = text
            .split_whitespace()
            .skip_while(|w| *w != "version")
            .nth(1)
            .unwrap_or("unknown")
            .to_string();
        let plugin = match plugin {
            Some(p) => p.to_path_buf(),
            None => beside(PLUGIN_FILE, None),
        };
        if !plugin.is_file() {
            return Err(Error::input(format!(
                "the counting plugin {} is missing: build it with `cargo build --release` (it is built beside carmbench) or give its path with --plugin",
                plugin.display()
            )));
        }
        let preload = beside(PRELOAD_FILE, Some(&plugin));
        if !preload.is_file() {
            return Err(Error::input(format!(
                "the preload library {} is missing: build it with `cargo build --release` (it is built beside carmbench)",
                preload.display()
            )));
        }
        let probe = beside(PROBE_FILE, Some(&plugin));
        let probe = match probe.is_file() {
            true => probe,
            false => std::env::current_exe().unwrap_or(probe),
        };
        let identity = Identity::resolve(&qemu, &probe, without).map_err(|e| e.to_string());
        let e = Emulator {
            qemu,
            version,
            plugin,
            preload,
            identity,
        };
        e.config(&std::env::temp_dir())
            .check()
            .map_err(|why| Error::input(format!("{why}; move it and give --plugin")))?;
        Ok(e)
    }

    /// How every process is started, counting into `out`.
    pub(crate) fn config(&self, out: &Path) -> Config {
        Config {
            qemu: self.qemu.clone(),
            plugin: self.plugin.clone(),
            out: out.to_path_buf(),
            preload: self.preload.clone(),
            cpu: self.identity.as_ref().ok().map(|i| i.cpu_arg().into()),
        }
    }

    /// Where the counts come from, for the apps file.
    pub fn source(&self) -> String {
        let Ok(id) = &self.identity else {
            return format!(
                "emulation, qemu {}, its own CPU model ({LEVEL}): code that chooses by CPU may have run another path than natively",
                self.version
            );
        };
        let h = &id.host;
        let mut s = format!(
            "emulation, qemu {}, as this CPU ({} family {:#x} model {:#x} stepping {})",
            self.version, h.vendor, h.family, h.model, h.stepping
        );
        if !id.hidden.is_empty() {
            s += &format!(
                "; hidden from the program, as QEMU cannot emulate them{}: {} (code that needs them ran another path; to count the host's own path, count a twin build of it QEMU runs with --count-with)",
                match id.withheld.is_empty() {
                    true => String::new(),
                    false => format!(" or as asked ({})", id.withheld.join(", ")),
                },
                id.hidden.join(", ")
            );
        }
        s
    }

    /// Run `program` (a path, or a name on `PATH`) with `args` under the
    /// emulator with the plugin, and every program it starts; its output
    /// discarded (the native run shows it), regions marked for the plugin.
    pub fn count(&self, program: &str, args: &[String]) -> Result<Emulated> {
        self.count_with_env(program, args, &[])
    }

    /// [`Emulator::count`] with more environment variables for the program.
    pub fn count_with_env(
        &self,
        program: &str,
        args: &[String],
        env: &[(&str, &str)],
    ) -> Result<Emulated> {
        let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        self.count_found(
            &crate::profile::launch::command::found(program, &args)?,
            env,
        )
    }

    /// [`Emulator::count`] of a command already found.
    pub fn count_found(&self, f: &Found, env: &[(&str, &str)]) -> Result<Emulated> {
        self.count_found_with(f, env, Stdio::null())
    }

    /// [`Emulator::count_found`] reading `stdin`.
    pub fn count_found_with(
        &self,
        f: &Found,
        env: &[(&str, &str)],
        stdin: Stdio,
    ) -> Result<Emulated> {
        let dir = crate::files::scratch_dir("emulate")?;
        let mut cmd = guest_command(&self.config(&dir), f, env)?;
        cmd.stdin(stdin).stdout(Stdio::null());
        without_terminal(&mut cmd);
        // Processes it leaves waiting are carmbench's copies: stopped (they
        // write their counts as they end).
        let rules = Rules {
            timeout: f.timeout,
            leftovers: Leftovers::Stop,
            run: "emulated run",
        };
        let (ended, stderr) = with_stderr(cmd, |cmd| tree::run(cmd, &rules, || {}));
        let counted = read_processes(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let ended = ended?;
        let any = counted.as_ref().is_ok_and(|c| !c.processes.is_empty());
        let short = counted.as_ref().map_or(true, |c| !any || c.lost > 0);
        if let Some(e) = unwritten(&stderr, &dir, short) {
            return Err(e);
        }
        let withheld = self.identity.as_ref().map_or(&[][..], |i| &i.withheld[..]);
        if let Some(e) = emulation_failure(&f.given, &ended.status, &stderr, any, withheld) {
            return Err(e);
        }
        let mut counted = counted?;
        if counted.processes.is_empty() {
            return Err(Error::Io(format!(
                "the counting plugin wrote no counts; QEMU said: {}",
                one_line(&stderr)
            )));
        }
        counted.settle(ended.left);
        Ok(counted)
    }
}

/// `cmd` runs in a session of its own, with no controlling terminal: a
/// program that opens `/dev/tty` (a password prompt) fails to there, where
/// it would wait for the user to type again; carmbench stops the run on
/// Ctrl-C itself.
fn without_terminal(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe, as the child between fork and
    // exec needs; a child is no group leader, so it cannot fail.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
}

/// The host command that runs `f` under QEMU as `config` says, with `env`
/// for the program: its preload and carmbench's own variables set as the
/// guest must see them.
pub fn guest_command(config: &Config, f: &Found, env: &[(&str, &str)]) -> Result<Command> {
    let launch = f.launch()?;
    let theirs = std::env::var_os("LD_PRELOAD");
    let rest: Vec<&OsStr> = f.args.iter().map(|a| a.as_os_str()).collect();
    let argv = config.command(&launch, &f.argv0, &rest, theirs.as_deref());
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .env_remove("LD_PRELOAD")
        .env(PROGRAM_ENV, &f.argv0)
        .envs(env.iter().copied())
        .env(carmbench_regions::EMULATED_ENV, "1")
        .env_remove(carmbench_regions::OUT_ENV)
        .env_remove(follow::CONFIG_ENV);
    Ok(cmd)
}
