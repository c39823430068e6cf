//! How a GPU sample is timed: one launch of a kernel, its time from events
//! around it, its clock from inside it (thread 0 of each block reads
//! `%clock64` and `%globaltimer` at its start and end: its SM's cycles over
//! the nanoseconds they took, the median of the blocks). The trip count is
//! calibrated so that a launch lasts long enough to dwarf its start.

use super::driver::{Arg, Buffer, Function, Gpu, Launch};
use super::kernels::{GpuKernel, Role};

/// What a launch lasts once calibrated, seconds.
pub const TARGET_SECONDS: f64 = 0.01;
/// Samples taken of each kernel.
pub const SAMPLES: usize = 7;

/// One launch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Its time by events, seconds.
    pub seconds: f64,
    /// Its SM clock, GHz.
    pub clock_ghz: f64,
}

/// A kernel's samples, with the work each launch did.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// Every sample.
    pub samples: Vec<Sample>,
    /// Bytes or operations one launch does (a validation kernel's: flops).
    pub work: f64,
    /// Blocks and threads a block.
    pub grid: [u32; 2],
}

impl Samples {
    /// The rate of each sample, per second (bytes or operations).
    pub fn rates(&self) -> Vec<f64> {
        self.samples.iter().map(|s| self.work / s.seconds).collect()
    }
    /// The fastest sample.
    pub fn fastest(&self) -> Option<Sample> {
        self.samples
            .iter()
            .copied()
            .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
    }
}

/// Where a kernel runs: its buffers and shape.
pub struct Setup<'a> {
    /// Blocks.
    pub grid: u32,
    /// Threads a block.
    pub block: u32,
    /// Dynamic shared memory a block, bytes.
    pub shared: u32,
    /// Memory kernels: the buffer they read or write (and the copy's
    /// destination), the bytes they walk.
    pub src: Option<&'a Buffer>,
    /// Where stores go (memory) or results are kept (compute).
    pub dst: &'a Buffer,
    /// The bytes the walk spans.
    pub size: u64,
    /// Per block: 4 words of stamps.
    pub stamps: &'a Buffer,
}

/// Calibrate `f` (of kernel `k`) on `setup` and take [`SAMPLES`] samples.
pub fn measure(gpu: &Gpu, k: &GpuKernel, f: &Function, setup: &Setup) -> Result<Samples, String> {
    let mut trips: u32 = 16;
    // A first launch warms the clocks and the caches; then trips grow until
    // a launch lasts a tenth of the target, and are scaled to it.
    let mut t = launch(gpu, k, f, setup, trips)?.seconds;
    while t < TARGET_SECONDS / 10.0 && trips < u32::MAX / 16 {
        trips *= 8;
        t = launch(gpu, k, f, setup, trips)?.seconds;
    }
    let scaled =
        (f64::from(trips) * TARGET_SECONDS / t.max(1e-9)).clamp(1.0, f64::from(u32::MAX / 2));
    trips = scaled as u32;
    let samples = (0..SAMPLES)
        .map(|_| launch(gpu, k, f, setup, trips))
        .collect::<Result<Vec<_>, _>>()?;
    let threads = f64::from(setup.grid) * f64::from(setup.block);
    let per_trip = match k.role {
        Role::Memory { .. } => k.bytes_per_trip(),
        Role::Validation { .. } | Role::Compute { .. } => k.ops_per_trip(),
    };
    Ok(Samples {
        samples,
        work: threads * per_trip * f64::from(trips),
        grid: [setup.grid, setup.block],
    })
}

fn launch(gpu: &Gpu, k: &GpuKernel, f: &Function, s: &Setup, trips: u32) -> Result<Sample, String> {
    let args: Vec<Arg> = match k.role {
        Role::Memory { .. } | Role::Validation { .. } => vec![
            Arg::U64(s.src.map_or(s.dst.ptr, |b| b.ptr)),
            Arg::U64(s.dst.ptr),
            Arg::U64(s.size),
            Arg::U64(s.stamps.ptr),
            Arg::U32(trips),
        ],
        Role::Compute { .. } => vec![Arg::U64(s.dst.ptr), Arg::U64(s.stamps.ptr), Arg::U32(trips)],
    };
    let l = Launch {
        grid: s.grid,
        block: s.block,
        shared: s.shared,
        args: &args,
    };
    let seconds = gpu.time(f, &l)?;
    let stamps = gpu.read_u64(s.stamps, s.grid as usize * 4)?;
    Ok(Sample {
        seconds,
        clock_ghz: clock_of(&stamps).unwrap_or(f64::NAN),
    })
}

/// The median over blocks of cycles per nanosecond, from each block's
/// `[clock start, clock end, time start, time end]`.
pub fn clock_of(stamps: &[u64]) -> Option<f64> {
    let mut ghz: Vec<f64> = stamps
        .chunks_exact(4)
        .filter(|s| s[3] > s[2] && s[1] > s[0])
        .map(|s| (s[1] - s[0]) as f64 / (s[3] - s[2]) as f64)
        .collect();
    if ghz.is_empty() {
        return None;
    }
    ghz.sort_by(f64::total_cmp);
    Some(ghz[ghz.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_the_median_block_and_empty_blocks_are_skipped() {
        // Three blocks: 1.98, 1.5 and 2.0 GHz; a fourth never wrote its stamps.
        let stamps = [
            0, 1980, 0, 1000, 0, 1500, 0, 1000, 10, 2010, 5, 1005, 0, 0, 0, 0,
        ];
        assert_eq!(clock_of(&stamps), Some(1.98));
        assert_eq!(clock_of(&[0; 8]), None);
    }

    #[test]
    fn the_fastest_sample_is_the_shortest() {
        let s = Samples {
            samples: vec![
                Sample {
                    seconds: 0.012,
                    clock_ghz: 1.9,
                },
                Sample {
                    seconds: 0.010,
                    clock_ghz: 1.98,
                },
            ],
            work: 1e9,
            grid: [132, 256],
        };
        assert_eq!(s.fastest().unwrap().clock_ghz, 1.98);
        assert_eq!(s.rates()[1], 1e11);
    }
}
