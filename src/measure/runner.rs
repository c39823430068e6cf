//! Running one kernel on pinned threads and timing it.
//!
//! One measurement = one kernel, one buffer size per thread, one thread
//! count. The threads are pinned one per core, each allocates and touches
//! its own buffer after pinning (first touch puts the pages on the core's
//! NUMA node), then all of them step together through barriers:
//! calibration (double the passes until a run lasts the minimum time),
//! warm-up, then the samples. A sample's time is the slowest thread's time.
//! Each thread measures its core clock right before the first and after the
//! last sample; the measurement's clock is the median over threads.

use super::clock;
use super::stats::{Summary, summarize};
use crate::kernels::{Kernel, Kind};
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

/// Inner-loop iterations per pass of a compute kernel (its passes are
/// calibrated like a bandwidth kernel's).
pub const COMPUTE_ITERS: u64 = 4096;

/// Size of a transparent huge page on x86-64.
const HUGE_PAGE: usize = 2 << 20;

/// Streams of one buffer start on separate pages (see [`layout`]).
const STREAM_GAP: usize = 4096;

/// Offset of the store stream within its page, relative to the load streams.
/// Measured on Zen 5 (L1, AVX-512 2LD1ST, 12 to 38 KiB): with all streams at
/// the same page offset the rate swung between 118 and 180 B/cycle with the
/// buffer size (4K aliasing between loads and in-flight stores, and L1 bank
/// conflicts); with the stores half a page off it stayed at 169-176.
pub const STORE_SKEW: usize = 2048;

/// How long and how often to sample.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// A sample lasts at least this long.
    pub min_sample: Duration,
    /// Samples kept.
    pub samples: usize,
    /// Runs of the clock probe before and after.
    pub clock_runs: usize,
    /// Length of one clock-probe run.
    pub clock_run: Duration,
}

/// Result of one measurement.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Seconds per sample (slowest thread).
    pub seconds: Vec<f64>,
    /// Rate per sample: bytes/s (bandwidth) or flops/s (compute), all threads.
    pub rates: Summary,
    /// Bytes each thread's buffer actually spans (bandwidth kernels).
    pub bytes_per_thread: u64,
    /// Inner iterations per pass and passes per sample.
    pub iters: u64,
    /// Passes per sample.
    pub passes: u64,
    /// Core clock before the samples, GHz (median over threads).
    pub clock_before_ghz: f64,
    /// Core clock after the samples, GHz.
    pub clock_after_ghz: f64,
}

impl Measurement {
    /// Mean of the clocks before and after, GHz.
    pub fn clock_ghz(&self) -> f64 {
        (self.clock_before_ghz + self.clock_after_ghz) / 2.0
    }
    /// Relative change of the clock between before and after.
    pub fn clock_drift(&self) -> f64 {
        (self.clock_after_ghz - self.clock_before_ghz).abs() / self.clock_before_ghz
    }
}

/// A page-aligned, zero-initialised buffer owned by one thread.
struct Buffer {
    ptr: *mut u8,
    layout: Layout,
}

