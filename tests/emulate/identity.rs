//! The CPU an emulated program is shown is this machine's own: a program
//! that picks its kernel by CPUID identity runs natively and emulated the
//! same kernel; a program whose kernel needs a feature QEMU cannot give (or
//! one left out with `--emulate-without`) runs another one under emulation,
//! and `profile` says so and pairs the two; numpy's BLAS kernel that ran
//! natively is the one counted.

use super::*;
use carmbench::results::apps::AppPoint;

const BY_IDENTITY: &str = include_str!("../programs/by_identity.c");
const BY_FEATURE: &str = include_str!("../programs/by_feature.c");

/// `profile --counts emulate --functions MORE -- ARGS` in `dir` into
/// `out`: the apps file's points, and standard error.
fn functions_of(dir: &Path, out: &str, more: &[&str], args: &[&str]) -> (Vec<AppPoint>, String) {
    let mut flags = vec!["--functions"];
    flags.extend(more);
    let o = emulated_profile(dir, out, &flags, args).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stderr}");
    (apps::load(&dir.join(out)).unwrap().applications, stderr)
}

fn point<'a>(points: &'a [AppPoint], name: &str) -> Option<&'a AppPoint> {
    points.iter().find(|p| p.name == name)
}

pub fn a_kernel_chosen_by_cpu_identity_is_the_same_one_emulated() {
    let dir = tmpdir("identity");
    let exe = gcc(
        &dir,
        "by_identity",
        BY_IDENTITY,
        &["-O1", "-ffp-contract=off", "-g"],
    );
    let id = carmbench::machine::cpuid::cpuid();
    let (family, model) = (id.family.to_string(), id.model.to_string());
    let (n, r) = (2_000_000u64, 60u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let args = [exe.to_str().unwrap(), &ns, &rs, &id.vendor, &family, &model];
    // QEMU's own model is another CPU: there the program picks another
    // kernel, which is why the emulated program is shown this one.
    let own = Command::new("qemu-x86_64").args(args).output().unwrap();
    assert!(!String::from_utf8_lossy(&own.stdout).contains("kernel mine"));
    let (points, stderr) = functions_of(&dir, "apps.yaml", &[], &args);
    let mine = point(&points, "mine").unwrap_or_else(|| panic!("{points:?}"));
    // Its W by hand, exact: 3 flops per element and repetition.
    assert_eq!(mine.flops, (3 * n * r) as f64);
    assert!(mine.seconds > 0.0 && mine.function().unwrap().share > 0.5);
    for other in ["vendor", "other"] {
        assert!(
            point(&points, other).is_none_or(|p| p.flops == 0.0),
            "{other}"
        );
    }
    assert!(!stderr.contains("under emulation"), "{stderr}");
    let whole = &points[0];
    let cpu = whole
        .emulated_cpu
        .as_ref()
        .expect("the CPU shown is recorded");
    assert_eq!(
        (&cpu.vendor, cpu.family, cpu.model),
        (&id.vendor, id.family, id.model)
    );
    assert!(whole.source.as_deref().unwrap().contains("as this CPU"));
    // Started by a shell: the followed child is shown this CPU too.
    let line = args.join(" ");
    let (points, _) = functions_of(&dir, "sh.yaml", &["--name", "sh"], &["sh", "-c", &line]);
    assert_eq!(
        point(&points, "mine").map(|p| p.flops),
        Some((3 * n * r) as f64)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The checks of a run whose native kernel `native` ran no instruction
/// under emulation, where `emulated` ran: one warning naming both, and the
/// native kernel's point with the emulated one's W (2 flops an element).
fn paired(points: &[AppPoint], stderr: &str, native: &str, emulated: &str, w: f64) {
    let line = stderr
        .lines()
        .find(|l| l.contains(&format!("{native} (by_feature)")))
        .unwrap_or_else(|| panic!("no warning about {native}: {stderr}"));
    assert!(
        line.contains(&format!("where {emulated} ran in its place")),
        "{line}"
    );
    assert!(line.contains("counted_as"), "{line}");
    let p = point(points, native).unwrap_or_else(|| panic!("{points:?}"));
    let f = p.function().unwrap();
    assert_eq!(f.counted_as.as_deref(), Some(emulated));
    assert_eq!(p.flops, w, "{native} counted as {emulated}");
    assert!(p.seconds > 0.0 && p.placeable());
    // Its advice says so, and gives no vector or FMA advice from the
    // other kernel's instructions.
    use carmbench::results::advice::Code;
    let o = (p.advice.iter()).find(|a| a.code == Code::OtherPath);
    assert!(
        o.is_some_and(|o| o.evidence.ran_instead.as_deref() == Some(emulated)),
        "{:?}",
        p.advice
    );
    assert!(
        (p.advice.iter()).all(|a| a.code != Code::ScalarFp && a.code != Code::NoFma),
        "{:?}",
        p.advice
    );
    assert!(
        point(points, emulated).is_none(),
        "{emulated} is not a point of its own"
    );
}

pub fn a_kernel_for_a_feature_qemu_lacks_is_named_and_paired() {
    let dir = tmpdir("feature");
    let exe = gcc(&dir, "by_feature", BY_FEATURE, &["-O3", "-g"]);
    let (n, r) = (2_000_000u64, 400u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let args = [exe.to_str().unwrap(), ns.as_str(), rs.as_str()];
    let w = (2 * n * r) as f64;
    let avx512 = std::arch::is_x86_feature_detected!("avx512f");
    let avx2 =
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    if avx512 {
        // AVX-512: this CPU's path, which QEMU cannot emulate.
        let (points, stderr) = functions_of(&dir, "a.yaml", &[], &args);
        paired(&points, &stderr, "k_avx512", "k_avx2", w);
        let cpu = points[0].emulated_cpu.as_ref().unwrap();
        assert!(cpu.hidden.iter().any(|h| h == "avx512f"), "{cpu:?}");
        assert!(points[0].source.as_deref().unwrap().contains("avx512f"));
    }
    // On any CPU: a feature left out on request, the mismatch it makes.
    if avx512 || avx2 {
        let more = ["--emulate-without", "avx2"];
        let (points, stderr) = functions_of(&dir, "b.yaml", &more, &args);
        let native = if avx512 { "k_avx512" } else { "k_avx2" };
        paired(&points, &stderr, native, "k_sse2", w);
        let cpu = points[0].emulated_cpu.as_ref().unwrap();
        assert!(cpu.hidden.iter().any(|h| h == "avx2"), "{cpu:?}");
        assert!(
            points[0]
                .source
                .as_deref()
                .unwrap()
                .contains("as asked (avx2)")
        );
    }
    // A name QEMU does not know is refused before anything runs.
    let o = emulated_profile(&dir, "c.yaml", &["--emulate-without", "avx3"], &args)
        .output()
        .unwrap();
    assert_input_error(&o, &["--emulate-without avx3", "avx512f"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

pub fn the_blas_kernel_numpy_ran_natively_is_the_one_counted() {
    let dir = tmpdir("numpy");
    let script = dir.join("mm.py");
    std::fs::write(
        &script,
        "import numpy as np\na = np.random.rand(400, 400)\nfor _ in range(40): b = a @ a\nprint(float(b[0, 0]) > 0)\n",
    )
    .unwrap();
    let args = [common::parts::DEBIAN_PYTHON, script.to_str().unwrap()];
    let (points, stderr) = functions_of(&dir, "apps.yaml", &[], &args);
    // The function with the most native samples in OpenBLAS: its kernel.
    let blas: Vec<&AppPoint> = points
        .iter()
        .filter(|p| p.function().is_some_and(|f| f.module.contains("openblas")))
        .collect();
    let kernel = blas
        .iter()
        .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .unwrap_or_else(|| panic!("no OpenBLAS function: {points:?}"));
    let f = kernel.function().unwrap();
    assert!(kernel.name.contains("gemm"), "{}", kernel.name);
    assert!(f.share > 0.2, "{f:?}");
    assert!(kernel.flops > 1e8 && kernel.fma_flops.unwrap_or(0.0) > 0.5 * kernel.flops);
    // OpenBLAS chooses its kernel by CPU. Where the host has AVX-512, its
    // native kernel needs what QEMU cannot emulate: the emulated run takes
    // the AVX2 kernel, which the point is counted as, and says so.
    if std::arch::is_x86_feature_detected!("avx512f") && f.counted_as.is_some() {
        let instead = f.counted_as.as_deref().unwrap();
        assert!(
            instead.contains("gemm") && instead != kernel.name,
            "{instead}"
        );
        assert!(
            stderr.contains(&kernel.name) && stderr.contains("avx512f"),
            "{stderr}"
        );
    } else {
        // Counted as itself: the same kernel ran under emulation, with its
        // FMAs.
        assert_eq!(f.counted_as, None, "{stderr}");
        assert!(!stderr.contains(&kernel.name), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
