//! A piece of advice in words, with its numbers and evidence: one line
//! for `profile`'s output and the report.

use super::{Advice, Code};
use crate::results::apps::RanOnly;
use crate::results::apps::advice::Widths;

/// `a` in words, one line (the bound's is the placement line's).
pub fn words(a: &Advice) -> String {
    let pct = 100.0 * a.share;
    let gain = a.gain.unwrap_or(1.0);
    let roof = a.roof.as_deref().unwrap_or("roof");
    let e = &a.evidence;
    match a.code {
        Code::Bound => format!("{pct:.1}% of the {roof}: up to {gain:.2}x to reach it"),
        Code::ScalarFp => format!(
            "{pct:.0}% of its FP work in vectors narrower than the CPU's widest{}; \
             all in the widest: up to {gain:.1}x",
            e.widths
                .map_or(String::new(), |w| format!(" ({})", widths(&w)))
        ),
        Code::NoFma => format!(
            "{pct:.0}% of its flops are adds and multiplies not fused; \
             as FMA: up to {gain:.1}x"
        ),
        Code::MemoryBound => format!(
            "memory-bound: {pct:.0}% of the {roof}{}; fewer bytes per operation there \
             (blocking, reuse, a denser layout) lift it",
            memory_evidence(a)
        ),
        Code::LevelUnknown => format!(
            "under the {roof} at its intensity, {pct:.0}% of it, by the bytes its core \
             requested; which level those bytes come from is unknown without simulated \
             caches (data in L1 or a pointer chase sit here too): profile with --traffic \
             to find the level that bounds it"
        ),
        Code::FarBelow => format!(
            "at {pct:.1}% of the {roof}, and no nearer any other roof: neither bandwidth \
             nor the arithmetic units limit it, but latency (dependent loads, branches, \
             calls), little work per call, or waiting"
        ),
        Code::NextRoof => format!("the {roof} next above, {gain:.2}x higher at its intensity"),
        Code::IntegerWork => format!(
            "{pct:.0}% of its ops are integer: place it under the integer roofs \
             (--precision int)"
        ),
        Code::X87 => format!(
            "{pct:.0}% of its FP instructions are x87 (long double on x86-64), \
             which no vector unit runs: use double where its 64 bits do (no flag moves \
             long double off x87 but -mlong-double-64, which breaks the ABI with libraries)"
        ),
        Code::AboveRoof => format!(
            "{:.2}x the {} at its intensity: a counting or timing error, \
             not a speed above the roof (check its W, Q and T)",
            a.share,
            a.roof.as_deref().unwrap_or("highest roof")
        ),
        Code::ShortRun => format!(
            "too short: its time rests on {pct:.0}% of the samples a steady figure needs; \
             run it longer"
        ),
        Code::NoSymbols => {
            "named by file and offset: build with -g or install its debug symbols".into()
        }
        Code::OtherPath => other_path(a),
        Code::SharedCores => shared_cores(a),
        Code::EmulatedTooFast => format!(
            "its emulated run took {:.1}x its native time, where emulation runs code \
             several times slower: it likely did less work there (a loop that runs for a \
             fixed time), so W and Q count only what it did; give it a fixed amount of work",
            a.share
        ),
        Code::MostlyWaited => format!(
            "it ran {:.0}% of its wall time (over its threads) and waited the rest \
             (I/O, sleep, locks, other processes): its rate counts the waiting",
            100.0 * e.cpu_share.unwrap_or(1.0 - a.share)
        ),
    }
}

/// Why a program whose threads waited for a CPU would run faster alone.
fn shared_cores(a: &Advice) -> String {
    let steal = (a.evidence.steal.filter(|s| *s > 0.0)).map_or(String::new(), |s| {
        format!(", and the host took {:.0}% of the machine", 100.0 * s)
    });
    format!(
        "its threads waited for a CPU {:.0}% of the time they were ready to run{steal}: \
         other threads held its cores (its own or others'), so its rate alone would be up to {:.2}x; \
         profile it on a quiet machine",
        100.0 * a.share,
        a.gain.unwrap_or(1.0)
    )
}

/// The element operations by width, those there are.
fn widths(w: &Widths) -> String {
    let parts = [
        (w.scalar, "scalar"),
        (w.v128, "128-bit"),
        (w.v256, "256-bit"),
        (w.v512, "512-bit"),
    ];
    (parts.iter())
        .filter(|p| p.0 > 0.0)
        .map(|p| format!("{:.0}% {}", 100.0 * p.0, p.1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// ", 1.50 bytes per operation there, 8% of the line accesses reach it".
fn memory_evidence(a: &Advice) -> String {
    let e = &a.evidence;
    let mut s = String::new();
    if let Some(b) = e.bytes_per_op {
        s += &format!(", {b:.2} bytes per operation");
    }
    if let Some(m) = e.misses_per_access {
        s += &format!(", {:.1}% of its line accesses reach it", 100.0 * m);
    }
    if let Some(side) = e.side {
        s += &format!(", bound by its {}s there", side.name());
    }
    s
}

/// Other code counted in this code's place, for a function or a program.
fn other_path(a: &Advice) -> String {
    let e = &a.evidence;
    match (&e.ran_instead, e.ran_only) {
        (Some(f), _) => format!(
            "under emulation {f} ran in its place (the host's path needs what QEMU \
             lacks): its W, Q and mix are {f}'s, its time its own"
        ),
        (None, Some(RanOnly::Natively)) => "it ran no instruction under emulation: its work \
             is counted nowhere, and it is not placed"
            .into(),
        (None, Some(RanOnly::Emulated)) => "it ran under emulation only: the native run \
             took another path; its work stands in for that path's"
            .into(),
        (None, None) => format!(
            "{:.0}% of its native time ran code that emulation replaced with other code \
             (its functions' `counted_as`, `ran_only`): its W and Q count that other code",
            100.0 * a.share
        ),
    }
}
