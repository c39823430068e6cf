//! MPI jobs (`profile --mpi`), under a real QEMU with Debian's Open MPI and
//! MPICH, launched by `mpirun`, `mpiexec` and the `srun` of a local Slurm: a
//! program whose two ranks do different, hand-counted work
//! (`programs/mpi_work.c`), one whose rank 1 crashes, and a job of tasks
//! over two nodes (`programs/task_work.c`).

use super::*;
use carmbench::results::apps::AppPoint;
use std::process::Output;

const MPI_WORK: &str = include_str!("../programs/mpi_work.c");
const TASK_WORK: &str = include_str!("../programs/task_work.c");

/// carmbench's C headers (the regions library's).
fn include() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include")
}

/// Flops a rank does outside its kernel and the MPI runtime, at most.
const OTHER_FLOPS: f64 = 100.0;

/// `mpi_work.c` built with Open MPI's mpicc and the regions library, in
/// `dir`.
fn mpi_work(dir: &Path) -> PathBuf {
    mpi_work_with(dir, "mpicc.openmpi")
}

/// The same, built with `mpicc` (one MPI's compiler wrapper).
fn mpi_work_with(dir: &Path, mpicc: &str) -> PathBuf {
    let c = dir.join("mpi_work.c");
    std::fs::write(&c, MPI_WORK).unwrap();
    let include = include();
    let exe = dir.join("mpi_work");
    let out = Command::new(mpicc)
        .args(["-O2", "-g", "-I"])
        .arg(&include)
        .arg("-o")
        .arg(&exe)
        .arg(&c)
        .arg(regions_static_lib())
        .args(["-lpthread", "-ldl", "-lm"])
        .output()
        .expect("mpicc runs");
    assert!(out.status.success(), "mpicc: {}", stderr(&out));
    exe
}

/// `carmbench profile --mpi` of `launch` in `dir` (Open MPI allowed to run
/// as root, as CI's machines do), into `dir/apps.yaml`.
fn mpi_profile(dir: &Path, more: &[&str], launch: &[&str], env: &[(&str, &str)]) -> Output {
    let mut flags = vec!["--mpi", "--results", FIXTURE];
    flags.extend(more);
    emulated_profile(dir, "apps.yaml", &flags, launch)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// The points of the apps file in `dir`.
fn load(dir: &Path) -> Vec<AppPoint> {
    apps::load(&dir.join("apps.yaml")).unwrap().applications
}

fn named<'a>(points: &'a [AppPoint], name: &str) -> &'a AppPoint {
    (points
        .iter()
        .find(|p| p.name == name && p.function().is_none()))
    .unwrap_or_else(|| panic!("no point {name}: {points:#?}"))
}

/// Rank `r` of `mpi_work N R`: its W (flops) by hand.
fn by_hand(n: u64, r: u64, rank: u64) -> f64 {
    (2 * n * r * (rank + 1)) as f64
}