impl Buffer {
    fn new(bytes: usize) -> Option<Self> {
        // Whole 2 MiB pages, 2 MiB aligned, so transparent huge pages can back
        // the buffer: no TLB misses, and hardware prefetchers are not stopped
        // at every 4 KiB page boundary.
        let size = bytes.max(4096).div_ceil(HUGE_PAGE) * HUGE_PAGE;
        let layout = Layout::from_size_align(size, HUGE_PAGE).ok()?;
        // SAFETY: layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        // SAFETY: the range is our own allocation; the advice is only a hint.
        unsafe { libc::madvise(ptr.cast(), size, libc::MADV_HUGEPAGE) };
        // Touch every page from this (pinned) thread: the pages land on its
        // NUMA node and no page fault happens while timing.
        for off in (0..layout.size()).step_by(4096) {
            // SAFETY: in bounds of the allocation.
            unsafe { ptr.add(off).write_volatile(1) };
        }
        Some(Buffer { ptr, layout })
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Stream layout of a bandwidth kernel within a thread's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout3 {
    /// Inner iterations per pass.
    pub iters: u64,
    /// Offsets of streams A, B, C in the buffer.
    pub offsets: [usize; 3],
    /// Bytes to allocate.
    pub alloc: usize,
    /// Bytes the streams span (the working set).
    pub span: u64,
}

/// Place a kernel's streams for a working set of `bytes` per thread: the
/// iterations are the working set over the bytes one iteration touches, and
/// each stream gets its share. Load streams start on page boundaries; the
/// store stream starts [`STORE_SKEW`] (half a page) further, so its low 12
/// address bits never equal those of the loads issued beside it.
pub fn layout(k: &Kernel, bytes: u64) -> Layout3 {
    let d = &k.decl;
    let per_iter = d.bytes_per_iter().max(1);
    let iters = (bytes / per_iter).max(1);
    let ls = d.load_streams().max(1) as u64;
    let a = (iters * d.load_bytes_per_iter() / ls) as usize;
    let c = (iters * d.store_bytes_per_iter()) as usize;
    let page = |x: usize| x.div_ceil(STREAM_GAP) * STREAM_GAP;
    let off_b = page(a);
    let off_c = if d.load_streams() == 2 {
        off_b + page(a)
    } else {
        off_b
    } + STORE_SKEW;
    Layout3 {
        iters,
        offsets: [0, off_b, off_c],
        alloc: off_c + page(c).max(STREAM_GAP),
        span: iters * per_iter,
    }
}

/// Shared state of the workers.
struct Shared {
    barrier: Barrier,
    passes: AtomicU64,
    phase: AtomicU64,
    times: Mutex<Vec<f64>>,
    clocks: Mutex<Vec<f64>>,
    failed: AtomicBool,
}

const PHASE_RUN: u64 = 0;
const PHASE_CLOCK: u64 = 1;
const PHASE_STOP: u64 = 2;

/// Run `kernel` on the given CPUs (one thread each), with `bytes` of buffer
/// per thread for bandwidth kernels.
pub fn measure(
    kernel: &'static Kernel,
    cpus: &[usize],
    bytes: u64,
    s: &Settings,
) -> Result<Measurement, String> {
    let n = cpus.len().max(1);
    let compute = kernel.decl.kind == Kind::Compute;
    let lay = (!compute).then(|| layout(kernel, bytes));
    let iters = lay.map_or(COMPUTE_ITERS, |l| l.iters);
    let sh = Shared {
        barrier: Barrier::new(n),
        passes: AtomicU64::new(1),
        phase: AtomicU64::new(PHASE_RUN),
        times: Mutex::new(vec![0.0; n]),
        clocks: Mutex::new(vec![0.0; n]),
        failed: AtomicBool::new(false),
    };
    let outcome = std::thread::scope(|scope| {
        let handles: Vec<_> = cpus
            .iter()
            .enumerate()
            .map(|(tid, &cpu)| {
                let sh = &sh;
                scope.spawn(move || worker(tid, cpu, kernel, lay, iters, s, sh))
            })
            .collect();
        let mut outcome = None;
        for h in handles {
            match h.join() {
                Ok(Some(o)) => outcome = Some(o),
                Ok(None) => {}
                Err(_) => sh.failed.store(true, Ordering::Relaxed),
            }
        }
        outcome
    });
    let (seconds, passes_used, clock_before, clock_after) = match outcome {
        Some(o) if !sh.failed.load(Ordering::Relaxed) => o,
        _ => {
            return Err(format!(
                "cannot allocate a {} buffer per thread",
                crate::topology::sizing::human_bytes(lay.map_or(0, |l| l.alloc as u64))
            ));
        }
    };
    let work = if compute {
        kernel.decl.flops_per_iter()
    } else {
        kernel.decl.bytes_per_iter()
    } as f64
        * iters as f64
        * passes_used as f64
        * n as f64;
    let rates: Vec<f64> = seconds.iter().map(|t| work / t).collect();
    Ok(Measurement {
        rates: summarize(&rates),
        seconds,
        bytes_per_thread: lay.map_or(0, |l| l.span),
        iters,
        passes: passes_used,
        clock_before_ghz: clock_before,
        clock_after_ghz: clock_after,
    })
}

/// What the leader hands back: sample seconds, passes, clock before and after.
type Outcome = (Vec<f64>, u64, f64, f64);

fn worker(
    tid: usize,
    cpu: usize,
    kernel: &'static Kernel,
    lay: Option<Layout3>,
    iters: u64,
    s: &Settings,
    sh: &Shared,
) -> Option<Outcome> {
    let _ = core_affinity::set_for_current(core_affinity::CoreId { id: cpu });
    let buf = match lay {
        Some(l) => match Buffer::new(l.alloc) {
            Some(b) => Some(b),
            None => {
                sh.failed.store(true, Ordering::Relaxed);
                None
            }
        },
        None => None,
    };
    let (a, b, c) = match (&buf, lay) {
        (Some(buf), Some(l)) => unsafe {
            (
                buf.ptr.add(l.offsets[0]) as *const u8,
                buf.ptr.add(l.offsets[1]) as *const u8,
                buf.ptr.add(l.offsets[2]),
            )
        },
        _ => (std::ptr::null(), std::ptr::null(), std::ptr::null_mut()),
    };
    // Everyone must know whether allocation failed before running.
    sh.barrier.wait();
    let failed = sh.failed.load(Ordering::Relaxed);
    let leader = tid == 0;
    let mut lead = Leader::new(s);
    loop {
        if !failed {
            match sh.phase.load(Ordering::Acquire) {
                PHASE_STOP => {}
                PHASE_CLOCK => {
                    let g = clock::measure_warm(s.clock_runs, s.clock_run, Duration::ZERO)
                        .ghz
                        .median;
                    sh.clocks.lock().unwrap()[tid] = g;
                }
                _ => {
                    let p = sh.passes.load(Ordering::Acquire);
                    let t0 = Instant::now();
                    // SAFETY: the streams lie inside this thread's buffer, sized by
                    // `layout` for `iters` iterations; compute kernels touch no memory.
                    unsafe { (kernel.entry)(a, b, c, iters, p) };
                    sh.times.lock().unwrap()[tid] = t0.elapsed().as_secs_f64();
                }
            }
        }
        sh.barrier.wait();
        if leader {
            let stop = failed || lead.step(sh);
            if stop {
                sh.phase.store(PHASE_STOP, Ordering::Release);
            }
        }
        sh.barrier.wait();
        if sh.phase.load(Ordering::Acquire) == PHASE_STOP {
            break;
        }
    }
    drop(buf);
    leader.then(|| {
        (
            std::mem::take(&mut lead.samples),
            lead.passes,
            lead.clock_before,
            lead.clock_after,
        )
    })
}

/// The leader's state machine: calibrate, warm up, clock, sample, clock.
struct Leader {
    s: Settings,
    state: u8,
    passes: u64,
    samples: Vec<f64>,
    clock_before: f64,
    clock_after: f64,
}

impl Leader {
    fn new(s: &Settings) -> Self {
        Leader {
            s: *s,
            state: 0,
            passes: 1,
            samples: Vec::new(),
            clock_before: 0.0,
            clock_after: 0.0,
        }
    }

