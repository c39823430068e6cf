//! Application points: an application's work W (flops), traffic Q (bytes
//! requested by the core) and time T, placed on the chart at AI = W/Q and
//! performance W/T. Written by `carmbench profile` or by hand.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version of the apps file layout: 2 adds each point's processes and the
/// twin build counted in its place, 3 the points of a program's functions;
/// 3 also holds the precision of a point's work; 5 an MPI program's ranks;
/// 6 what each point is (`of:`); 7 GPU kernels (`of: kernel`); 8 a run's
/// phases in time (`of: phase`); 9 each point's advice (`advice:`); 10 the
/// advice's evidence and a program's CPU time (`native:`); 11 the bytes
/// read and written apart (`bytes_read`, `bytes_written`) and sized
/// regions (`series`, `n`, `calls`). Files of
/// schemas 1 to 10 are still read.
pub const APPS_SCHEMA: u32 = 11;

/// One application point: a program, or a region, function, loop or
/// rank of one ([`Of`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(try_from = "PointFile", into = "PointFile")]
pub struct AppPoint {
    /// Name shown on the chart.
    pub name: String,
    /// What it is, with the data of its kind.
    pub of: Of,
    /// Floating-point operations (an FMA counts two).
    pub flops: f64,
    /// Bytes requested by the core (loads and stores × their width).
    pub bytes: f64,
    /// Wall time, seconds.
    pub seconds: f64,
    /// `bytes` taken apart: what the core loaded (`bytes_read` in the file)
    /// and stored (`bytes_written`), when the counts tell them apart
    /// (emulation, the PMU; not counts given by hand). Ofenbeck et al.'s
    /// read and write intensities are W over each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sides: Option<ReadWrite>,
    /// A sized region's point (`carmbench_region_begin_n`): its series,
    /// size and calls, at the point's top in the file (`series`, `n`,
    /// `calls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sized: Option<SizedRegion>,
    /// Threads the application ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Flops done by FMA instructions, when the counts separate them
    /// (adjusts the attainable peak in `carmbench predict`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fma_flops: Option<f64>,
    /// Where the counts came from ("perf", "manual", "emulation, qemu 7.2,
    /// as this CPU ...", ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The instruction mix behind the counts, when they were counted
    /// instruction by instruction (emulation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<InstructionMix>,
    /// The processes of the command that did the work, when it started more
    /// than one (emulation counts each; the point is their sum).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessPoint>,
    /// How its work was counted (`source` says it in words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_by: Option<CountedBy>,
    /// The program counted in the command's place (`--count-with`: a twin
    /// build QEMU can run), the time being the command's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_with: Option<String>,
    /// The arithmetic its work is (INT8 dot products, BF16, ...): the
    /// compute roofs it is placed under; double precision's when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<crate::kernels::Precision>,
    /// The bytes that moved between each cache level and the next, by
    /// simulating the caches (`profile --traffic`); `bytes` stays what the
    /// core requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<Traffic>,
    /// The CPU the emulated program was shown, when counted by emulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulated_cpu: Option<EmulatedCpu>,
    /// A function's or region's time over the ranks of an MPI program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// A program's native run: its CPU time and its wait for a CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<NativeTime>,
    /// What to do next: the bound, the reasons the counts give, the run's
    /// own quality ([`crate::results::advice`]), as `profile` found them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<advice::Advice>,
}

/// The CPU an emulated program was shown: the host's identity, and the
/// host's features it did not get.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EmulatedCpu {
    /// CPUID vendor string.
    pub vendor: String,
    /// Family.
    pub family: u32,
    /// Model.
    pub model: u32,
    /// Stepping.
    pub stepping: u32,
    /// Brand string.
    #[serde(default)]
    pub brand: String,
    /// The host's instruction-set features the program did not get (QEMU
    /// cannot emulate them, or they were left out on request), by QEMU's
    /// names: code that needs them took another path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    /// Features of QEMU's model the host lacks, turned off.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<String>,
}

