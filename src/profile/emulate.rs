//! Counting by emulation: the program runs under QEMU's user-mode emulator
//! (`qemu-x86_64`, Debian's `qemu-user`) with carmbench's counting plugin
//! (`qemu-plugin/`, its own crate under GPL-2.0-or-later, loaded by QEMU in
//! its own process), which decodes every instruction once and counts the
//! flops and bytes each block requests each time it runs, per thread and per
//! region. Exact where a PMU estimates bytes from instruction counts, and
//! available where no PMU is exposed (most VMs and containers).

use crate::error::{Error, Result};
use crate::results::apps::InstructionMix;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The plugin's file name, as cargo builds it.
pub const PLUGIN_FILE: &str = "libcarmbench_qemu_plugin.so";

/// The emulator binary.
pub const QEMU: &str = "qemu-x86_64";

/// The x86-64 level QEMU's default CPU model offers: AVX2 and FMA, no
/// AVX-512. Programs that dispatch on CPUID take their AVX2 paths there.
pub const LEVEL: &str = "x86-64-v3";

pub use carmbench_counts::{Counts, Output, RegionCounts};

/// The instruction mix behind a program's counts.
pub fn mix(c: &Counts) -> InstructionMix {
    let f = |x: u64| x as f64;
    InstructionMix {
        dp_flops: f(c.dp_fma_flops + c.dp_other_flops),
        sp_flops: f(c.sp_fma_flops + c.sp_other_flops),
        fma_flops: f(c.fma_flops()),
        other_flops: f(c.dp_other_flops + c.sp_other_flops),
        fp_scalar: f(c.fp_scalar),
        fp_128: f(c.fp_128),
        fp_256: f(c.fp_256),
        fp_512: f(c.fp_512),
        x87: f(c.x87),
        bytes_loaded: f(c.bytes_loaded),
        bytes_stored: f(c.bytes_stored),
        loads: f(c.loads),
        stores: f(c.stores),
        instructions: f(c.instructions),
    }
}

/// The emulator and the plugin, found.
#[derive(Debug, Clone)]
pub struct Emulator {
    /// `qemu-x86_64`.
    pub qemu: PathBuf,
    /// Its version, e.g. "7.2.22".
    pub version: String,
    /// The counting plugin.
    pub plugin: PathBuf,
}

/// `name` on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

impl Emulator {
    /// Find `qemu-x86_64` on `PATH` and the plugin: `plugin` when given,
    /// else beside this executable. Why not, as one line with the fix.
    pub fn find(plugin: Option<&Path>) -> Result<Emulator> {
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
            None => std::env::current_exe()
                .ok()
                .and_then(|e| Some(e.parent()?.join(PLUGIN_FILE)))
                .unwrap_or_else(|| PathBuf::from(PLUGIN_FILE)),
        };
        if !plugin.is_file() {
            return Err(Error::input(format!(
                "the counting plugin {} is missing: build it with `cargo build --release` (it is built beside carmbench) or give its path with --plugin",
                plugin.display()
            )));
        }
        if plugin.to_string_lossy().contains(',') {
            return Err(Error::input(format!(
                "QEMU cannot take a plugin path with a comma ({}); move the plugin and give --plugin",
                plugin.display()
            )));
        }
        Ok(Emulator {
            qemu,
            version,
            plugin,
        })
    }

    /// Where the counts come from, for the apps file.
    pub fn source(&self) -> String {
        format!("emulation, qemu {}, {LEVEL}", self.version)
    }

    /// Run `program` with `args` under the emulator with the plugin, its
    /// output discarded (the native run shows it), regions marked for the
    /// plugin; what the plugin counted.
    pub fn count(&self, program: &str, args: &[String]) -> Result<Output> {
        self.count_with_env(program, args, &[])
    }

    /// [`Emulator::count`] with more environment variables for the program.
    pub fn count_with_env(
        &self,
        program: &str,
        args: &[String],
        env: &[(&str, &str)],
    ) -> Result<Output> {
        let dir = crate::files::scratch_dir("emulate")?;
        let out = dir.join("counts.json");
        let run = Command::new(&self.qemu)
            .arg("-plugin")
            .arg(format!(
                "file={},out={}",
                self.plugin.display(),
                out.display()
            ))
            .arg(program)
            .args(args)
            .envs(env.iter().copied())
            .env(carmbench_regions::EMULATED_ENV, "1")
            .env_remove(carmbench_regions::OUT_ENV)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        let text = std::fs::read_to_string(&out);
        let _ = std::fs::remove_dir_all(&dir);
        let run =
            run.map_err(|e| Error::input(format!("cannot run {}: {e}", self.qemu.display())))?;
        let stderr = String::from_utf8_lossy(&run.stderr);
        if let Some(e) = emulation_failure(program, &run.status, &stderr, text.is_ok()) {
            return Err(e);
        }
        let text = text.map_err(|e| {
            Error::Io(format!(
                "the counting plugin wrote no counts ({e}); QEMU said: {}",
                one_line(&stderr)
            ))
        })?;
        let o: Output = serde_json::from_str(&text)
            .map_err(|e| Error::Io(format!("unreadable counts from the plugin: {e}")))?;
        if o.version != carmbench_counts::VERSION {
            return Err(Error::input(format!(
                "the counting plugin writes counts of version {}, this carmbench reads version {}; rebuild both together",
                o.version,
                carmbench_counts::VERSION
            )));
        }
        Ok(o)
    }
}

