//! Counting by emulation: the program runs under QEMU's user-mode emulator
//! (`qemu-x86_64`, Debian's `qemu-user`) with carmbench's counting plugin
//! (`qemu-plugin/`, its own crate under GPL-2.0-or-later, loaded by QEMU in
//! its own process), which decodes every instruction once and counts the
//! flops and bytes each block requests each time it runs, per thread and per
//! region. Exact where a PMU estimates bytes from instruction counts, and
//! available where no PMU is exposed (most VMs and containers).
//!
//! Every program the command starts is counted too: the preload library
//! (`follow/`) restarts QEMU with the plugin at each exec, forked children
//! count from zero, and the plugin writes one file per process; their sum
//! is the command's W and Q ([`Counted`]).

use super::command::Found;
use crate::error::{Error, Result};
use crate::results::apps::InstructionMix;
use carmbench_counts::follow::{self, Config};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The plugin's file name, as cargo builds it.
pub const PLUGIN_FILE: &str = "libcarmbench_qemu_plugin.so";
/// The preload library's file name, as cargo builds it.
pub const PRELOAD_FILE: &str = "libcarmbench_follow.so";

/// The emulator binary.
pub const QEMU: &str = "qemu-x86_64";

/// The x86-64 level QEMU's default CPU model offers: AVX2 and FMA, no
/// AVX-512. Programs that dispatch on CPUID take their AVX2 paths there.
pub const LEVEL: &str = "x86-64-v3";

pub use carmbench_counts::{Counts, Output, RegionCounts};

use crate::kernels::Precision;

/// The arithmetic most of a count's work is: double and single precision's
/// flops (None: the FP roofs), unless the narrow types' vector ops outnumber
/// them, then the integer type with the most ops, BF16 or FP16.
pub fn dominant(c: &Counts) -> Option<Precision> {
    let integer = [
        (Precision::Int8, c.int8_ops),
        (Precision::Int16, c.int16_ops),
        (Precision::Int32, c.int32_ops),
    ]
    .into_iter()
    .rev()
    .max_by_key(|x| x.1)
    .map(|x| x.0);
    [
        (integer, c.integer_ops()),
        (Some(Precision::Bf16), c.bf16_flops),
        (Some(Precision::Fp16), c.fp16_flops),
    ]
    .into_iter()
    .filter(|x| x.1 > c.flops())
    .max_by_key(|x| x.1)
    .and_then(|x| x.0)
}

/// W of a count in the unit of the roofs of `precision`: flops of double
/// and single, all integer ops for an integer type (a dot product's
/// widening steps are integer work of several widths), BF16 or FP16 flops.
pub fn work(c: &Counts, precision: Option<Precision>) -> u64 {
    match precision {
        Some(p) if p.is_integer() => c.integer_ops(),
        Some(Precision::Bf16) => c.bf16_flops,
        Some(Precision::Fp16) => c.fp16_flops,
        _ => c.flops(),
    }
}

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
        int8_ops: f(c.int8_ops),
        int16_ops: f(c.int16_ops),
        int32_ops: f(c.int32_ops),
        bf16_flops: f(c.bf16_flops),
        fp16_flops: f(c.fp16_flops),
    }
}

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
}

/// What the emulated run of a command counted: the sums over every process
/// it started, and each process.
#[derive(Debug, Clone, Default)]
pub struct Counted {
    /// The most threads one process ran.
    pub threads: usize,
    /// The whole command.
    pub total: Counts,
    /// Each region, summed over processes by name.
    pub regions: Vec<RegionCounts>,
    /// Each process, in the order they started.
    pub processes: Vec<Output>,
    /// Processes that ended without writing their counts (killed by a
    /// signal).
    pub lost: usize,
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
        let e = Emulator {
            qemu,
            version,
            plugin,
            preload,
        };
        e.config(&std::env::temp_dir())
            .check()
            .map_err(|why| Error::input(format!("{why}; move it and give --plugin")))?;
        Ok(e)
    }

    /// How every process is started, counting into `out`.
    fn config(&self, out: &Path) -> Config {
        Config {
            qemu: self.qemu.clone(),
            plugin: self.plugin.clone(),
            out: out.to_path_buf(),
            preload: self.preload.clone(),
        }
    }

    /// Where the counts come from, for the apps file.
    pub fn source(&self) -> String {
        format!(
            "emulation, qemu {}, {LEVEL}: code that chooses by CPU ran its AVX2 path",
            self.version
        )
    }

    /// Run `program` (a path, or a name on `PATH`) with `args` under the
    /// emulator with the plugin, and every program it starts; its output
    /// discarded (the native run shows it), regions marked for the plugin.
    pub fn count(&self, program: &str, args: &[String]) -> Result<Counted> {
        self.count_with_env(program, args, &[])
    }

    /// [`Emulator::count`] with more environment variables for the program.
    pub fn count_with_env(
        &self,
        program: &str,
        args: &[String],
        env: &[(&str, &str)],
    ) -> Result<Counted> {
        self.count_found(&super::command::found(program, args)?, env)
    }

    /// [`Emulator::count`] of a command already found.
    pub fn count_found(&self, f: &Found, env: &[(&str, &str)]) -> Result<Counted> {
        let launch = f.launch()?;
        let dir = crate::files::scratch_dir("emulate")?;
        let theirs = std::env::var_os("LD_PRELOAD");
        let rest: Vec<&OsStr> = f.args.iter().map(OsStr::new).collect();
        let argv =
            self.config(&dir)
                .command(&launch, OsStr::new(&f.given), &rest, theirs.as_deref());
        let run = Command::new(&argv[0])
            .args(&argv[1..])
            .env_remove("LD_PRELOAD")
            .env(follow::PROGRAM_ENV, &f.given)
            .envs(env.iter().copied())
            .env(carmbench_regions::EMULATED_ENV, "1")
            .env_remove(carmbench_regions::OUT_ENV)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        let counted = read_processes(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let run =
            run.map_err(|e| Error::input(format!("cannot run {}: {e}", self.qemu.display())))?;
        let stderr = String::from_utf8_lossy(&run.stderr);
        let any = counted.as_ref().is_ok_and(|c| !c.processes.is_empty());
        if let Some(e) = emulation_failure(&f.given, &run.status, &stderr, any) {
            return Err(e);
        }
        let counted = counted?;
        if counted.processes.is_empty() {
            return Err(Error::Io(format!(
                "the counting plugin wrote no counts; QEMU said: {}",
                one_line(&stderr)
            )));
        }
        Ok(counted)
    }
}