/// What makes a point the point of one function of a program.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FunctionInfo {
    /// The name of the program's own point.
    pub program: String,
    /// The file its code is in (the program or a library); empty for the
    /// sum of the functions not shown.
    pub module: String,
    /// Its share of the program's time (of the native run's samples).
    pub share: f64,
    /// The native samples its time rests on.
    pub samples: u64,
    /// Where it starts in its sources ("file.c:12"), when its file has
    /// line tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Under emulation the program ran this other function in its place
    /// (the host's path needs what the emulated CPU lacks): the point's W
    /// and Q are that function's, its time this one's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_as: Option<String>,
    /// It ran in one of the two runs only, with no function of the other
    /// paired with it: its point is not placed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran_only: Option<RanOnly>,
}

impl FunctionInfo {
    /// Function data of `program`'s point, in `module`, with `share` of its
    /// time over `samples` native samples; no location, counted as itself.
    pub fn new(program: &str, module: &str, share: f64, samples: u64) -> FunctionInfo {
        FunctionInfo {
            program: program.into(),
            module: module.into(),
            share,
            samples,
            location: None,
            counted_as: None,
            ran_only: None,
        }
    }
}

/// The one run a function ran in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RanOnly {
    /// Natively: it has time and no work.
    Natively,
    /// Under emulation: it has work and no time.
    Emulated,
}

/// A point of a sized region: one name's calls at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizedRegion {
    /// The region's name: the points of one name, over their sizes, are
    /// its series.
    pub series: String,
    /// The size the program gave (elements, a matrix's order).
    pub n: f64,
    /// The calls the point sums.
    pub calls: u64,
}

/// How a point's work was counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountedBy {
    /// Given by hand (`--flops`, `--bytes`).
    Manual,
    /// The PMU's events, counted or sampled.
    Pmu,
    /// Instruction by instruction under emulation (QEMU and the plugin).
    Emulation,
    /// A GPU's counters, read by Nsight Compute (`profile --gpu`).
    #[serde(rename = "nsight_compute")]
    Ncu,
}

/// One process of a profiled command and what it counted.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProcessPoint {
    /// The program it ran.
    pub program: String,
    /// Its pid in the emulated run.
    pub pid: u32,
    /// Its flops.
    pub flops: f64,
    /// Its bytes.
    pub bytes: f64,
    /// Instructions it executed.
    pub instructions: f64,
}

impl AppPoint {
    /// A point of `flops` and `bytes` in `seconds`, nothing else known: the
    /// other fields start empty (set them with `..AppPoint::new(..)`).
    pub fn new(name: impl Into<String>, flops: f64, bytes: f64, seconds: f64) -> AppPoint {
        AppPoint {
            name: name.into(),
            of: Of::Program { mpi: None },
            flops,
            bytes,
            seconds,
            sides: None,
            sized: None,
            threads: None,
            fma_flops: None,
            source: None,
            mix: None,
            processes: Vec::new(),
            counted_by: None,
            counted_with: None,
            traffic: None,
            precision: None,
            emulated_cpu: None,
            spread: None,
            native: None,
            advice: Vec::new(),
        }
    }

    /// Its function's part, for a function's or a loop's point.
    pub fn function(&self) -> Option<&FunctionInfo> {
        match &self.of {
            Of::Function(f) | Of::Loop(f, _) => Some(f),
            _ => None,
        }
    }

    /// Where its loop is and how it ran, for a loop's point.
    pub fn loop_info(&self) -> Option<&LoopInfo> {
        match &self.of {
            Of::Loop(_, l) => Some(l),
            _ => None,
        }
    }

    /// Its rank, for a rank's point.
    pub fn rank(&self) -> Option<&RankInfo> {
        match &self.of {
            Of::Rank(r) => Some(r),
            _ => None,
        }
    }

    /// Its kernel, for a GPU kernel's point (or a program's GPU work).
    pub fn kernel(&self) -> Option<&KernelInfo> {
        match &self.of {
            Of::Kernel(k) => Some(k),
            _ => None,
        }
    }

    /// Where it lies in its program's run, for a phase's point.
    pub fn phase(&self) -> Option<&PhaseInfo> {
        match &self.of {
            Of::Phase(x) => Some(x),
            _ => None,
        }
    }

    /// Its MPI job, for the point of a program launched so.
    pub fn mpi(&self) -> Option<&MpiInfo> {
        match &self.of {
            Of::Program { mpi } => mpi.as_ref(),
            _ => None,
        }
    }

