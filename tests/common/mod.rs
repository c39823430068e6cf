//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod parts;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run the carmbench binary.
pub fn carmbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(args)
        .output()
        .unwrap()
}

/// Run the carmbench binary in `dir`.
pub fn carmbench_in(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// An L1 validation point of `threads` at `ai`: 10 GFLOP/s per thread and
/// unit of AI measured, 11 expected.
pub fn validation_point(threads: usize, ai: f64) -> carmbench::results::ValidationPoint {
    carmbench::results::ValidationPoint {
        level: carmbench::machine::Level::L1,
        isa: carmbench::machine::isa::Isa::Avx512,
        precision: carmbench::kernels::Precision::Dp,
        threads,
        mix: carmbench::kernels::Mix::TwoLdOneSt,
        op: carmbench::kernels::Op::Fma,
        kernel: "avx512_dp_v_2ld1st_fma".into(),
        j: 1,
        k: 1,
        bytes_per_thread: 24 << 10,
        ai,
        gflop_per_s: 10.0 * ai * threads as f64,
        expected_gflop_per_s: 11.0 * ai * threads as f64,
        clock_ghz: 4.0,
        deviation: -1.0 / 11.0,
        overlap: None,
        reference_gb_per_s: None,
    }
}

/// A fresh, empty temporary directory for one test.
pub fn tmpdir(tag: &str) -> PathBuf {
    // Unique within the process too: the tests of one binary run side by side.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("carmbench-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A run that must succeed: exit status 0 (else fail showing its standard
/// error); its standard output as text.
pub fn success(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "exit 0, stderr: {}", stderr(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Bad input: exit status 2, one line naming the problem, no panic.
pub fn assert_input_error(out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "exit 2, stderr: {err}");
    assert!(!err.contains("panicked"), "no panic: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("carmbench: error: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "'{n}' in: {err}");
    }
}

/// The Zen 5 results fixture.
pub const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/zen5-avx512.yaml"
);

/// The Zen 5 results fixture, read.
pub fn fixture() -> carmbench::results::Document {
    carmbench::results::load(Path::new(FIXTURE)).unwrap()
}

/// The newest modification time of the files under `dir`.
fn newest(dir: &Path) -> std::time::SystemTime {
    let mut t = std::time::SystemTime::UNIX_EPOCH;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let m = if p.is_dir() {
            newest(&p)
        } else {
            std::fs::metadata(&p).unwrap().modified().unwrap()
        };
        t = t.max(m);
    }
    t
}

/// `file` of workspace package `package` (in folder `folder`), built in
/// release mode: the one beside the carmbench binary when it is newer than
/// the package's sources (`scripts/test.sh` builds the workspace first),
/// else built into a target directory of its own, so as not to wait on the
/// build lock of the `cargo test` running this.
pub fn workspace_artifact(package: &str, folder: &str, file: &str) -> PathBuf {
    workspace_artifacts(&[package], &[folder], file)
}

/// [`workspace_artifact`] of several packages built together (their
/// artifacts side by side), fresh against the sources of every folder in
/// `folders`; the path of `file`.
pub fn workspace_artifacts(packages: &[&str], folders: &[&str], file: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let beside = Path::new(env!("CARGO_BIN_EXE_carmbench")).with_file_name(file);
    let sources = folders
        .iter()
        .map(|f| newest(&root.join(f)))
        .max()
        .expect("a folder");
    let fresh = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= sources)
    };
    if fresh(&beside) {
        return beside;
    }
    let target = root.join("target").join("test-parts");
    let st = Command::new(env!("CARGO"))
        .args(["build", "--release", "--offline"])
        .args(packages.iter().flat_map(|p| ["-p", p]))
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(root)
        .status()
        .expect("cargo runs");
    assert!(st.success(), "{packages:?} build");
    target.join("release").join(file)
}