/// The program, its region and its ranks, checked against the hand counts.
fn check_job(points: &[AppPoint], n: u64, r: u64, launcher: &str) {
    let program = named(points, "mpi_work");
    let mpi = program.mpi().expect("the program point says its launch");
    assert_eq!((mpi.launcher.as_str(), mpi.ranks), (launcher, 2), "{mpi:?}");
    assert_eq!(program.threads, Some(2));
    let ranks: Vec<&AppPoint> = (0..2)
        .map(|k| named(points, &format!("mpi_work/rank{k}")))
        .collect();
    // T: the slower rank's; W and Q: the sums.
    let slowest = ranks.iter().map(|p| p.seconds).fold(0.0, f64::max);
    assert_eq!(program.seconds, slowest);
    assert_eq!(
        mpi.slowest,
        ranks
            .iter()
            .find(|p| p.seconds == slowest)
            .unwrap()
            .rank()
            .unwrap()
            .rank
    );
    assert_eq!(program.flops, ranks[0].flops + ranks[1].flops);
    assert_eq!(program.bytes, ranks[0].bytes + ranks[1].bytes);
    for (k, p) in ranks.iter().enumerate() {
        let info = p.rank().unwrap();
        assert_eq!((info.rank, info.program.as_str()), (k as u32, "mpi_work"));
        // W: the kernel's by hand, and the few flops of libraries the
        // runtime loads that are not its own (libxml2, which hwloc loads
        // under srun's PMIx, does 2); the runtime's own work (its spinning
        // while it waits) kept apart, not in W.
        assert!(info.runtime.is_some(), "counted by place");
        let own = p.flops;
        let hand = by_hand(n, r, k as u64);
        let odd = own - hand;
        assert!(
            (0.0..=OTHER_FLOPS).contains(&odd),
            "rank {k}: {own} against {hand}"
        );
    }
    // The region: summed over the ranks, each rank's W exact.
    let region = named(points, "mpi_work/triad");
    assert_eq!(region.flops, by_hand(n, r, 0) + by_hand(n, r, 1));
    let work = region.spread.as_ref().unwrap().work.clone().unwrap();
    assert_eq!((work.min, work.min_rank), (by_hand(n, r, 0), 0));
    assert_eq!((work.max, work.max_rank), (by_hand(n, r, 1), 1));
}