/// Every process's counts in `dir`, summed.
fn read_processes(dir: &Path) -> Result<Counted> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::Io(format!("cannot read the counts in {}: {e}", dir.display())))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    // process.PID.K.json: by pid, then by the programs one pid ran in turn.
    let order = |p: &PathBuf| -> (u64, u64) {
        let n = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut f = n.split('.').skip(1).map(|x| x.parse().unwrap_or(0));
        (f.next().unwrap_or(0), f.next().unwrap_or(0))
    };
    files.sort_by_key(order);
    let mut c = Counted::default();
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if text.is_empty() {
            c.lost += 1;
            continue;
        }
        let o: Output = serde_json::from_str(&text)
            .map_err(|e| Error::Io(format!("unreadable counts from the plugin: {e}")))?;
        if o.version != carmbench_counts::VERSION {
            return Err(Error::input(format!(
                "the counting plugin writes counts of version {}, this carmbench reads version {}; rebuild both together",
                o.version,
                carmbench_counts::VERSION
            )));
        }
        c.add(o);
    }
    Ok(c)
}

impl Counted {
    /// Add one process.
    fn add(&mut self, o: Output) {
        self.threads = self.threads.max(o.threads);
        self.total += &o.total;
        for r in &o.regions {
            match self.regions.iter_mut().find(|x| x.name == r.name) {
                Some(x) => {
                    x.calls += r.calls;
                    x.counts += &r.counts;
                }
                None => self.regions.push(r.clone()),
            }
        }
        self.processes.push(o);
    }

    /// What was not counted, one line each: programs started natively, and
    /// processes that ended without their counts.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        for p in &self.processes {
            for s in &p.skipped {
                w.push(if s.is_empty() {
                    format!(
                        "{} (pid {}) started a program carmbench could not follow{}: it ran natively and its work is not in W and Q",
                        p.program,
                        p.pid,
                        if is_static(&p.program) {
                            " (a statically linked program starts others with a raw system call)"
                        } else {
                            " (popen, or a raw execve system call)"
                        }
                    )
                } else {
                    format!(
                        "{} (pid {}) started {s} natively (set-user-ID, or not an x86-64 program): its work is not in W and Q",
                        p.program, p.pid
                    )
                });
            }
        }
        if self.lost > 0 {
            w.push(format!(
                "{} process(es) ended without their counts (killed by a signal): their work is not in W and Q",
                self.lost
            ));
        }
        w
    }
}

/// Whether `program` (a path, or a name on `PATH`) is a statically linked
/// x86-64 program: no preload library reaches the programs it starts.
fn is_static(program: &str) -> bool {
    let path = follow::search(OsStr::new(program), std::env::var_os("PATH").as_deref());
    path.and_then(|p| follow::head(&p).ok())
        .is_some_and(|h| follow::kind(&h) == follow::Kind::Elf { dynamic: false })
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
            "'{program}' stopped on an instruction QEMU cannot emulate (SIGILL; QEMU emulates x86-64 up to AVX2, not AVX-512): count a twin build of the same code with --count-with PROGRAM (e.g. built with -march=x86-64-v3), count on a machine with a PMU (--counts pmu), or give the counts (--flops N --bytes M)"
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