    /// Arithmetic intensity, flop/byte.
    pub fn ai(&self) -> f64 {
        self.flops / self.bytes
    }
    /// Performance, GFLOP/s.
    pub fn gflop_per_s(&self) -> f64 {
        self.flops / self.seconds / 1e9
    }
    /// It has a place on the chart: flops, bytes and time.
    pub fn placeable(&self) -> bool {
        self.flops > 0.0 && self.bytes > 0.0 && self.seconds > 0.0
    }
}

/// Whether a function's name is its file and the offset of its start
/// (`file+0xADDR`): code without a symbol, as `profile` names it.
pub fn is_unnamed(name: &str) -> bool {
    name.contains("+0x")
}

/// An apps file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AppsFile {
    /// Layout version: [`APPS_SCHEMA`].
    pub schema: u32,
    /// The points.
    pub applications: Vec<AppPoint>,
}

/// Load and check an apps file ([`check`]).
pub fn load(path: &Path) -> Result<AppsFile> {
    let what = format!("apps file '{}'", path.display());
    parse(&crate::files::read_input(path, &what)?, &what)
}

/// The points of the apps file at `path` that have a place on the CPU's
/// chart (a function without FP work is listed by `profile`, not drawn; a
/// GPU kernel is placed under its GPU's roofs).
pub fn load_placeable(path: &Path) -> Result<Vec<AppPoint>> {
    let mut f = load(path)?;
    f.applications
        .retain(|p| p.placeable() && p.kernel().is_none());
    Ok(f.applications)
}

/// An apps file from its text; `doc` names it in errors.
pub fn parse(text: &str, doc: &str) -> Result<AppsFile> {
    let f: AppsFile = crate::config::parse_yaml(text, doc)?;
    if !(1..=APPS_SCHEMA).contains(&f.schema) {
        return Err(Error::input(format!(
            "{doc} has schema {}, this carmbench reads schemas 1 to {APPS_SCHEMA}",
            f.schema
        )));
    }
    check(&f, doc)?;
    Ok(f)
}