    /// Look at the step just finished, set up the next; true when done.
    fn step(&mut self, sh: &Shared) -> bool {
        let slowest = sh.times.lock().unwrap().iter().copied().fold(0.0, f64::max);
        let clock = || super::stats::median(&sh.clocks.lock().unwrap());
        let min = self.s.min_sample.as_secs_f64();
        match self.state {
            // Calibrating: grow passes until a run reaches the minimum time.
            0 => {
                if slowest >= min {
                    self.state = 1; // this run was also the warm-up
                    sh.phase.store(PHASE_CLOCK, Ordering::Release);
                } else {
                    let grow = (min * 1.25 / slowest.max(1e-9)).ceil() as u64;
                    self.passes = (self.passes * grow.clamp(2, 1000)).max(1);
                    sh.passes.store(self.passes, Ordering::Release);
                }
                false
            }
            // Clock before measured: start sampling.
            1 => {
                self.clock_before = clock();
                self.state = 2;
                sh.phase.store(PHASE_RUN, Ordering::Release);
                false
            }
            // Sampling.
            2 => {
                self.samples.push(slowest);
                if self.samples.len() >= self.s.samples.max(1) {
                    self.state = 3;
                    sh.phase.store(PHASE_CLOCK, Ordering::Release);
                }
                false
            }
            // Clock after measured: done.
            _ => {
                self.clock_after = clock();
                true
            }
        }
    }
}
