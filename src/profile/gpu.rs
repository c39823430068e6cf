//! `profile --gpu`: a CUDA program's kernels as points, counted by Nsight
//! Compute's command line (`ncu`) running the program once: a point per
//! kernel (its launches together) and one for the program's GPU work, each
//! with W of its dominant type (Konstantinidis's rule), Q its device-memory
//! bytes, T its time on the GPU, and the seed's parameters for `predict`.

use crate::error::{Error, Result};
use crate::gpu::model::Params;
use crate::gpu::ncu::{self, Kernel};
use crate::kernels::Precision;
use crate::profile::launch::command::{self, Found};
use crate::profile::launch::tree::{Leftovers, Rules};
use crate::profile::plan::{Common, ProfileArgs, default_name};
use crate::results::Document;
use crate::results::apps::{AppPoint, CountedBy, KernelInfo, Of};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where Nsight Compute's command line is looked for after `PATH`.
const NCU_DIRS: [&str; 2] = ["/usr/local/cuda/bin", "/opt/nvidia/nsight-compute"];

/// Nsight Compute's `ncu`: on `PATH`, under `$CUDA_HOME/bin`, or where the
/// CUDA toolkit puts it; the line that says how to get it otherwise.
pub fn find_ncu() -> Result<PathBuf> {
    let home = std::env::var_os("CUDA_HOME").map(|h| Path::new(&h).join("bin"));
    let dirs = home.into_iter().chain(NCU_DIRS.iter().map(PathBuf::from));
    crate::profile::launch::emulator::on_path("ncu")
        .or_else(|| dirs.map(|d| d.join("ncu")).find(|p| p.is_file()))
        .ok_or_else(|| {
            Error::input(format!(
                "profile --gpu counts with Nsight Compute, whose ncu is not on PATH, in $CUDA_HOME/bin or in {}: install the CUDA toolkit (or Nsight Compute) and put ncu on PATH",
                NCU_DIRS.join(" or ")
            ))
        })
}

/// What `profile --gpu` found: a point per kernel it could place and the
/// program's, and the kernels it could not, each with why.
#[derive(Debug, Clone, Default)]
pub struct Kernels {
    /// The points, in the order their kernels first ran.
    pub points: Vec<AppPoint>,
    /// (kernel, why) of each kernel without a point.
    pub unplaced: Vec<(String, String)>,
}

