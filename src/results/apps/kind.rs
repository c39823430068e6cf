//! What a point is: the whole program, one region it marked, one of its
//! functions or loops, one rank of its MPI job. In memory a type ([`Of`])
//! holding that kind's data; in the apps file (schema 6) the field `of:`
//! names the kind, and that kind's data stands under its own key
//! (`function:`, `loop:`, `rank:`, `mpi:`, `kernel:`, `phase:`). Files of schemas 1 to 5 have
//! no `of:`: the kind is told from the data they hold.

use super::{AppPoint, CountedBy, EmulatedCpu, FunctionInfo, InstructionMix, LoopInfo, MpiInfo};
use super::{
    KernelInfo, PhaseInfo, ProcessPoint, RankInfo, ReadWrite, SizedRegion, Spread, Traffic,
};
use serde::{Deserialize, Serialize};

/// What a point is, with the data of its kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Of {
    /// A whole program (a command, or counts given by hand); for an MPI
    /// job, its launch and ranks.
    Program {
        /// The MPI job it was, when launched so (`profile --mpi`).
        mpi: Option<MpiInfo>,
    },
    /// A region the program marked (the regions library).
    Region,
    /// One of the program's hottest functions, or the rest of them; its
    /// `seconds` are its share of the program's CPU time.
    Function(FunctionInfo),
    /// A loop of one of those functions (`profile --loops`): its function's
    /// part, and where the loop is and how it ran.
    Loop(FunctionInfo, LoopInfo),
    /// One rank of an MPI program.
    Rank(RankInfo),
    /// A GPU kernel of the program (its launches together), or all of its
    /// GPU work: placed under that GPU's roofs, not the CPU's.
    Kernel(KernelInfo),
    /// One phase of the program's run in time (`profile --timeline`).
    Phase(PhaseInfo),
}

/// The kinds of point, as `of:` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// [`Of::Program`].
    Program,
    /// [`Of::Region`].
    Region,
    /// [`Of::Function`].
    Function,
    /// [`Of::Loop`].
    Loop,
    /// [`Of::Rank`].
    Rank,
    /// [`Of::Kernel`].
    Kernel,
    /// [`Of::Phase`].
    Phase,
}

impl Of {
    /// Its kind.
    pub fn kind(&self) -> Kind {
        match self {
            Of::Program { .. } => Kind::Program,
            Of::Region => Kind::Region,
            Of::Function(_) => Kind::Function,
            Of::Loop(..) => Kind::Loop,
            Of::Rank(_) => Kind::Rank,
            Of::Kernel(_) => Kind::Kernel,
            Of::Phase(_) => Kind::Phase,
        }
    }

    /// The data of each kind, as the file holds it: function, loop, rank,
    /// MPI job.
    pub(super) fn parts(&self) -> Parts {
        let mut p = Parts::default();
        match self {
            Of::Program { mpi } => p.mpi.clone_from(mpi),
            Of::Region => {}
            Of::Function(f) => p.function = Some(f.clone()),
            Of::Loop(f, l) => (p.function, p.loop_info) = (Some(f.clone()), Some(l.clone())),
            Of::Rank(r) => p.rank = Some(r.clone()),
            Of::Kernel(k) => p.kernel = Some(k.clone()),
            Of::Phase(x) => p.phase = Some(x.clone()),
        }
        p
    }

    /// The point that `of` names (or, in a file written before schema 6,
    /// the one `parts` and its `source` tell), from the data the file
    /// holds; why not, when the data is not that kind's.
    pub(super) fn from_parts(
        of: Option<Kind>,
        p: Parts,
        source: Option<&str>,
    ) -> Result<Of, String> {
        let kind = of.unwrap_or_else(|| p.told(source));
        let held = p.held();
        let none = |p: &Parts| {
            p.function.is_none()
                && p.loop_info.is_none()
                && p.rank.is_none()
                && p.kernel.is_none()
                && p.phase.is_none()
        };
        Ok(match (kind, p) {
            (Kind::Program, p) if none(&p) => Of::Program { mpi: p.mpi },
            (Kind::Region, _) if held.is_empty() => Of::Region,
            (
                Kind::Function,
                Parts {
                    function: Some(f), ..
                },
            ) if held == ["function"] => Of::Function(f),
            (
                Kind::Loop,
                Parts {
                    function: Some(f),
                    loop_info: Some(l),
                    ..
                },
            ) if held == ["function", "loop"] => Of::Loop(f, l),
            (Kind::Rank, Parts { rank: Some(r), .. }) if held == ["rank"] => Of::Rank(r),
            (
                Kind::Kernel,
                Parts {
                    kernel: Some(k), ..
                },
            ) if held == ["kernel"] => Of::Kernel(k),
            (Kind::Phase, Parts { phase: Some(x), .. }) if held == ["phase"] => Of::Phase(x),
            (kind, _) => return Err(mismatch(kind, &held)),
        })
    }
}

