//! The parts beside Rust that some tests need (QEMU, Chromium, Slurm), looked
//! for when the tests run, never when they were built: a package installed
//! after the build counts. A test binary holding such tests runs its own
//! harness (`harness = false`, [`main`]): a test whose part is missing is
//! reported as ignored with one line naming the part and its install command
//! (`skipped: TEST: ...`, which `scripts/test.sh` counts), never as passed;
//! under `CI` it fails instead, so CI cannot pass with a part missing.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// A part beside Rust that a test needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `qemu-x86_64` that loads plugins (Debian's qemu-user).
    Qemu,
    /// Debian's chromium and chromedriver.
    Chromium,
    /// A local Slurm cluster's programs, with munge.
    Slurm,
    /// The kernel's software cpu-clock event, sampled (`perf_event_open`).
    Sampling,
    /// Debian's Python with numpy on OpenBLAS.
    Numpy,
    /// Valgrind, whose cachegrind the simulated caches are checked against.
    Valgrind,
    /// Debian's Open MPI: mpirun and mpicc.
    Mpi,
    /// Debian's MPICH: mpiexec.mpich (Hydra) and mpicc.mpich.
    Mpich,
    /// NVIDIA's `ptxas` and `nvdisasm` (no GPU needed): from the CUDA toolkit or
    /// pip's `nvidia-cuda-nvcc` and `nvidia-cuda-nvdisasm`.
    CudaTools,
}

/// A CUDA tool: on `PATH`, in the toolkit's `/usr/local/cuda/bin`, or in a `bin`
/// folder of the pip packages of `python3` (`nvidia/cu13/bin`, `nvidia/cuda_nvcc/bin`).
pub fn cuda_tool(name: &str) -> Option<PathBuf> {
    if let Some(p) = program(name, false) {
        return Some(p);
    }
    let toolkit = PathBuf::from("/usr/local/cuda/bin").join(name);
    if toolkit.is_file() {
        return Some(toolkit);
    }
    let out = Command::new("python3")
        .args(["-c", "import sys; print('\\n'.join(sys.path))"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|d| PathBuf::from(d).join("nvidia"))
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path().join("bin").join(name)))
        .find(|p| p.is_file())
}

/// Debian's own Python, the one `python3-numpy` is built for (a `python3`
/// earlier on `PATH` may be another).
pub const DEBIAN_PYTHON: &str = "/usr/bin/python3";

/// A program on `PATH`, or in the sbin folders a user's `PATH` may lack.
fn program(name: &str, sbin: bool) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    if sbin {
        dirs.extend(["/usr/sbin", "/sbin"].map(PathBuf::from));
    }
    dirs.into_iter().map(|d| d.join(name)).find(|f| f.is_file())
}

