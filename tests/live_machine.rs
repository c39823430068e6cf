//! The live machine: hwloc agrees with Linux sysfs, the clock is plausible.

use carmbench::machine::{Machine, Source};
use carmbench::measure::clock;
use std::fs;
use std::time::Duration;

fn sysfs_size(text: &str) -> u64 {
    let t = text.trim();
    let (num, mult) = match t.chars().last() {
        Some('K') => (&t[..t.len() - 1], 1024),
        Some('M') => (&t[..t.len() - 1], 1024 * 1024),
        Some('G') => (&t[..t.len() - 1], 1024 * 1024 * 1024),
        _ => (t, 1),
    };
    num.parse::<u64>().expect("sysfs cache size") * mult
}

/// (level, size, cpus sharing) of cpu0's data/unified caches from sysfs.
fn sysfs_caches() -> Vec<(usize, u64, usize)> {
    let mut v = Vec::new();
    let dir = "/sys/devices/system/cpu/cpu0/cache";
    for e in fs::read_dir(dir).expect("sysfs cache directory exists on Linux") {
        let p = e.unwrap().path();
        if !p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("index")
        {
            continue;
        }
        let ty = fs::read_to_string(p.join("type")).unwrap();
        if ty.trim() == "Instruction" {
            continue;
        }
        let level: usize = fs::read_to_string(p.join("level"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let size = sysfs_size(&fs::read_to_string(p.join("size")).unwrap());
        let shared = fs::read_to_string(p.join("shared_cpu_list")).unwrap();
        let cpus: usize = shared
            .trim()
            .split(',')
            .map(|r| match r.split_once('-') {
                Some((a, b)) => b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap() + 1,
                None => 1,
            })
            .sum();
        v.push((level, size, cpus));
    }
    v.sort();
    v
}

#[test]
fn caches_match_sysfs() {
    let m = Machine::load(&Source::Live).unwrap();
    let sys = sysfs_caches();
    assert!(!sys.is_empty());
    assert_eq!(
        m.caches.len(),
        sys.len(),
        "same number of data cache levels as sysfs"
    );
    let smt = m.hardware_threads / m.cores;
    for (c, (level, size, cpus)) in m.caches.iter().zip(&sys) {
        assert_eq!(c.depth, *level);
        assert_eq!(c.size_bytes, *size, "{} size", c.name);
        assert_eq!(
            c.cores_sharing,
            cpus / smt,
            "{} sharing (cpus {cpus}, smt {smt})",
            c.name
        );
    }
    assert!(m.mem_available_bytes.is_some());
    assert_eq!(m.core_first_pu.len(), m.cores);
}

#[test]
fn clock_is_plausible_with_spread() {
    let c = clock::measure(7, Duration::from_millis(2));
    let g = c.ghz;
    assert_eq!(g.n, 7);
    assert!(
        g.median > 0.8 && g.median < 7.0,
        "core clock {} GHz",
        g.median
    );
    assert!(g.min <= g.q1 && g.q1 <= g.median && g.median <= g.q3 && g.q3 <= g.max);
    assert!(g.cv.is_finite() && g.cv >= 0.0);
    let tsc = clock::tsc_ghz(Duration::from_millis(5));
    assert!(tsc > 0.5 && tsc < 10.0, "TSC {tsc} GHz");
}

/// (CPU last run on, user ticks) of each thread of process `pid`.
fn threads_of(pid: u32) -> Vec<(usize, u64)> {
    let Ok(dir) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    dir.filter_map(|e| fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter_map(|s| {
            // Fields after the command name: state is field 3, utime 14, processor 39.
            let f: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
            Some((f.get(36)?.parse().ok()?, f.get(11)?.parse().ok()?))
        })
        .collect()
}

/// `kernel --first-core N` runs its thread on core N: the process's busiest
/// thread is seen on that core's CPU (the last core, so that on two cores or
/// more it is not where a thread would start anyway).
#[test]
fn kernel_runs_on_the_core_it_is_given() {
    let m = Machine::load(&Source::Live).unwrap();
    let last = m.cores - 1;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_carmbench"))
        .args([
            "kernel",
            "scalar_dp_add",
            "--samples",
            "400",
            "--min-ms",
            "10",
        ])
        .args(["--first-core", &last.to_string()])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(50));
        let busiest = threads_of(child.id()).into_iter().max_by_key(|t| t.1);
        if let Some((cpu, _)) = busiest.filter(|t| t.1 > 20) {
            seen.push(cpu);
        }
    }
    child.kill().ok();
    child.wait().ok();
    assert!(
        seen.len() >= 5,
        "the kernel's thread never got busy: {seen:?}"
    );
    assert!(
        seen.iter().all(|&c| c == m.core_first_pu[last]),
        "busiest thread on CPUs {seen:?}, not on core {last} (CPU {})",
        m.core_first_pu[last]
    );
}
