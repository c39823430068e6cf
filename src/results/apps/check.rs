//! An apps file's points checked when read and before they are written:
//! each number finite and in its range, each name present, the CPU an
//! emulated program was shown in CPUID's ranges.

use super::{AppPoint, AppsFile, EmulatedCpu, InstructionMix};
use crate::error::{Error, Result};
use crate::results::check::{Entry, POINT_RANGE};
use crate::units::num;

const APPS_FIX: &str = "correct the apps file, or write it again with `carmbench profile`";

fn check_mix(e: &Entry, m: &InstructionMix) -> Result<()> {
    for (f, v) in [
        ("mix.dp_flops", m.dp_flops),
        ("mix.sp_flops", m.sp_flops),
        ("mix.fma_flops", m.fma_flops),
        ("mix.other_flops", m.other_flops),
        ("mix.fp_scalar", m.fp_scalar),
        ("mix.fp_128", m.fp_128),
        ("mix.fp_256", m.fp_256),
        ("mix.fp_512", m.fp_512),
        ("mix.x87", m.x87),
        ("mix.bytes_loaded", m.bytes_loaded),
        ("mix.bytes_stored", m.bytes_stored),
        ("mix.loads", m.loads),
        ("mix.stores", m.stores),
        ("mix.instructions", m.instructions),
        ("mix.int8_ops", m.int8_ops),
        ("mix.int16_ops", m.int16_ops),
        ("mix.int32_ops", m.int32_ops),
        ("mix.int64_ops", m.int64_ops),
        (
            "mix.scalar_int_ops",
            m.scalar_int_ops.iter().copied().fold(0.0, f64::min),
        ),
        ("mix.int_compares", m.int_compares),
        ("mix.bf16_flops", m.bf16_flops),
        ("mix.fp16_flops", m.fp16_flops),
    ] {
        e.non_negative(f, v)?;
    }
    Ok(())
}

fn check_app(doc: &str, a: &AppPoint) -> Result<()> {
    let e = Entry::new(doc, format!("application '{}'", a.name), APPS_FIX);
    if a.name.trim().is_empty() {
        return Err(e.fail("name", "empty", "each point needs a name"));
    }
    // A function may do no FP work (a copy) or miss the samples, a phase
    // may do none (a wait), and a GPU kernel's counters may give it no
    // bytes or no time: listed, not drawn.
    let listed = a.function().is_some() || a.phase().is_some() || a.kernel().is_some();
    if listed && !a.placeable() {
        e.non_negative("flops", a.flops)?;
        e.non_negative("bytes", a.bytes)?;
        e.non_negative("seconds", a.seconds)?;
    } else {
        e.positive("flops", a.flops)?;
        e.positive("bytes", a.bytes)?;
        e.positive("seconds", a.seconds)?;
        e.plottable("its AI (flop/B)", a.ai(), "flops / bytes")?;
        e.plottable("its GFLOP/s", a.gflop_per_s(), "flops / seconds")?;
    }
    if let Some(t) = a.threads {
        e.at_least("threads", t as u64, 1)?;
    }
    if let Some(f) = a.fma_flops {
        e.non_negative("fma_flops", f)?;
        e.ordered(("fma_flops", f), ("flops", a.flops))?;
    }
    if let Some(m) = &a.mix {
        check_mix(&e, m)?;
    }
    if let Some(t) = &a.traffic {
        check_traffic(&e, t)?;
    }
    check_region(&e, a)?;
    if let Some(n) = &a.native {
        check_native(&e, n)?;
    }
    if let Some(f) = a.function() {
        e.non_negative("function.share", f.share)?;
        e.ordered(("function.share", f.share), ("1", 1.0))?;
        if f.program.trim().is_empty() {
            return Err(e.fail("function.program", "empty", "name the program's point"));
        }
        if f.counted_as.as_ref().is_some_and(|c| c.trim().is_empty()) {
            return Err(e.fail("function.counted_as", "empty", "name the function counted"));
        }
    }
    if let Some(l) = a.loop_info() {
        e.non_negative("loop.total_flops", l.total_flops)?;
        e.non_negative("loop.total_bytes", l.total_bytes)?;
        if l.function.trim().is_empty() {
            return Err(e.fail("loop.function", "empty", "name the loop's function"));
        }
        if l.depth == 0 {
            return Err(e.fail("loop.depth", "0", "an outermost loop has depth 1"));
        }
        if a.function().is_none() {
            return Err(e.fail(
                "loop",
                "without function",
                "give the loop's function: its program, module and share",
            ));
        }
    }
    if let Some(x) = a.phase() {
        check_phase(&e, x)?;
    }
    if let Some(c) = &a.emulated_cpu {
        check_cpu(&e, c)?;
    }
    for p in &a.processes {
        e.non_negative("processes.flops", p.flops)?;
        e.non_negative("processes.bytes", p.bytes)?;
        e.non_negative("processes.instructions", p.instructions)?;
    }
    Ok(())
}

/// A region's bytes read and written, and its size.
fn check_region(e: &Entry, a: &AppPoint) -> Result<()> {
    if let Some(s) = &a.sides {
        check_sides(e, s, a.bytes)?;
    }
    if let Some(s) = &a.sized {
        if s.series.trim().is_empty() {
            return Err(e.fail("series", "empty", "name the sized region's series"));
        }
        e.positive("n", s.n)?;
        e.at_least("calls", s.calls, 1)?;
    }
    Ok(())
}