/// Why an emulated run gave no counts: the program stopped on an
/// instruction QEMU cannot emulate, QEMU refused the plugin, or the program
/// failed under emulation.
fn emulation_failure(
    program: &str,
    status: &std::process::ExitStatus,
    stderr: &str,
    counted: bool,
) -> Option<Error> {
    use std::os::unix::process::ExitStatusExt;
    if status.signal() == Some(libc::SIGILL) || stderr.contains("Illegal instruction") {
        return Some(Error::input(format!(
            "'{program}' stopped on an instruction QEMU cannot emulate (SIGILL; QEMU emulates x86-64 up to AVX2, not AVX-512): its flops and bytes cannot be counted by emulation; build it for AVX2 (e.g. -march=x86-64-v3), count on a machine with a PMU (--counts pmu), or give the counts (--flops N --bytes M)"
        )));
    }
    if !counted && stderr.contains("plugin") {
        return Some(Error::input(format!(
            "QEMU did not load the counting plugin ({}); the plugin speaks QEMU's plugin API version 1 (QEMU 7.2): use that QEMU, or count with --counts pmu or --flops/--bytes",
            one_line(stderr)
        )));
    }
    if !status.success() {
        return Some(Error::input(format!(
            "'{program}' failed under emulation ({status}) though it ran natively; no point written ({})",
            one_line(stderr)
        )));
    }
    None
}

/// A program's error text on one line.
fn one_line(s: &str) -> String {
    let t: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if t.is_empty() {
        "nothing on standard error".into()
    } else {
        t.join(" / ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_give_w_q_and_the_mix() {
        let c = Counts {
            dp_fma_flops: 200,
            dp_other_flops: 10,
            sp_other_flops: 4,
            x87: 7,
            bytes_loaded: 2400,
            bytes_stored: 800,
            ..Counts::default()
        };
        assert_eq!((c.flops(), c.fma_flops(), c.bytes()), (214, 200, 3200));
        let m = mix(&c);
        assert_eq!((m.dp_flops, m.sp_flops, m.other_flops), (210.0, 4.0, 14.0));
        assert_eq!(m.x87, 7.0);
    }

    #[test]
    fn failures_under_emulation_are_told_apart() {
        use std::os::unix::process::ExitStatusExt;
        let sigill = std::process::ExitStatus::from_raw(libc::SIGILL);
        let e = emulation_failure("./avx512", &sigill, "", false).unwrap();
        assert!(e.to_string().contains("SIGILL") && e.to_string().contains("x86-64-v3"));
        let one = std::process::ExitStatus::from_raw(1 << 8);
        let e = emulation_failure("./p", &one, "Could not load plugin x: version", false).unwrap();
        assert!(
            e.to_string().contains("did not load the counting plugin"),
            "{e}"
        );
        let e = emulation_failure("./p", &one, "segfault", true).unwrap();
        assert!(e.to_string().contains("failed under emulation"), "{e}");
        let ok = std::process::ExitStatus::from_raw(0);
        assert!(emulation_failure("./p", &ok, "", true).is_none());
    }
}
