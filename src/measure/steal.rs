//! Time the hypervisor took from our virtual CPUs ("steal", /proc/stat).
//!
//! A guest's vCPU can be descheduled by its host: the kernel counts that
//! time as steal. A kernel timed across it runs slow for reasons no sample
//! shows (two vCPUs time-shared for seconds halve every 2-thread rate).
//! Measurements compare the steal of their CPUs with their wall time.

/// Steal of each listed CPU, seconds; `None` where /proc/stat cannot be read
/// (not Linux, no such CPU).
pub fn seconds(cpus: &[usize]) -> Option<Vec<f64>> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse(&text, cpus, ticks_per_second())
}

/// Parse the per-CPU lines of /proc/stat: the 8th value after the name is
/// steal, in clock ticks.
pub fn parse(text: &str, cpus: &[usize], hz: f64) -> Option<Vec<f64>> {
    cpus.iter()
        .map(|c| {
            let name = format!("cpu{c}");
            let line = text
                .lines()
                .find(|l| l.split_whitespace().next() == Some(name.as_str()))?;
            let ticks: u64 = line.split_whitespace().nth(8)?.parse().ok()?;
            Some(ticks as f64 / hz)
        })
        .collect()
}

/// The whole machine's steal and all its CPU time so far, clock ticks (the
/// `cpu` line of /proc/stat); `None` where it cannot be read.
pub fn machine_ticks() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_machine(&text)
}

/// The `cpu` line's steal (its 8th value) and the sum of its first eight
/// (user nice system idle iowait irq softirq steal; guest time is in user).
pub fn parse_machine(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = (line.split_whitespace().skip(1))
        .filter_map(|x| x.parse().ok())
        .collect();
    Some((*v.get(7)?, v.iter().take(8).sum()))
}

/// Length of one /proc/stat tick, seconds.
pub fn tick() -> f64 {
    1.0 / ticks_per_second()
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 { hz as f64 } else { 100.0 }
}

/// The share of `wall` seconds (per CPU) that the host surely took from the
/// CPUs between two readings: the largest over the CPUs, 0 without
/// readings. The counters move in whole ticks (10 ms) of a finer total, so
/// one tick of difference may be almost nothing: it is not counted.
pub fn fraction(before: Option<&[f64]>, after: Option<&[f64]>, wall: f64, tick: f64) -> f64 {
    match (before, after) {
        (Some(a), Some(b)) if wall > 0.0 => a
            .iter()
            .zip(b)
            .map(|(x, y)| ((y - x - tick) / wall).max(0.0))
            .fold(0.0, f64::max),
        _ => 0.0,
    }
}

/// Steal above this share of a measurement's time makes it disturbed.
pub const LIMIT: f64 = 0.05;

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  870259 0 57769 844230 3200 0 594 27695 0 0
cpu0 446352 0 29394 410458 784 0 88 14316 0 0
cpu1 423907 0 28375 433772 2416 0 505 13379 0 0
intr 1 2 3
";

    #[test]
    fn steal_is_read_per_cpu_and_compared_with_wall_time() {
        assert_eq!(parse(STAT, &[1, 0], 100.0), Some(vec![133.79, 143.16]));
        // "cpu" (the total) is not cpu0, and a CPU not listed is no reading.
        assert_eq!(parse(STAT, &[2], 100.0), None);
        // Half of a second taken from cpu1 (one tick of it uncertain), none
        // from cpu0: 49%.
        let a = [10.0, 20.0];
        let b = [10.0, 20.5];
        assert!((fraction(Some(&a), Some(&b), 1.0, 0.01) - 0.49).abs() < 1e-9);
        // One tick in 70 ms is no evidence; two are.
        let c = [10.0, 20.01];
        assert!(fraction(Some(&a), Some(&c), 0.07, 0.01) < 1e-9);
        let d = [10.0, 20.02];
        assert!(fraction(Some(&a), Some(&d), 0.07, 0.01) > LIMIT);
        assert_eq!(fraction(None, Some(&b), 1.0, 0.01), 0.0);
        assert_eq!(fraction(Some(&a), Some(&b), 0.0, 0.01), 0.0);
    }
}