/// Profile `a`'s command on the GPU: what every profile resolves, and the
/// kernels.
pub fn profile(a: &ProfileArgs) -> Result<(Common, Kernels)> {
    let common = Common::resolve(a)?;
    let mut found = command::find(&a.command)?;
    found.timeout = a.timeout;
    let name = (a.name.clone()).unwrap_or_else(|| default_name(found.argv0.as_os_str()));
    let ncu = find_ncu()?;
    let scratch = crate::files::scratch_dir("ncu")?;
    let text = run(&ncu, &found, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    let kernels = points(&text?, &name, common.results.as_ref())?;
    Ok((common, kernels))
}

/// Run `command` once under `ncu`, its metrics written to a file in
/// `scratch` (the program's own output goes where carmbench's does), as a
/// tree the timeout and carmbench's being stopped stop whole: the CSV, or
/// the line that says why there is none.
pub fn run(ncu: &Path, command: &Found, scratch: &Path) -> Result<String> {
    let log = scratch.join("ncu.csv");
    let mut cmd = Command::new(ncu);
    cmd.args([
        "--csv",
        "--clock-control",
        "none",
        "--target-processes",
        "all",
    ])
    .arg("--log-file")
    .arg(&log)
    .arg("--metrics")
    .arg(ncu::METRICS.join(","))
    .arg(&command.path)
    .args(&command.args);
    let rules = Rules {
        timeout: command.timeout,
        leftovers: Leftovers::Leave,
        run: "run under Nsight Compute",
    };
    let status = crate::profile::launch::tree::run(&mut cmd, &rules, || {})?.status;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    // ncu's own errors (counters not permitted) say more than its status.
    ncu::parse(&text).map_err(Error::input)?;
    match status.success() {
        true => Ok(text),
        false => Err(Error::input(format!(
            "'{}' under Nsight Compute ended with {status}; no point written",
            command.given
        ))),
    }
}

/// The points of Nsight Compute's `text` for the program named `program`:
/// one per kernel, in the order they first ran, each named apart from the
/// others (see `names`), and one for all of them (named `PROGRAM
/// (GPU)`); a kernel whose counters place it nowhere is listed apart.
/// `results` names the GPUs where it has them.
pub fn points(text: &str, program: &str, results: Option<&Document>) -> Result<Kernels> {
    let kernels = ncu::kernels(&ncu::parse(text).map_err(Error::input)?);
    if kernels.is_empty() {
        return Err(Error::input(format!(
            "Nsight Compute saw no kernel of '{program}': it launched none on a GPU ncu can profile; no point written"
        )));
    }
    let total: f64 = kernels.iter().map(Kernel::seconds).sum();
    let gpu_name = |device: u32| {
        (results.into_iter().flat_map(|d| &d.gpus))
            .find(|g| g.device.index == device as usize)
            .map_or(format!("GPU {device}"), |g| g.device.name.clone())
    };
    let mut out = Kernels::default();
    for (k, name) in kernels.iter().zip(names(&kernels)) {
        let share = if total > 0.0 {
            k.seconds() / total
        } else {
            0.0
        };
        let gpu = gpu_name(k.device);
        match point(k, name.clone(), program, Some(&k.name), share, &gpu) {
            Ok(p) => out.points.push(p),
            Err(why) => out.unplaced.push((name, why)),
        }
    }
    let all = together(&kernels);
    let name = format!("{program} (GPU)");
    match point(
        &all,
        name.clone(),
        program,
        None,
        1.0,
        &gpu_name(all.device),
    ) {
        Ok(p) => out.points.push(p),
        Err(why) => out.unplaced.push((name, why)),
    }
    Ok(out)
}

/// Every kernel's launches as one kernel: its counters summed.
fn together(kernels: &[Kernel]) -> Kernel {
    let mut all = Kernel {
        name: String::new(),
        device: kernels[0].device,
        launches: 0,
        metrics: Default::default(),
    };
    for k in kernels {
        all.launches += k.launches;
        for (m, v) in k.metrics.iter().filter(|(m, _)| m.ends_with(".sum")) {
            *all.metrics.entry(m.clone()).or_insert(0.0) += v;
        }
    }
    all
}

/// The point of `k` (not placeable where its counters give it no work,
/// no device-memory bytes or no time: written, listed, not drawn), or why
/// there is none.
fn point(
    k: &Kernel,
    name: String,
    program: &str,
    kernel: Option<&str>,
    share: f64,
    gpu: &str,
) -> std::result::Result<AppPoint, String> {
    let model = Params::of(k)?;
    let info = KernelInfo {
        program: program.to_string(),
        kernel: kernel.map(str::to_string),
        gpu: gpu.to_string(),
        launches: k.launches,
        share,
        l2_bytes: k.metric("lts__t_bytes.sum"),
        dram_read: k.metric("dram__bytes_read.sum"),
        dram_write: k.metric("dram__bytes_write.sum"),
        model,
    };
    Ok(AppPoint {
        of: Of::Kernel(info),
        counted_by: Some(CountedBy::Ncu),
        precision: precision(model.ty),
        source: Some(format!("Nsight Compute on {gpu}")),
        ..AppPoint::new(name, model.w_comp, model.w_traf, k.seconds())
    })
}

/// The CPU's word for a GPU type, where it has one.
fn precision(t: crate::gpu::GpuType) -> Option<Precision> {
    use crate::gpu::GpuType as G;
    match t {
        G::Fp64 => Some(Precision::Dp),
        G::Fp32 => Some(Precision::Sp),
        G::Fp16 => Some(Precision::Fp16),
        G::Bf16 => Some(Precision::Bf16),
        G::Int32 => Some(Precision::Int32),
        G::Int8 => Some(Precision::Int8),
        G::Tf32 | G::Fp8 => None,
    }
}

/// A kernel's name without its return type, and without its parameters'
/// types where `params` is false: `void intensity<8>(float *, int)` is
/// `intensity<8>`, or `intensity<8>(float *, int)`. The parameters are the
/// last parenthesis at the top level, so a template's argument (`a<(int)1>`)
/// or an anonymous namespace (`(anonymous namespace)::k(int)`) stays.
fn short(name: &str, params: bool) -> String {
    let name = name.trim();
    let head = name.strip_prefix("void ").unwrap_or(name);
    let (mut depth, mut open) = (0i32, None);
    for (i, c) in head.char_indices() {
        match c {
            '(' | '<' | '[' | '{' => {
                if depth == 0 && c == '(' {
                    open = Some(i);
                }
                depth += 1;
            }
            ')' | '>' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    let cut = match (params, open) {
        (false, Some(i)) if i > 0 && head.ends_with(')') => &head[..i],
        _ => head,
    };
    match cut.trim() {
        "" => name.to_string(),
        s => s.to_string(),
    }
}

/// Each kernel's point name, apart from every other's: its short name;
/// with its parameters' types where another has the same (overloads);
/// with its GPU where the same kernel ran on several.
fn names(kernels: &[Kernel]) -> Vec<String> {
    let bare: Vec<String> = kernels.iter().map(|k| short(&k.name, false)).collect();
    let typed: Vec<String> = (kernels.iter().zip(&bare))
        .map(|(k, b)| match bare.iter().filter(|x| *x == b).count() {
            1 => b.clone(),
            _ => short(&k.name, true),
        })
        .collect();
    (kernels.iter().zip(&typed))
        .map(|(k, t)| match typed.iter().filter(|x| *x == t).count() {
            1 => t.clone(),
            _ => format!("{t} on GPU {}", k.device),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(name: &str) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ncu");
        std::fs::read_to_string(format!("{dir}/{name}.csv")).unwrap()
    }

    #[test]
    fn a_point_per_kernel_and_one_for_the_programs_gpu_work() {
        let pts = points(&recorded("intensity"), "intensity", None)
            .unwrap()
            .points;
        let names: Vec<&str> = pts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "intensity<1>",
                "intensity<8>",
                "intensity<64>",
                "intensity (GPU)"
            ]
        );
        // K FMAs on each of 2^26 floats (and the sum's add), 5 launches: W
        // within 1 % of 2K + 1 flops an element.
        for (p, k) in pts.iter().zip([1.0, 8.0, 64.0]) {
            let want = 5.0 * (2.0 * k + 1.0) * 67_108_864.0;
            assert!(
                (p.flops / want - 1.0).abs() < 0.01,
                "{}: {}",
                p.name,
                p.flops
            );
            assert_eq!(p.precision, Some(Precision::Sp));
            let info = p.kernel().unwrap();
            assert_eq!((info.launches, info.gpu.as_str()), (5, "GPU 0"));
        }
        // The program's point is their sum, its shares 1.
        let all = &pts[3];
        let sum: f64 = pts[..3].iter().map(|p| p.flops).sum();
        assert!((all.flops / sum - 1.0).abs() < 1e-12);
        let shares: f64 = pts[..3].iter().map(|p| p.kernel().unwrap().share).sum();
        assert!((shares - 1.0).abs() < 1e-12);
        assert_eq!(all.kernel().unwrap().kernel, None);
    }

    #[test]
    fn the_triads_bytes_and_time_are_what_it_must_move_and_took() {
        let pts = points(&recorded("triad"), "triad", None).unwrap().points;
        let t = &pts[0];
        // 12 bytes an element (two reads, a write) of 2^26, 5 launches.
        let bytes = 5.0 * 12.0 * 67_108_864.0;
        assert!((t.bytes / bytes - 1.0).abs() < 0.05, "{}", t.bytes);
        // Its native launch: 0.298 ms (CUDA events, tests/fixtures/ncu).
        assert!(
            (t.seconds / 5.0 / 0.298208e-3 - 1.0).abs() < 0.05,
            "{}",
            t.seconds
        );
        assert_eq!(t.counted_by, Some(CountedBy::Ncu));
        // The hash's work is integer instructions: W of its type.
        let h = &points(&recorded("hash"), "hash", None).unwrap().points[0];
        assert_eq!(h.kernel().unwrap().model.ty, crate::gpu::GpuType::Int32);
        assert_eq!(h.precision, Some(Precision::Int32));
    }

    /// The triad's first launch again under each of `names`, as ncu would
    /// write them (one ID each); `zero` gets no time and no bytes.
    fn renamed(names: &[&str], zero: Option<&str>) -> String {
        let text = recorded("triad");
        let head = text
            .lines()
            .filter(|l| !l.starts_with('"') || l.starts_with("\"ID\""));
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("\"0\"")).collect();
        let mut out: Vec<String> = head.map(str::to_string).collect();
        let triad = "triad(float *, const float *, const float *, float, unsigned long)";
        for (id, n) in names.iter().enumerate() {
            for r in &rows {
                let mut r = r
                    .replacen("\"0\"", &format!("\"{id}\""), 1)
                    .replace(triad, n);
                if zero == Some(*n) && (r.contains("gpu__time") || r.contains("dram__bytes")) {
                    r = format!("{}\"0\"", &r[..r.rfind(",\"").unwrap() + 1]);
                }
                out.push(r);
            }
        }
        out.join("\n")
    }

    #[test]
    fn overloads_templates_and_anonymous_kernels_are_each_a_point_named_apart() {
        let names = [
            "void f(float *)",
            "void f(double *)",
            "void a<(int)1>(float *)",
            "void a<(int)2>(float *)",
            "(anonymous namespace)::kern(int)",
            "void launch<__nv_dl_wrapper_t<__nv_dl_tag<void (*)(), &main, 1u>>>(int)",
        ];
        let k = points(&renamed(&names, None), "p", None).unwrap();
        let got: Vec<&str> = k.points.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            got,
            [
                "f(float *)",
                "f(double *)",
                "a<(int)1>",
                "a<(int)2>",
                "(anonymous namespace)::kern",
                "launch<__nv_dl_wrapper_t<__nv_dl_tag<void (*)(), &main, 1u>>>",
                "p (GPU)"
            ]
        );
        assert!(k.unplaced.is_empty());
        // Each kept its own work: the program's is their sum.
        let sum: f64 = k.points[..6].iter().map(|p| p.flops).sum();
        assert!((k.points[6].flops / sum - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_kernel_without_time_or_bytes_is_listed_and_the_others_kept() {
        let k = points(
            &renamed(&["good(int)", "zero(int)"], Some("zero(int)")),
            "p",
            None,
        )
        .unwrap();
        let names: Vec<&str> = k.points.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["good", "zero", "p (GPU)"]);
        // Written, listed, not drawn: the apps file takes it.
        assert!(k.points[0].placeable() && !k.points[1].placeable());
        let f = crate::results::apps::AppsFile {
            schema: crate::results::apps::APPS_SCHEMA,
            applications: k.points.clone(),
        };
        crate::results::apps::check(&f, "apps.yaml").unwrap();
    }

    #[test]
    fn no_kernel_and_counters_not_permitted_are_each_one_line() {
        let e = points("==PROF== Disconnected\n", "p", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no kernel of 'p'"), "{e}");
        let denied = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n";
        let e = points(denied, "p", None).unwrap_err().to_string();
        assert!(e.contains("NVreg_RestrictProfilingToAdminUsers=0"), "{e}");
        assert_eq!(short("void k<2>(float *, int)", false), "k<2>");
        assert_eq!(short("triad(float *)", false), "triad");
    }
}
