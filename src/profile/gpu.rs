//! `profile --gpu`: a CUDA program's kernels as points, counted by Nsight
//! Compute's command line (`ncu`) running the program once: a point per
//! kernel (its launches together) and one for the program's GPU work, each
//! with W of its dominant type (seed 001's rule), Q its device-memory
//! bytes, T its time on the GPU, and the seed's parameters for `predict`.

use super::command::{self, Found};
use super::plan::{Common, ProfileArgs, default_name};
use crate::error::{Error, Result};
use crate::gpu::model::Params;
use crate::gpu::ncu::{self, Kernel};
use crate::kernels::Precision;
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
    super::emulator::on_path("ncu")
        .or_else(|| dirs.map(|d| d.join("ncu")).find(|p| p.is_file()))
        .ok_or_else(|| {
            Error::input(format!(
                "profile --gpu counts with Nsight Compute, whose ncu is not on PATH, in $CUDA_HOME/bin or in {}: install the CUDA toolkit (or Nsight Compute) and put ncu on PATH",
                NCU_DIRS.join(" or ")
            ))
        })
}

/// Profile `a`'s command on the GPU: what every profile resolves, and the
/// points.
pub fn profile(a: &ProfileArgs) -> Result<(Common, Vec<AppPoint>)> {
    let common = Common::resolve(a)?;
    let found = command::find(&a.command)?;
    let name = (a.name.clone()).unwrap_or_else(|| default_name(found.argv0.as_os_str()));
    let ncu = find_ncu()?;
    let scratch = crate::files::scratch_dir("ncu")?;
    let text = run(&ncu, &found, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    let points = points(&text?, &name, common.results.as_ref())?;
    Ok((common, points))
}

/// Run `command` once under `ncu`, its metrics written to a file in
/// `scratch` (the program's own output goes where carmbench's does): the
/// CSV, or the line that says why there is none.
pub fn run(ncu: &Path, command: &Found, scratch: &Path) -> Result<String> {
    let log = scratch.join("ncu.csv");
    let status = Command::new(ncu)
        .args([
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
        .args(&command.args)
        .status()
        .map_err(|e| Error::Io(format!("{}: {e}", ncu.display())))?;
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
/// one per kernel, in the order they first ran, and one for all of them
/// (named `PROGRAM (GPU)`). `results` names the GPUs where it has them.
pub fn points(text: &str, program: &str, results: Option<&Document>) -> Result<Vec<AppPoint>> {
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
    let mut out = Vec::new();
    for k in &kernels {
        let share = if total > 0.0 {
            k.seconds() / total
        } else {
            0.0
        };
        out.push(point(
            k,
            short(&k.name),
            program,
            Some(&k.name),
            share,
            &gpu_name(k.device),
        )?);
    }
    let all = together(&kernels);
    let name = format!("{program} (GPU)");
    out.push(point(
        &all,
        name,
        program,
        None,
        1.0,
        &gpu_name(all.device),
    )?);
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

/// The point of `k`.
fn point(
    k: &Kernel,
    name: String,
    program: &str,
    kernel: Option<&str>,
    share: f64,
    gpu: &str,
) -> Result<AppPoint> {
    let model = Params::of(k).map_err(Error::input)?;
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

/// A kernel's name without its arguments' types or return type:
/// `void intensity<8>(float *, ...)` is `intensity<8>`.
fn short(name: &str) -> String {
    let head = name.split('(').next().unwrap_or(name).trim();
    head.strip_prefix("void ").unwrap_or(head).to_string()
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
        let pts = points(&recorded("intensity"), "intensity", None).unwrap();
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
        let pts = points(&recorded("triad"), "triad", None).unwrap();
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
        let h = &points(&recorded("hash"), "hash", None).unwrap()[0];
        assert_eq!(h.kernel().unwrap().model.ty, crate::gpu::GpuType::Int32);
        assert_eq!(h.precision, Some(Precision::Int32));
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
        assert_eq!(short("void k<2>(float *, int)"), "k<2>");
        assert_eq!(short("triad(float *)"), "triad");
    }
}