/// The core's bytes read and written: what `bytes` is made of.
fn check_sides(e: &Entry, s: &super::ReadWrite, bytes: f64) -> Result<()> {
    e.non_negative("bytes_read", s.read)?;
    e.non_negative("bytes_written", s.write)?;
    // The file holds each number to its last digit: only rounding apart.
    if (s.total() - bytes).abs() > 1e-9 * bytes.max(1.0) + 0.5 {
        return Err(e.fail(
            "bytes_read + bytes_written",
            num(s.total()),
            &format!(
                "they make up bytes ({}): give them so, or leave both out",
                num(bytes)
            ),
        ));
    }
    Ok(())
}

/// A phase: its program named, its span and windows in order.
fn check_phase(e: &Entry, x: &crate::results::apps::PhaseInfo) -> Result<()> {
    if x.program.trim().is_empty() {
        return Err(e.fail("phase.program", "empty", "name the program's point"));
    }
    e.at_least("phase.index", x.index as u64, 1)?;
    e.non_negative("phase.start", x.start)?;
    e.ordered(("phase.start", x.start), ("phase.end", x.end))?;
    let mut before = x.start;
    for w in &x.windows {
        e.non_negative("phase.windows W", w[1])?;
        e.non_negative("phase.windows Q", w[2])?;
        e.ordered(("a window's start", before), ("its end", w[0]))?;
        before = w[0];
    }
    for f in &x.functions {
        e.non_negative("phase.functions.share", f.share)?;
        e.ordered(("phase.functions.share", f.share), ("1", 1.0))?;
    }
    Ok(())
}

/// The CPU an emulated program was shown: CPUID's ranges, and feature
/// names as QEMU spells them, each once.
fn check_cpu(e: &Entry, c: &EmulatedCpu) -> Result<()> {
    let printable = |s: &str| s.chars().all(|c| c.is_ascii_graphic() || c == ' ');
    if c.vendor.len() > 12 || !printable(&c.vendor) {
        return Err(e.fail(
            "emulated_cpu.vendor",
            &c.vendor,
            "a CPUID vendor string of 12 ASCII characters at most",
        ));
    }
    if c.brand.len() > 48 || !printable(&c.brand) {
        return Err(e.fail(
            "emulated_cpu.brand",
            &c.brand,
            "a CPUID brand string of 48 ASCII characters at most",
        ));
    }
    for (field, v, most) in [
        ("emulated_cpu.family", c.family, 0xF + 0xFF),
        ("emulated_cpu.model", c.model, 0xFF),
        ("emulated_cpu.stepping", c.stepping, 0xF),
    ] {
        e.ordered((field, f64::from(v)), (&format!("{most}"), f64::from(most)))?;
    }
    for (field, names) in [
        ("emulated_cpu.hidden", &c.hidden),
        ("emulated_cpu.masked", &c.masked),
    ] {
        for (i, n) in names.iter().enumerate() {
            let word =
                |ch: char| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-' || ch == '.';
            if n.is_empty() || n.len() > 32 || !n.chars().all(word) {
                return Err(e.fail(
                    field,
                    n,
                    "CPU feature names as QEMU spells them (avx512f, sse4.2, avx-vnni)",
                ));
            }
            if names[..i].contains(n) {
                return Err(e.fail(field, n, "each feature named once"));
            }
        }
    }
    Ok(())
}

/// Counts given by hand (`--flops`, `--bytes`): positive, finite, and an
/// intensity inside [`POINT_RANGE`].
pub fn manual_counts(flops: f64, bytes: f64) -> Result<()> {
    if !(flops > 0.0 && bytes > 0.0 && flops.is_finite() && bytes.is_finite()) {
        return Err(Error::input("--flops and --bytes must be positive numbers"));
    }
    let (lo, hi) = POINT_RANGE;
    if !(lo..=hi).contains(&(flops / bytes)) {
        return Err(Error::input(format!(
            "--flops / --bytes is {} flop/B; an intensity outside {} to {} cannot be right: check the counts",
            num(flops / bytes),
            num(lo),
            num(hi)
        )));
    }
    Ok(())
}

/// Check one application point, as an apps file `doc` would hold it.
pub fn check_point(a: &AppPoint, doc: &str) -> Result<()> {
    check_app(doc, a)
}

/// Simulated traffic: no negative bytes.
fn check_traffic(e: &Entry, t: &super::Traffic) -> Result<()> {
    for (f, v) in [
        ("traffic.L2.read", t.l2.read),
        ("traffic.L2.write", t.l2.write),
        ("traffic.L3.read", t.l3.read),
        ("traffic.L3.write", t.l3.write),
        ("traffic.DRAM.read", t.dram.read),
        ("traffic.DRAM.write", t.dram.write),
    ] {
        e.non_negative(f, v)?;
    }
    Ok(())
}

/// A program's native run: times not negative, the steal a share.
fn check_native(e: &Entry, n: &super::NativeTime) -> Result<()> {
    e.non_negative("native.cpu_seconds", n.cpu_seconds)?;
    e.non_negative("native.waited_seconds", n.waited_seconds)?;
    e.non_negative("native.steal", n.steal)?;
    if let Some(x) = n.emulated_seconds {
        e.non_negative("native.emulated_seconds", x)?;
    }
    e.ordered(("native.steal", n.steal), ("1", 1.0))
}

/// Check an apps file read from `doc`.
pub fn check(f: &AppsFile, doc: &str) -> Result<()> {
    f.applications.iter().try_for_each(|a| check_app(doc, a))
}