impl Part {
    /// The part as a test line names it.
    pub fn name(self) -> &'static str {
        match self {
            Part::Qemu => "QEMU (qemu-x86_64 with plugin support)",
            Part::Chromium => "Chromium with chromedriver",
            Part::Slurm => "Slurm (slurmctld, slurmd, srun, sinfo, scontrol, munged)",
            Part::Sampling => "sampling with the software cpu-clock event (perf_event_open)",
            Part::Numpy => "Debian's numpy with OpenBLAS (/usr/bin/python3)",
            Part::Valgrind => "Valgrind (cachegrind)",
            Part::Mpi => "Open MPI (mpirun, mpicc)",
            Part::Mpich => "MPICH (mpiexec.mpich, mpicc.mpich)",
            Part::CudaTools => "NVIDIA's ptxas and nvdisasm",
        }
    }

    /// The command that installs it.
    pub fn install(self) -> &'static str {
        match self {
            Part::Qemu => "apt-get install qemu-user",
            Part::Chromium => "apt-get install chromium chromium-driver",
            Part::Slurm => "apt-get install slurmctld slurmd slurm-client munge",
            Part::Sampling => {
                "sysctl kernel.perf_event_paranoid=2 (as root; a container also needs perf_event_open allowed)"
            }
            Part::Numpy => "apt-get install python3-numpy libopenblas0",
            Part::Valgrind => "apt-get install valgrind",
            Part::Mpi => "apt-get install openmpi-bin libopenmpi-dev",
            Part::Mpich => "apt-get install mpich libmpich-dev",
            Part::CudaTools => "python3 -m pip install nvidia-cuda-nvcc nvidia-cuda-nvdisasm",
        }
    }

    /// Whether it is here now.
    pub fn present(self) -> bool {
        match self {
            Part::Qemu => program("qemu-x86_64", false).is_some_and(|q| {
                Command::new(q)
                    .arg("-h")
                    .output()
                    .is_ok_and(|h| String::from_utf8_lossy(&h.stdout).contains("-plugin"))
            }),
            Part::Chromium => {
                program("chromium", false).is_some() && program("chromedriver", false).is_some()
            }
            Part::Slurm => ["munged", "slurmctld", "slurmd", "srun", "sinfo", "scontrol"]
                .iter()
                .all(|p| program(p, true).is_some()),
            Part::Sampling => {
                carmbench::profile::launch::sampler::run(&mut Command::new("true")).is_ok()
            }
            Part::Numpy => Command::new(DEBIAN_PYTHON)
                .args(["-c", "import numpy"])
                .output()
                .is_ok_and(|o| o.status.success()),
            Part::Mpi => {
                program("mpicc", false).is_some()
                    && program("mpirun", false).is_some_and(|m| {
                        Command::new(m)
                            .arg("--version")
                            .output()
                            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("Open MPI"))
                    })
            }
            Part::Mpich => {
                program("mpicc.mpich", false).is_some() && program("mpiexec.mpich", false).is_some()
            }
            Part::CudaTools => cuda_tool("ptxas").is_some() && cuda_tool("nvdisasm").is_some(),
            Part::Valgrind => program("valgrind", false).is_some_and(|v| {
                Command::new(v)
                    .args(["--tool=cachegrind", "--cache-sim=yes"])
                    .args(["--cachegrind-out-file=/dev/null", "true"])
                    .output()
                    .is_ok_and(|o| o.status.success())
            }),
        }
    }
}

/// Whether this run is CI's (`CI` set to anything but empty, 0 or false).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// One test of a binary run by [`main`]: its name, the part it needs if any,
/// and its body (a panic fails it, as under the standard harness).
pub struct Test {
    pub name: &'static str,
    pub needs: Option<Part>,
    pub body: fn(),
}

/// The tests of a binary, as `Test`s: `tests![plain_test, (Part::Qemu)
/// qemu_test, (Part::Qemu, Part::Sampling) both]`.
#[macro_export]
macro_rules! tests {
    ($( $(($($part:expr),+))? $name:ident ),* $(,)?) => {
        vec![$( $crate::common::parts::Test {
            name: stringify!($name),
            needs: $crate::common::parts::needs(&[$($($part),+)?]),
            body: $name,
        } ),*]
    };
}

/// The part a test is decided by, from the macro's optional `(Part, ...)`:
/// the first one missing, else the first.
pub fn needs(parts: &[Part]) -> Option<Part> {
    parts
        .iter()
        .copied()
        .find(|p| !p.present())
        .or(parts.first().copied())
}

/// Run `tests` as the standard harness would, parts decided now.
pub fn main(tests: Vec<Test>) -> ExitCode {
    let args = Arguments::from_args();
    let ci = under_ci();
    let trials = tests
        .into_iter()
        .map(|t| {
            let body = t.body;
            let run = move || -> Result<(), Failed> {
                body();
                Ok(())
            };
            match t.needs.filter(|p| !p.present()) {
                None => Trial::test(t.name, run),
                Some(part) if ci => Trial::test(t.name, move || {
                    Err(format!(
                        "{} is missing, and CI runs every test: {}",
                        part.name(),
                        part.install()
                    )
                    .into())
                }),
                Some(part) => {
                    let trial = Trial::test(t.name, run).with_ignored_flag(true);
                    if !args.list && !args.is_filtered_out(&trial) {
                        println!(
                            "skipped: {}: {} is not installed ({})",
                            t.name,
                            part.name(),
                            part.install()
                        );
                    }
                    trial
                }
            }
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}