/// How to mend an apps file.
pub mod advice;
mod check;
/// A GPU kernel's point.
mod kernel_info;
/// What a point is.
mod kind;
/// A loop's point.
mod loop_info;
mod mix;
mod mpi;
/// A program's CPU time in its native run.
mod native_time;
mod phase_info;
pub mod pseudo;
/// The bytes between the cache levels.
mod traffic;
/// Points added to an apps file.
mod write;
pub use check::{check, check_point, manual_counts};
pub use kernel_info::KernelInfo;
use kind::PointFile;
pub use kind::{Kind, Of};
pub use loop_info::LoopInfo;
pub use mix::InstructionMix;
pub use mpi::{FailedRank, MpiInfo, Range, RankInfo, RuntimeWork, Spread};
pub use native_time::NativeTime;
pub use phase_info::{PhaseInfo, Share};
pub use traffic::{ReadWrite, Side, Traffic};
pub use write::add_points;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampled_levels_error_shrinks_with_the_lines_simulated() {
        let rw = ReadWrite {
            read: 0.0,
            write: 0.0,
        };
        let mut t = Traffic {
            l2: rw,
            l3: rw,
            dram: rw,
            hits: [0.0; 3],
            model: String::new(),
            sample: 1,
            line: 64,
            exclusive_l3: None,
        };
        assert_eq!(t.expected_error(1e6), 0.0);
        t.sample = 8;
        // 2048 lines of 64 bytes, 256 of them simulated: sqrt(7/8 / 256).
        let e = t.expected_error(2048.0 * 64.0);
        assert!((e - (0.875f64 / 256.0).sqrt()).abs() < 1e-12, "{e}");
        assert!(t.expected_error(4.0 * 2048.0 * 64.0) < e / 1.9);
        assert_eq!(t.expected_error(100.0), 1.0);
    }

    #[test]
    fn the_cpu_an_emulated_program_was_shown_is_checked() {
        let cpu = EmulatedCpu {
            vendor: "AuthenticAMD".into(),
            family: 0x1A,
            model: 2,
            stepping: 1,
            brand: "AMD EPYC".into(),
            hidden: vec!["avx512f".into(), "avx-vnni".into(), "sse4.2".into()],
            masked: vec!["monitor".into()],
        };
        let with = |c: EmulatedCpu| AppsFile {
            schema: APPS_SCHEMA,
            applications: vec![AppPoint {
                emulated_cpu: Some(c),
                ..AppPoint::new("app", 1e9, 1e9, 1.0)
            }],
        };
        assert!(check(&with(cpu.clone()), "a").is_ok());
        for (bad, field) in [
            (
                EmulatedCpu {
                    vendor: "AuthenticAMDx".into(),
                    ..cpu.clone()
                },
                "emulated_cpu.vendor",
            ),
            (
                EmulatedCpu {
                    model: 256,
                    ..cpu.clone()
                },
                "emulated_cpu.model",
            ),
            (
                EmulatedCpu {
                    stepping: 16,
                    ..cpu.clone()
                },
                "emulated_cpu.stepping",
            ),
            (
                EmulatedCpu {
                    family: 0x10F,
                    ..cpu.clone()
                },
                "emulated_cpu.family",
            ),
            (
                EmulatedCpu {
                    hidden: vec!["AVX512F".into()],
                    ..cpu.clone()
                },
                "emulated_cpu.hidden",
            ),
            (
                EmulatedCpu {
                    masked: vec!["x".into(), "x".into()],
                    ..cpu.clone()
                },
                "emulated_cpu.masked",
            ),
            (
                EmulatedCpu {
                    brand: "\u{1}".into(),
                    ..cpu.clone()
                },
                "emulated_cpu.brand",
            ),
        ] {
            let e = check(&with(bad), "a").unwrap_err().to_string();
            assert!(e.contains(field), "{field}: {e}");
        }
        // And it round-trips through the file's text.
        let text = serde_yaml::to_string(&with(cpu.clone())).unwrap();
        assert!(text.contains("hidden:") && text.contains("- avx512f"));
        let back = parse(&text, "a").unwrap();
        assert_eq!(back.applications[0].emulated_cpu.as_ref(), Some(&cpu));
    }

    #[test]
    fn damaged_points_are_named_with_their_field() {
        let app = AppPoint {
            fma_flops: Some(2e9),
            ..AppPoint::new("triad", 1e9, 1e9, 1.0)
        };
        let f = AppsFile {
            schema: 1,
            applications: vec![app.clone()],
        };
        let e = check(&f, "apps file 'a.yaml'").unwrap_err().to_string();
        assert!(
            e.contains("application 'triad': fma_flops is 2000000000, above flops"),
            "{e}"
        );
        let mix = AppsFile {
            schema: 1,
            applications: vec![AppPoint {
                fma_flops: None,
                mix: Some(InstructionMix {
                    bytes_loaded: -1.0,
                    ..InstructionMix::default()
                }),
                ..app.clone()
            }],
        };
        assert!(
            check(&mix, "a")
                .unwrap_err()
                .to_string()
                .contains("mix.bytes_loaded is -1")
        );
        let rw = |read| ReadWrite { read, write: 0.0 };
        let traffic = AppsFile {
            schema: 3,
            applications: vec![AppPoint {
                fma_flops: None,
                traffic: Some(Traffic {
                    l2: rw(1.0),
                    l3: rw(1.0),
                    dram: rw(f64::NAN),
                    hits: [0.0; 3],
                    model: String::new(),
                    sample: 1,
                    line: 64,
                    exclusive_l3: None,
                }),
                ..app.clone()
            }],
        };
        let e = check(&traffic, "a").unwrap_err().to_string();
        assert!(e.contains("traffic.DRAM.read"), "{e}");
        let native = |steal| AppsFile {
            schema: 10,
            applications: vec![AppPoint {
                fma_flops: None,
                native: Some(NativeTime {
                    cpu_seconds: 1.0,
                    waited_seconds: 0.0,
                    steal,
                    emulated_seconds: None,
                }),
                ..app.clone()
            }],
        };
        assert!(check(&native(0.5), "a").is_ok());
        let e = check(&native(1.5), "a").unwrap_err().to_string();
        assert!(e.contains("native.steal is 1.5"), "{e}");
    }
}