/// Why a point of `kind` cannot hold the data `held`.
fn mismatch(kind: Kind, held: &[&str]) -> String {
    let wants = match kind {
        Kind::Program => "no data but mpi:",
        Kind::Region => "no function:, loop:, rank:, kernel:, phase: or mpi:",
        Kind::Function => "function: alone",
        Kind::Loop => "function: and loop:",
        Kind::Rank => "rank: alone",
        Kind::Kernel => "kernel: alone",
        Kind::Phase => "phase: alone",
    };
    let name = serde_yaml::to_string(&kind).unwrap_or_default();
    let has = match held.is_empty() {
        true => "no data of a kind".to_string(),
        false => held.join(":, ") + ":",
    };
    format!(
        "a point of: {} holds {has}; a point of that kind holds {wants}",
        name.trim()
    )
}

/// The data a point of each kind holds, as the file has it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Parts {
    pub function: Option<FunctionInfo>,
    pub loop_info: Option<LoopInfo>,
    pub rank: Option<RankInfo>,
    pub mpi: Option<MpiInfo>,
    pub kernel: Option<KernelInfo>,
    pub phase: Option<PhaseInfo>,
}

impl Parts {
    /// The keys of the data held, in the file's order.
    fn held(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (set, key) in [
            (self.function.is_some(), "function"),
            (self.loop_info.is_some(), "loop"),
            (self.mpi.is_some(), "mpi"),
            (self.rank.is_some(), "rank"),
            (self.kernel.is_some(), "kernel"),
            (self.phase.is_some(), "phase"),
        ] {
            if set {
                out.push(key);
            }
        }
        out
    }

    /// The kind a point written before schema 6 is: told by its data, a
    /// region by the words `profile` gave its source.
    fn told(&self, source: Option<&str>) -> Kind {
        if self.rank.is_some() {
            Kind::Rank
        } else if self.loop_info.is_some() {
            Kind::Loop
        } else if self.function.is_some() {
            Kind::Function
        } else if source.is_some_and(|s| s.contains("; region, ")) {
            Kind::Region
        } else {
            Kind::Program
        }
    }
}

/// A point as the apps file holds it: [`AppPoint`] with its kind's data
/// under their keys, and `of:` naming the kind (absent before schema 6).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(super) struct PointFile {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    of: Option<Kind>,
    flops: f64,
    bytes: f64,
    seconds: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bytes_read: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bytes_written: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    series: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    n: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    calls: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    threads: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fma_flops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mix: Option<InstructionMix>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    processes: Vec<ProcessPoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    counted_by: Option<CountedBy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    counted_with: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    function: Option<FunctionInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    precision: Option<crate::kernels::Precision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    traffic: Option<Traffic>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    emulated_cpu: Option<EmulatedCpu>,
    #[serde(default, rename = "loop", skip_serializing_if = "Option::is_none")]
    loop_info: Option<LoopInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mpi: Option<MpiInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rank: Option<RankInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kernel: Option<KernelInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    phase: Option<PhaseInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spread: Option<Spread>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    native: Option<super::NativeTime>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    advice: Vec<super::advice::Advice>,
}

impl TryFrom<PointFile> for AppPoint {
    type Error = String;

