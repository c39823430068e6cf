//! `carmbench kernel`: run one kernel at one size, for experts and for the
//! comparison script (`scripts/bench-vs-likwid.py`).

use crate::error::{Error, Result};
use crate::kernels::{self, Kind, Shape};
use crate::machine::{Machine, Source};
use crate::measure::bench::{Rig, Settings};
use crate::measure::pool::Cores;
use crate::measure::streams;
use clap::Args;
use std::time::Duration;

/// `carmbench kernel`.
#[derive(Debug, Args)]
pub struct KernelArgs {
    /// Kernel name, e.g. avx512_load or avx512_dp_fma.
    pub name: String,
    /// Buffer per thread (bandwidth kernels), e.g. 32KiB, 16MiB.
    #[arg(long, default_value = "32KiB", value_parser = crate::units::parse_size)]
    pub bytes: u64,
    /// Threads, one per core.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Samples.
    #[arg(long, default_value_t = 11)]
    pub samples: usize,
    /// Minimum sample length, milliseconds.
    #[arg(long, default_value_t = 5.0)]
    pub min_ms: f64,
    /// Validation kernels: memory units and FP units per iteration, J,K.
    #[arg(long, value_name = "J,K", value_delimiter = ',')]
    pub shape: Option<Vec<u32>>,
    /// The core the first thread runs on (0 is the first); the others take
    /// the next ones. Lets two kernels run side by side on different cores.
    #[arg(long, default_value_t = 0)]
    pub first_core: usize,
}

/// The samples, buffer and shape asked for, checked.
fn check_sizes(a: &KernelArgs, k: &kernels::Kernel, m: &Machine) -> Result<Shape> {
    use crate::config::plan::{MAX_MIN_SAMPLE_MS, MAX_SAMPLES};
    if !(a.min_ms.is_finite() && a.min_ms > 0.0 && a.min_ms <= MAX_MIN_SAMPLE_MS) {
        return Err(Error::input(format!(
            "--min-ms is {}; give more than 0 and at most {MAX_MIN_SAMPLE_MS} milliseconds",
            a.min_ms
        )));
    }
    if !(1..=MAX_SAMPLES).contains(&a.samples) {
        return Err(Error::input(format!(
            "--samples is {}; give 1 to {MAX_SAMPLES}",
            a.samples
        )));
    }
    let usable = m.usable_memory() / 2;
    if a.bytes.saturating_mul(a.threads as u64) > usable {
        return Err(Error::input(format!(
            "--bytes {} per thread x {} thread(s) is more than half the memory available ({}); give a smaller buffer",
            crate::units::human_bytes(a.bytes),
            a.threads,
            crate::units::human_bytes(usable * 2)
        )));
    }
    if a.shape.is_some() && k.decl.kind != Kind::Validation {
        return Err(Error::input(format!(
            "--shape is for the validation kernels (names with _v_, e.g. avx2_dp_v_load_fma); '{}' has no shape",
            a.name
        )));
    }
    let most = crate::validate::shapes::MAX_REPEAT;
    match a.shape.as_deref() {
        Some([j, k]) if (1..=most).contains(j) && (1..=most).contains(k) => {
            Ok(Shape { j: *j, k: *k })
        }
        Some(_) => Err(Error::input(format!(
            "--shape takes two counts from 1 to {most}, J,K"
        ))),
        None => Ok(Shape::ONE),
    }
}

/// Run the subcommand.
pub fn run(a: &KernelArgs) -> Result<()> {
    let k = kernels::runnable(&a.name)?;
    let m = Machine::load(&Source::Live)?;
    m.check_cores(a.first_core, a.threads)?;
    let shape = check_sizes(a, k, &m)?;
    let s = Settings::new(Duration::from_secs_f64(a.min_ms / 1e3), a.samples);
    let mut cores = Cores::new(&m.core_first_pu[a.first_core..]);
    let r = cores
        .with_bench(a.threads, streams::alloc_for(k, a.bytes, shape), |b| {
            b.measure(k, a.bytes, shape, &s)
        })
        .and_then(|r| r)
        .map_err(Error::Io)?;
    let integer = k.decl.precision.is_some_and(|p| p.is_integer());
    let (unit, scale) = match (k.decl.kind, integer) {
        (Kind::Bandwidth, _) => ("GB/s", "B/cycle"),
        (_, true) => ("GOP/s", "op/cycle"),
        _ => ("GFLOP/s", "flop/cycle"),
    };
    println!(
        "{} threads={} first_core={} bytes/thread={} ai={} value={:.2} {unit} median={:.2} q1={:.2} q3={:.2} cv={:.4} per_cycle={:.2} {scale} clock={:.3} GHz drift={:.3} steal={:.3} passes={} parts={} iters={}",
        k.decl.name,
        a.threads,
        a.first_core,
        r.bytes_per_thread,
        if k.decl.kind == Kind::Validation {
            format!("{:.4}", k.decl.intensity(shape))
        } else {
            "-".into()
        },
        r.value() / 1e9,
        r.rates.median / 1e9,
        r.rates.q1 / 1e9,
        r.rates.q3 / 1e9,
        r.rates.cv,
        r.per_cycle(),
        r.clock_ghz(),
        r.clock_drift(),
        r.steal,
        r.passes,
        r.parts,
        r.iters
    );
    Ok(())
}