/// The QEMU counting plugin, with the preload library beside it (carmbench
/// looks for it there), both fresh against their sources and the format
/// they share (`counts/`).
pub fn qemu_plugin() -> PathBuf {
    static P: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        workspace_artifacts(
            &["carmbench-qemu-plugin", "carmbench-follow"],
            &["qemu-plugin", "follow", "counts"],
            "libcarmbench_qemu_plugin.so",
        )
    })
    .clone()
}

/// The regions library, static.
pub fn regions_static_lib() -> PathBuf {
    static P: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    P.get_or_init(|| workspace_artifact("carmbench-regions", "regions", "libcarmbench_regions.a"))
        .clone()
}

/// The fixture with what a run and a validation of this version add: a
/// memory curve per ISA and mix (from its roofs' sizes), the co-issue of the
/// 2LD1ST kernel and each validated level's summary, one of them failed.
pub fn rich_fixture() -> carmbench::results::Document {
    use carmbench::kernels::{Mix, Op, Precision};
    use carmbench::results::{CoIssue, Curve, CurvePoint, SweepSummary};
    use carmbench::validate::verdict::{Cause, Verdict};
    let mut d = fixture();
    for r in d
        .roofs
        .iter()
        .filter(|r| r.level.is_some() && !r.sizes.is_empty())
    {
        let (isa, mix, threads) = (r.isa, r.mix.unwrap(), r.threads);
        let points = r.sizes.iter().map(|s| CurvePoint {
            bytes_per_thread: s.bytes_per_thread,
            gb_per_s: s.median,
            per_cycle: s.median / r.clock_ghz,
            level: r.level.unwrap(),
        });
        match d
            .curves
            .iter_mut()
            .find(|c| (c.isa, c.mix, c.threads) == (isa, mix, threads))
        {
            Some(c) => c.points.extend(points),
            None => d.curves.push(Curve {
                isa,
                mix,
                threads,
                points: points.collect(),
            }),
        }
    }
    for c in &mut d.curves {
        c.points.sort_by_key(|p| p.bytes_per_thread);
    }
    // A DRAM roof whose paced form read a quarter more.
    if let Some(r) = d
        .roofs
        .iter_mut()
        .find(|r| r.level == Some(carmbench::machine::Level::Dram))
    {
        r.paced_gb_per_s = r.gb_per_s.map(|v| 1.25 * v);
    }
    let isa = d.roofs[0].isa;
    d.coissue = vec![CoIssue {
        isa,
        precision: Precision::Dp,
        mix: Mix::TwoLdOneSt,
        op: Op::Fma,
        j: 8,
        k: 16,
        memory_cycles: 8.0,
        fp_cycles: 8.0,
        both_cycles: 15.2,
    }];
    let levels: Vec<_> = d.plan.levels.clone();
    let sweeps = [Mix::Load, Mix::TwoLdOneSt]
        .into_iter()
        .flat_map(|mix| levels.iter().map(move |&l| (l, 1, mix)));
    d.sweeps = sweeps
        .enumerate()
        .map(|(i, (level, threads, mix))| SweepSummary {
            level,
            isa,
            precision: Precision::Dp,
            threads,
            mix,
            op: Op::Fma,
            ridge: 0.5,
            points: 13,
            sloped: 6,
            flat: 7,
            median_abs_deviation: if i == 0 { 0.21 } else { 0.02 },
            worst_ai: 0.5,
            worst_deviation: -0.3,
            overlap: Some(0.8),
            moved: None,
            moved_during: None,
            threshold: 0.1,
            verdict: if i == 0 {
                Verdict::Fails(Cause::AboveMemoryRoof)
            } else {
                Verdict::Holds
            },
        })
        .collect();
    d
}