    fn try_from(f: PointFile) -> std::result::Result<AppPoint, String> {
        let parts = Parts {
            function: f.function,
            loop_info: f.loop_info,
            rank: f.rank,
            mpi: f.mpi,
            kernel: f.kernel,
            phase: f.phase,
        };
        let of = Of::from_parts(f.of, parts, f.source.as_deref())
            .map_err(|why| format!("point '{}': {why}", f.name))?;
        let sides = match (f.bytes_read, f.bytes_written) {
            (Some(read), Some(written)) => Some(ReadWrite {
                read,
                write: written,
            }),
            (None, None) => None,
            _ => {
                return Err(format!(
                    "point '{}': bytes_read and bytes_written come together (give both, or neither)",
                    f.name
                ));
            }
        };
        let sized = match (f.series, f.n, f.calls) {
            (Some(series), Some(n), Some(calls)) => Some(SizedRegion { series, n, calls }),
            (None, None, None) => None,
            _ => {
                return Err(format!(
                    "point '{}': series, n and calls come together (a sized region's point gives all three)",
                    f.name
                ));
            }
        };
        Ok(AppPoint {
            name: f.name,
            of,
            flops: f.flops,
            bytes: f.bytes,
            seconds: f.seconds,
            sides,
            sized,
            threads: f.threads,
            fma_flops: f.fma_flops,
            source: f.source,
            mix: f.mix,
            processes: f.processes,
            counted_by: f.counted_by,
            counted_with: f.counted_with,
            precision: f.precision,
            traffic: f.traffic,
            emulated_cpu: f.emulated_cpu,
            spread: f.spread,
            native: f.native,
            advice: f.advice,
        })
    }
}