pub fn an_mpi_job_is_a_point_with_a_point_per_rank_and_its_functions_spread() {
    let dir = tmpdir("mpi-two");
    mpi_work(&dir);
    let (n, r) = (1_000_000u64, 10u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let launch = ["mpirun", "-np", "2", "./mpi_work", &ns, &rs];
    let o = mpi_profile(&dir, &["--functions", "5"], &launch, &[]);
    let text = success(&o);
    assert_eq!(text.matches("checksum").count(), 1, "{text}");
    assert!(text.contains("over the ranks: T"), "{text}");
    let points = load(&dir);
    check_job(&points, n, r, "Open MPI's mpirun");
    // Functions: summed over the ranks (main's W exact), each with its
    // time in every rank.
    let main = (points.iter())
        .find(|p| p.name == "main" && p.function().is_some())
        .unwrap_or_else(|| panic!("no main: {points:#?}"));
    assert_eq!(
        main.mix.as_ref().unwrap().dp_flops,
        by_hand(n, r, 0) + by_hand(n, r, 1)
    );
    // Its seconds in the two ranks add up to its point's.
    let spread = main.spread.as_ref();
    let t = &spread.expect("a function's time over the ranks").seconds;
    assert!(t.max >= t.min && t.max > 0.0, "{t:?}");
    let sum = t.min + t.max;
    assert!((sum - main.seconds).abs() < 1e-9 * main.seconds, "{t:?}");
    // Profiled again: the old ranks go with the old program point.
    let o = mpi_profile(
        &dir,
        &[],
        &["mpirun", "-np", "1", "./mpi_work", &ns, &rs],
        &[],
    );
    success(&o);
    let again = load(&dir);
    assert!(
        again.iter().all(|p| p.name != "mpi_work/rank1"),
        "{again:#?}"
    );
    assert_eq!(named(&again, "mpi_work").mpi().unwrap().ranks, 1);
}

pub fn a_crashing_rank_is_named_and_the_others_kept() {
    let dir = tmpdir("mpi-crash");
    mpi_work(&dir);
    let launch = ["mpirun", "-np", "2", "./mpi_work", "200000", "5", "crash"];
    let o = mpi_profile(&dir, &[], &launch, &[]);
    let text = success(&o);
    let err = stderr(&o);
    assert!(
        err.contains("MPI rank 1 was stopped by signal 11 (SIGSEGV)"),
        "{err}"
    );
    let points = load(&dir);
    let program = named(&points, "mpi_work");
    let mpi = program.mpi().unwrap();
    assert_eq!(
        (mpi.ranks, mpi.failed.len(), mpi.failed[0].rank),
        (1, 1, 1),
        "{text}"
    );
    assert!(points.iter().all(|p| p.name != "mpi_work/rank1"));
    let rank0 = named(&points, "mpi_work/rank0");
    assert_eq!(
        (program.flops, program.seconds),
        (rank0.flops, rank0.seconds)
    );
    assert_eq!(
        named(&points, "mpi_work/triad").flops,
        by_hand(200_000, 5, 0)
    );
    // Rank 1 crashes while rank 0 waits for it: the launcher stops rank 0
    // too, and no rank is left to place.
    let launch = [
        "mpirun",
        "-np",
        "2",
        "./mpi_work",
        "200000",
        "5",
        "crash-early",
    ];
    let o = mpi_profile(&dir, &[], &launch, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let last = stderr(&o).lines().last().unwrap_or_default().to_string();
    for want in [
        "no rank of './mpi_work' ran to its end",
        "rank 1 was stopped by signal 11",
    ] {
        assert!(last.contains(want), "{want}: {last}");
    }
    // Rank 0's wrapper writes that its program was stopped, unless the
    // launcher killed the wrapper itself first.
    let rank0 = [
        "rank 0 was stopped by signal 15",
        "rank 0 ended without its record",
    ];
    assert!(rank0.iter().any(|w| last.contains(w)), "{last}");
    // The apps file keeps what it had.
    assert_eq!(load(&dir), points);
}

pub fn an_srun_job_on_a_local_slurm_is_profiled_rank_by_rank() {
    let dir = tmpdir("mpi-srun");
    mpi_work(&dir);
    let cluster = Cluster::up(dir.join("slurm"));
    let (n, r) = (500_000u64, 4u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let launch = ["srun", "-n", "2", "--mpi=pmix", "./mpi_work", &ns, &rs];
    let env = [("SLURM_CONF", cluster.conf.as_str())];
    success(&mpi_profile(&dir, &[], &launch, &env));
    check_job(&load(&dir), n, r, "Slurm's srun");
    // Tasks on two nodes of the cluster: ones that do not talk, as the
    // PMIx folders of two nodes on one machine collide.
    gcc_with(
        &dir,
        "task_work",
        TASK_WORK,
        &["-O2", "-I", include().to_str().unwrap()],
        &[regions_static_lib().to_str().unwrap(), "-lpthread", "-ldl"],
    );
    let launch = ["srun", "-N", "2", "-n", "2", "./task_work", &ns, &rs];
    let text = success(&mpi_profile(&dir, &[], &launch, &env));
    let points = load(&dir);
    let hosts: Vec<&str> = (0..2)
        .map(|k| named(&points, &format!("task_work/rank{k}")))
        .map(|p| p.rank().unwrap().host.as_str())
        .collect();
    assert_ne!(hosts[0], hosts[1], "{hosts:?}");
    let job = named(&points, "task_work");
    assert_eq!(job.mpi().unwrap().nodes, 2);
    assert_eq!(job.flops, by_hand(n, r, 0) + by_hand(n, r, 1));
    // Placed under twice one node's roofs of one thread.
    let said = "over 2 nodes: each roof 2 times one node's";
    assert!(text.contains(said), "{text}");
}

pub fn an_mpich_job_is_profiled_rank_by_rank() {
    let dir = tmpdir("mpi-mpich");
    mpi_work_with(&dir, "mpicc.mpich");
    let (n, r) = (500_000u64, 4u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let launch = ["mpiexec.mpich", "-n", "2", "./mpi_work", &ns, &rs];
    success(&mpi_profile(&dir, &[], &launch, &[]));
    check_job(&load(&dir), n, r, "MPICH's mpiexec");
}

pub fn a_launcher_carmbench_does_not_know_is_refused_in_one_line() {
    let dir = tmpdir("mpi-unknown");
    let o = mpi_profile(&dir, &[], &["true", "-np", "2", "./app"], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("'true' is not an MPI launcher carmbench knows"),
        "{err}"
    );
    assert!(err.contains("srun"), "{err}");
    let o = mpi_profile(&dir, &[], &["mpirun", "-np", "2"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no program after"), "{}", stderr(&o));
}