/// An apps file of two points, one with a name that is markup.
pub const APPS: &str = "schema: 3
applications:
  - name: stream-triad
    flops: 2.0e9
    bytes: 24.0e9
    seconds: 0.8
  - name: \"<b>dgemm</b> & co\"
    flops: 4.0e11
    bytes: 1.0e10
    seconds: 2.5
  - name: kernel_a
    flops: 3.0e11
    bytes: 5.0e9
    seconds: 1.5
    function: {program: \"<b>dgemm</b> & co\", module: libblas.so, share: 0.6, samples: 1500}
  - name: pack
    flops: 0
    bytes: 4.0e9
    seconds: 0.5
    function: {program: \"<b>dgemm</b> & co\", module: libblas.so, share: 0.2, samples: 500}
  - name: rest
    flops: 1.0e11
    bytes: 1.0e9
    seconds: 0.5
    function: {program: \"<b>dgemm</b> & co\", module: \"\", share: 0.2, samples: 40}
";

/// The page of [`rich_fixture`] with [`APPS`] placed, written in `dir` by
/// `carmbench report`: its path, the document and what the command said.
pub fn rich_report(dir: &Path) -> (PathBuf, carmbench::results::Document, String) {
    let doc = rich_fixture();
    let f = dir.join("r.yaml");
    std::fs::write(&f, serde_yaml::to_string(&doc).unwrap()).unwrap();
    let apps = dir.join("apps.yaml");
    std::fs::write(&apps, APPS).unwrap();
    let html = dir.join("carm.html");
    let said = success(&carmbench(&[
        "report",
        f.to_str().unwrap(),
        "--apps",
        apps.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]));
    (html, doc, said)
}

/// The disassembly tests' stride rule, for any architecture: each stream
/// (A, B, C, on the registers `streams` names) moves on once per iteration
/// by exactly the bytes the loop body touches on it, which tile it without
/// gap or overlap, and which are what the declaration gives that stream:
/// its share of the loads (A, and B when the mix reads two streams) or its
/// stores (C). `advances` are (register, bytes added); `touched` are
/// (register, first byte, last byte).
pub fn check_strides(
    d: &carmbench::kernels::Decl,
    streams: [(&str, char); 3],
    advances: &[(String, i64)],
    touched: &[(String, i64, i64)],
) {
    let n = d.load_streams().max(1) as i64;
    for (reg, stream) in streams {
        let declared = match stream {
            'A' => d.load_bytes_per_iter() as i64 / n,
            'B' if d.load_streams() == 2 => d.load_bytes_per_iter() as i64 / n,
            'C' => d.store_bytes_per_iter() as i64,
            _ => 0,
        };
        let adv: Vec<i64> = advances
            .iter()
            .filter(|a| a.0 == reg)
            .map(|a| a.1)
            .collect();
        let mut spans: Vec<(i64, i64)> = touched
            .iter()
            .filter(|t| t.0 == reg)
            .map(|t| (t.1, t.2))
            .collect();
        spans.sort_unstable();
        if declared == 0 {
            assert!(
                spans.is_empty() && adv.is_empty(),
                "{}: stream {stream} ({reg}) is not declared but used",
                d.name
            );
            continue;
        }
        assert_eq!(
            adv,
            [declared],
            "{}: stream {stream} ({reg}) moves on once, by the {declared} bytes it touches",
            d.name
        );
        let mut next = 0;
        for (first, last) in &spans {
            assert_eq!(
                *first, next,
                "{}: stream {stream} has a gap or an overlap at {first}",
                d.name
            );
            next = last + 1;
        }
        assert_eq!(
            next, declared,
            "{}: stream {stream} touches {next} bytes, declared {declared}",
            d.name
        );
    }
}

/// One disassembled instruction.
#[derive(Debug, Clone)]
pub struct Insn {
    pub addr: u64,
    pub mnemonic: String,
    pub operands: String,
}

/// The kernel symbols (`carm_*`) of this test binary, disassembled by
/// `objdump` (the command with its options; the binary is added), with
/// objdump's `//` comments left out.
pub fn disassemble_kernels(mut objdump: Command) -> std::collections::HashMap<String, Vec<Insn>> {
    let out = objdump
        .arg(std::env::current_exe().unwrap())
        .output()
        .unwrap_or_else(|e| panic!("{:?} runs (binutils): {e}", objdump.get_program()));
    assert!(out.status.success(), "{:?} failed", objdump.get_program());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut map: std::collections::HashMap<String, Vec<Insn>> = Default::default();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_suffix(">:") {
            let name = rest.rsplit('<').next().unwrap_or("").to_string();
            current = name.starts_with("carm_").then_some(name);
            continue;
        }
        let Some(sym) = &current else { continue };
        let line = line.split("//").next().unwrap_or("").trim();
        let Some((addr, rest)) = line.split_once(':') else {
            current = None;
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let rest = rest.trim();
        let (mnemonic, operands) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        map.entry(sym.clone()).or_default().push(Insn {
            addr,
            mnemonic: mnemonic.to_string(),
            operands: operands.trim().to_string(),
        });
    }
    map
}

/// A results file with an INT8 dot-product roof beside the fixture's: a copy
/// of its first FP roof at `gops` (the EPYC Zen 5's 256 op/cycle).
pub fn with_an_int8_roof(dir: &Path, gops: f64) -> std::path::PathBuf {
    use carmbench::kernels::{Op, Precision};
    let mut doc = carmbench::results::load(Path::new(FIXTURE)).unwrap();
    let fp = doc
        .roofs
        .iter()
        .find(|r| r.gflop_per_s.is_some() && r.threads == 1)
        .unwrap()
        .clone();
    let mut int8 = fp.clone();
    int8.op = Some(Op::Dot);
    int8.precision = Some(Precision::Int8);
    int8.kernel = format!("{}_int8_dot", fp.isa.name());
    let k = gops / fp.gflop_per_s.unwrap();
    int8.gflop_per_s = Some(gops);
    (int8.median, int8.q1, int8.q3) = (fp.median * k, fp.q1 * k, fp.q3 * k);
    int8.per_cycle = fp.per_cycle * k;
    (int8.theoretical_per_cycle, int8.percent_of_theoretical) = (None, None);
    doc.roofs.push(int8);
    let path = dir.join("int8.yaml");
    std::fs::write(&path, serde_yaml::to_string(&doc).unwrap()).unwrap();
    path
}

/// The character the disassembly tests note for an instruction of
/// precision `p`: the x86 FP suffixes' 'd' and 's', 'h' half, 'f' bfloat16,
/// 'i', 'w', 'b' 32-, 16- and 8-bit integers.
pub fn precision_char(p: carmbench::kernels::Precision) -> char {
    use carmbench::kernels::Precision::*;
    match p {
        Dp => 'd',
        Sp => 's',
        Fp16 => 'h',
        Bf16 => 'f',
        Int32 => 'i',
        Int16 => 'w',
        Int8 => 'b',
        Int => 'q',
    }
}

/// A Slurm cluster of 4 nodes on this machine (`scripts/slurm-local.sh`),
/// taken down when dropped.
pub struct Cluster {
    dir: PathBuf,
    /// Its `SLURM_CONF`.
    pub conf: String,
}

impl Cluster {
    /// Bring one up with its files in `dir`.
    pub fn up(dir: PathBuf) -> Cluster {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-local.sh");
        let out = Command::new("bash")
            .args([script, "up", dir.to_str().unwrap()])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        // The script takes down what it started when it fails.
        assert!(out.status.success(), "slurm-local up: {}", stderr(&out));
        let conf = said
            .trim()
            .strip_prefix("export SLURM_CONF=")
            .expect("the script prints SLURM_CONF")
            .to_string();
        Cluster { dir, conf }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-local.sh");
        let _ = Command::new("bash")
            .args([script, "down", self.dir.to_str().unwrap()])
            .status();
    }
}