impl From<AppPoint> for PointFile {
    fn from(p: AppPoint) -> PointFile {
        let parts = p.of.parts();
        PointFile {
            name: p.name,
            of: Some(p.of.kind()),
            flops: p.flops,
            bytes: p.bytes,
            seconds: p.seconds,
            bytes_read: p.sides.map(|s| s.read),
            bytes_written: p.sides.map(|s| s.write),
            series: p.sized.as_ref().map(|s| s.series.clone()),
            n: p.sized.as_ref().map(|s| s.n),
            calls: p.sized.as_ref().map(|s| s.calls),
            threads: p.threads,
            fma_flops: p.fma_flops,
            source: p.source,
            mix: p.mix,
            processes: p.processes,
            counted_by: p.counted_by,
            counted_with: p.counted_with,
            function: parts.function,
            precision: p.precision,
            traffic: p.traffic,
            emulated_cpu: p.emulated_cpu,
            loop_info: parts.loop_info,
            mpi: parts.mpi,
            rank: parts.rank,
            kernel: parts.kernel,
            phase: parts.phase,
            spread: p.spread,
            native: p.native,
            advice: p.advice,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::{AppPoint, AppsFile, RankInfo, parse};

    fn function(program: &str) -> FunctionInfo {
        FunctionInfo::new(program, "app", 0.5, 50)
    }

    fn a_loop() -> LoopInfo {
        LoopInfo {
            function: "f".into(),
            header: 0x40,
            line: Some("f.c:7".into()),
            depth: 1,
            parent: None,
            iterations: 1000,
            entries: 10,
            irreducible: false,
            total_flops: 2e3,
            total_bytes: 8e3,
            total_precision: None,
        }
    }

    /// A point of every kind.
    fn every_kind() -> Vec<(Of, &'static str)> {
        let mpi = MpiInfo {
            launcher: "Open MPI's mpirun".into(),
            ranks: 2,
            slowest: 1,
            nodes: 1,
            failed: vec![],
        };
        let rank = RankInfo {
            program: "app".into(),
            rank: 1,
            host: "node".into(),
            runtime: None,
        };
        vec![
            (Of::Program { mpi: None }, "program"),
            (Of::Program { mpi: Some(mpi) }, "program"),
            (Of::Region, "region"),
            (Of::Function(function("app")), "function"),
            (Of::Loop(function("app"), a_loop()), "loop"),
            (Of::Rank(rank), "rank"),
            (Of::Phase(a_phase()), "phase"),
        ]
    }

    fn a_phase() -> PhaseInfo {
        PhaseInfo {
            program: "app".into(),
            index: 2,
            start: 0.5,
            end: 1.5,
            functions: vec![super::super::Share {
                name: "triad".into(),
                share: 0.9,
            }],
            windows: vec![[1.0, 5e8, 1e9], [1.5, 5e8, 1e9]],
        }
    }

    /// A point's bytes read and written, in a file of `bytes: 100`.
    fn with_sides(read: &str, written: &str) -> crate::error::Result<AppsFile> {
        let mut text = String::from(
            "schema: 11\napplications:\n- name: app\n  flops: 10\n  bytes: 100\n  seconds: 1\n",
        );
        for (k, v) in [("bytes_read", read), ("bytes_written", written)] {
            if !v.is_empty() {
                text.push_str(&format!("  {k}: {v}\n"));
            }
        }
        parse(&text, "apps.yaml")
    }

    #[test]
    fn bytes_read_and_written_make_up_bytes_and_come_together() {
        let f = with_sides("60", "40").unwrap();
        let s = f.applications[0].sides.unwrap();
        assert_eq!((s.read, s.write), (60.0, 40.0));
        let text = serde_yaml::to_string(&f).unwrap();
        assert!(
            text.contains("bytes_read: 60") && text.contains("bytes_written: 40"),
            "{text}"
        );
        assert_eq!(parse(&text, "again").unwrap(), f);
        assert!(with_sides("", "").unwrap().applications[0].sides.is_none());
        let one = with_sides("60", "").unwrap_err().to_string();
        assert!(one.contains("come together"), "{one}");
        let off = with_sides("60", "50").unwrap_err().to_string();
        assert!(
            off.contains("bytes_read + bytes_written") && off.contains("100"),
            "{off}"
        );
        let below = with_sides("-10", "110").unwrap_err().to_string();
        assert!(below.contains("bytes_read"), "{below}");
    }

    #[test]
    fn every_kind_is_written_with_its_of_and_read_back_as_it_was() {
        let applications: Vec<AppPoint> = (every_kind().into_iter())
            .map(|(of, _)| AppPoint {
                of,
                ..AppPoint::new("app/x", 1e9, 1e9, 1.0)
            })
            .collect();
        let f = AppsFile {
            schema: super::super::APPS_SCHEMA,
            applications,
        };
        let text = serde_yaml::to_string(&f).unwrap();
        let back = parse(&text, "test").unwrap();
        assert_eq!(back, f);
        let written: Vec<&str> = (text.lines())
            .filter_map(|l| l.trim().strip_prefix("of: "))
            .collect();
        let kinds: Vec<&str> = every_kind().iter().map(|k| k.1).collect();
        assert_eq!(written, kinds);
        for p in &back.applications {
            let named = serde_yaml::to_string(&p.of.kind()).unwrap();
            assert!(kinds.contains(&named.trim()), "{named}");
        }
    }

    #[test]
    fn a_file_before_schema_6_is_read_for_the_kinds_its_data_tells() {
        let text = "schema: 5
applications:
  - { name: app, flops: 1, bytes: 1, seconds: 1, source: 'perf' }
  - { name: app/r, flops: 1, bytes: 1, seconds: 1, source: 'emulation, qemu 7.2; region, 3 call(s)' }
  - name: f
    flops: 1
    bytes: 1
    seconds: 1
    function: { program: app, module: app, share: 0.5, samples: 5 }
  - name: f/loop
    flops: 1
    bytes: 1
    seconds: 1
    function: { program: app, module: app, share: 0.5, samples: 5 }
    loop: { function: f, header: 64, depth: 1, iterations: 9, entries: 1, irreducible: false, total_flops: 1, total_bytes: 1 }
  - { name: app/rank0, flops: 1, bytes: 1, seconds: 1, rank: { program: app, rank: 0, host: h } }
";
        let f = parse(text, "old").unwrap();
        let kinds: Vec<Kind> = f.applications.iter().map(|p| p.of.kind()).collect();
        use Kind::*;
        assert_eq!(kinds, [Program, Region, Function, Loop, Rank]);
        assert_eq!(f.applications[3].loop_info().unwrap().iterations, 9);
    }

    #[test]
    fn a_kind_without_its_data_or_with_anothers_is_named() {
        for (point, needle) in [
            (
                "{ name: l, of: loop, flops: 1, bytes: 1, seconds: 1 }",
                "of: loop holds no data",
            ),
            (
                "{ name: p, of: program, flops: 1, bytes: 1, seconds: 1, rank: { program: a, rank: 0, host: h } }",
                "of: program holds rank:",
            ),
            (
                "{ name: x, of: phase, flops: 1, bytes: 1, seconds: 1 }",
                "of: phase holds no data of a kind; a point of that kind holds phase: alone",
            ),
        ] {
            let text = format!("schema: 6\napplications:\n  - {point}\n");
            let e = parse(&text, "apps").unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
    }
}
