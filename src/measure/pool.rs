//! The real [`Bench`]: a kernel run on pinned threads and timed, over the
//! buffers [`super::streams`] lays out. (This file is long because its tests
//! drive the real pool of pinned threads; the code above them is under 600
//! lines.)
//!
//! A [`Pool`] holds one pinned thread per core, each with its own buffer
//! allocated and touched after pinning (first touch puts the pages on the
//! core's NUMA node). A coordinating thread steps the workers together
//! through barriers: calibration (grow the passes until a run lasts the
//! minimum time; that run is the warm-up), then samples, each after a
//! short clock probe, and a last probe. A sample's time runs from the first
//! thread's start to the last thread's end (see [`span`]); a probe's clock
//! is the median over the threads, each measuring its own core. One pool serves every
//! measurement of a level and thread count, so buffers are made once.

use super::bench::{Bench, Measurement, Rig, Settings};
use super::clock;
use super::stats::summarize;
use super::streams::{MAX_PARTS, StreamLayout, layout, parts_for};
use crate::kernels::{Kernel, Kind, Shape};
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

/// Inner-loop iterations per pass of a compute kernel (its passes are
/// calibrated like a bandwidth kernel's).
pub const COMPUTE_ITERS: u64 = 4096;

/// Size of a transparent huge page on x86-64.
const HUGE_PAGE: usize = 2 << 20;

/// Length of the clock probe run before each sample and after the last
/// (see [`clock::estimate`]).
pub const PROBE: Duration = Duration::from_micros(500);

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

// SAFETY: a buffer is owned by one thread at a time: a worker while its
// pool runs, the rig's slot between pools.
unsafe impl Send for Buffer {}

impl Buffer {
    /// Its usable bytes.
    fn len(&self) -> usize {
        self.layout.size()
    }
}

/// Each CPU's buffer kept between benches, so that a run faults its pages
/// once: a bench that needs no more than a kept buffer reuses it (touched
/// already, on its own NUMA node), a larger need replaces it.
#[derive(Default)]
struct Kept(Vec<Mutex<Option<Buffer>>>);

impl Kept {
    fn new(n: usize) -> Kept {
        Kept((0..n).map(|_| Mutex::new(None)).collect())
    }

    /// The buffer of slot `i` for a need of `alloc` bytes (None when
    /// nothing is needed, or it cannot be allocated).
    fn take(&self, i: usize, alloc: usize) -> Option<Buffer> {
        if alloc == 0 {
            return None;
        }
        let kept = self
            .0
            .get(i)?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match kept {
            Some(b) if b.len() >= alloc => Some(b),
            old => {
                drop(old); // its pages go back before the larger one is made
                Buffer::new(alloc)
            }
        }
    }

    /// Free the kept buffers larger than `alloc`: a new thread count's
    /// buffers together stay within what its sizes were allowed.
    fn shrink_to(&self, alloc: usize) {
        for slot in &self.0 {
            let mut b = slot.lock().unwrap_or_else(|e| e.into_inner());
            if b.as_ref()
                .is_some_and(|b| b.len() > alloc.max(4096).div_ceil(HUGE_PAGE) * HUGE_PAGE)
            {
                *b = None;
            }
        }
    }

    /// Give slot `i` its buffer back.
    fn keep(&self, i: usize, b: Option<Buffer>) {
        if let (Some(slot), Some(b)) = (self.0.get(i), b) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(b);
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// One step all workers take together.
#[derive(Clone, Copy)]
enum Step {
    /// Run a kernel once (a calibration run, warm-up or sample).
    Run {
        kernel: &'static Kernel,
        offsets: [usize; 3],
        iters: u64,
        passes: u64,
        shape: Shape,
    },
    /// Probe the core clock (see [`PROBE`]).
    Clock,
    /// Leave.
    Stop,
}

/// State shared by the coordinator and the workers.
struct Shared {
    start: Barrier,
    done: Barrier,
    step: Mutex<Step>,
    /// Start and end of each worker's last run, on the shared monotonic clock.
    times: Mutex<Vec<Option<(Instant, Instant)>>>,
    clocks: Mutex<Vec<f64>>,
    alloc_failed: AtomicBool,
}

thread_local! {
    /// Inner iterations each worker ran in the runs this thread asked a
    /// pool for: what its measurements cost.
    static ITERATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Pinned worker threads, one per CPU, each owning a buffer of `alloc`
/// bytes allocated and touched after pinning; measurements reuse them.
pub struct Pool<'a> {
    sh: &'a Shared,
    n: usize,
    alloc: usize,
    cpus: &'a [usize],
    /// When the rig that opened it started ([`Bench::now`]).
    start: Instant,
}

/// The machine's cores as a [`Rig`]: benches of the first `threads` cores,
/// one pinned thread on each (its first hardware thread).
pub struct Cores {
    cpus: Vec<usize>,
    start: Instant,
    /// Each core's buffer, kept from bench to bench.
    kept: Kept,
    /// The thread count of the last bench.
    last_threads: usize,
}

impl Cores {
    /// A rig on `cpus` (the CPU each core's thread is pinned to, in core
    /// order), started now.
    pub fn new(cpus: &[usize]) -> Cores {
        Cores {
            cpus: cpus.to_vec(),
            start: Instant::now(),
            kept: Kept::new(cpus.len()),
            last_threads: 0,
        }
    }
}

impl Rig for Cores {
    fn with_bench<R>(
        &mut self,
        threads: usize,
        alloc: usize,
        f: impl FnOnce(&dyn Bench) -> R,
    ) -> Result<R, String> {
        let cpus = &self.cpus[..threads.clamp(1, self.cpus.len())];
        if threads != self.last_threads {
            self.kept.shrink_to(alloc);
            self.last_threads = threads;
        }
        pool_keeping(cpus, alloc, self.start, &self.kept, |p| f(p))
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }
}

/// Start a pool on `cpus` with `alloc` bytes of buffer per thread, run `f`
/// with it, and stop it. Fails when a buffer cannot be allocated. `start`
/// is the origin of its [`Bench::now`].
pub fn with_pool<R>(
    cpus: &[usize],
    alloc: usize,
    start: Instant,
    f: impl FnOnce(&Pool) -> R,
) -> Result<R, String> {
    pool_keeping(cpus, alloc, start, &Kept::new(cpus.len()), f)
}

/// [`with_pool`], each worker taking its buffer from `kept` and giving it
/// back when the pool stops.
fn pool_keeping<R>(
    cpus: &[usize],
    alloc: usize,
    start: Instant,
    kept: &Kept,
    f: impl FnOnce(&Pool) -> R,
) -> Result<R, String> {
    let n = cpus.len().max(1);
    let sh = Shared {
        start: Barrier::new(n + 1),
        done: Barrier::new(n + 1),
        step: Mutex::new(Step::Stop),
        times: Mutex::new(vec![None; n]),
        clocks: Mutex::new(vec![0.0; n]),
        alloc_failed: AtomicBool::new(false),
    };
    std::thread::scope(|scope| {
        for (tid, &cpu) in cpus.iter().enumerate() {
            let sh = &sh;
            scope.spawn(move || worker(tid, cpu, alloc, sh, kept));
        }
        sh.done.wait(); // every buffer allocated and touched
        // A panic in `f` must still stop the workers: else the scope waits
        // for them forever and the panic turns into a hang.
        let out = if sh.alloc_failed.load(Ordering::SeqCst) {
            Ok(Err(format!(
                "cannot allocate a {} buffer per thread",
                crate::units::human_bytes(alloc as u64)
            )))
        } else {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                Ok(f(&Pool {
                    sh: &sh,
                    n,
                    alloc,
                    cpus,
                    start,
                }))
            }))
        };
        *sh.step.lock().unwrap_or_else(|e| e.into_inner()) = Step::Stop;
        sh.start.wait();
        out.unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

fn worker(tid: usize, cpu: usize, alloc: usize, sh: &Shared, kept: &Kept) {
    let _ = core_affinity::set_for_current(core_affinity::CoreId { id: cpu });
    // Made (and touched) on this pinned thread, or kept from a bench before.
    let buf = kept.take(tid, alloc);
    if alloc > 0 && buf.is_none() {
        sh.alloc_failed.store(true, Ordering::SeqCst);
    }
    sh.done.wait();
    let mut probe_iters = None;
    loop {
        sh.start.wait();
        let step = *sh.step.lock().unwrap();
        match step {
            Step::Stop => break,
            Step::Clock => {
                // Calibrated once per worker: a probe is then just the chain.
                let iters = *probe_iters.get_or_insert_with(|| clock::calibrate(PROBE));
                sh.clocks.lock().unwrap()[tid] = clock::probe(iters);
            }
            Step::Run {
                kernel,
                offsets,
                iters,
                passes,
                shape,
            } => {
                let base = buf.as_ref().map_or(std::ptr::null_mut(), |b| b.ptr);
                // SAFETY: offsets come from `layout` and lie inside the buffer
                // (the pool checked the layout fits); compute kernels take no
                // memory and get null pointers they never use.
                let (a, b, c) = if base.is_null() {
                    (std::ptr::null(), std::ptr::null(), std::ptr::null_mut())
                } else {
                    unsafe {
                        (
                            base.add(offsets[0]) as *const u8,
                            base.add(offsets[1]) as *const u8,
                            base.add(offsets[2]),
                        )
                    }
                };
                let t0 = Instant::now();
                // SAFETY: see above; the kernel follows the ABI of asm/<arch>/common.S.
                unsafe { (kernel.entry)(a, b, c, iters, passes, shape.arg()) };
                sh.times.lock().unwrap()[tid] = Some((t0, Instant::now()));
            }
        }
        sh.done.wait();
    }
    kept.keep(tid, buf);
}

impl Pool<'_> {
    fn step(&self, step: Step) {
        if let Step::Run { iters, passes, .. } = step {
            ITERATIONS.with(|n| n.set(n.get().saturating_add(iters.saturating_mul(passes))));
        }
        *self.sh.step.lock().unwrap() = step;
        self.sh.start.wait();
        self.sh.done.wait();
    }

    /// A run's time: from the first worker's start to the last worker's
    /// end. Timing each worker on its own and taking the slowest is not
    /// enough: if the OS delays one worker, the workers run one after the
    /// other, each alone with the whole shared bandwidth, and the slowest
    /// single time would credit their sum of bytes to one worker's time.
    fn span_of_last_run(&self) -> f64 {
        span(&self.sh.times.lock().unwrap())
    }

    fn clock(&self) -> f64 {
        self.step(Step::Clock);
        super::stats::median(&self.sh.clocks.lock().unwrap())
    }

    /// The layout of `kernel` over `bytes` per thread with `shape` (none for
    /// compute kernels), its iterations per pass and stream offsets; an
    /// error when it does not fit the pool's buffers.
    fn fit(
        &self,
        kernel: &Kernel,
        bytes: u64,
        shape: Shape,
    ) -> Result<(Option<StreamLayout>, u64, [usize; 3]), String> {
        let lay = (kernel.decl.kind != Kind::Compute).then(|| layout(kernel, bytes, shape));
        if let Some(l) = lay
            && l.alloc > self.alloc
        {
            return Err(format!(
                "a {} B layout does not fit the pool's {} B buffers",
                l.alloc, self.alloc
            ));
        }
        Ok((
            lay,
            lay.map_or(COMPUTE_ITERS, |l| l.iters),
            lay.map_or([0; 3], |l| l.offsets),
        ))
    }

    /// The passes a run takes to last `min`, and the length of its last
    /// run (a pass, when one lasts `min`). From memory, a sixteenth of a
    /// pass that lasts a sample tells the pass is long without the whole
    /// pass (nothing to warm there).
    fn calibrate(
        &self,
        run: &dyn Fn([usize; 3], u64, u64) -> Step,
        lay: Option<StreamLayout>,
        (offsets, iters): ([usize; 3], u64),
        min: f64,
        from_memory: bool,
    ) -> (f64, u64) {
        if let Some(l) = lay.filter(|_| from_memory && iters >= MAX_PARTS) {
            self.step(run(l.part_offsets(0, MAX_PARTS), iters / MAX_PARTS, 1));
            let t = self.span_of_last_run();
            // A sample's length is timed well enough: the pass is split
            // (more than two samples long), and its first part timed again.
            if t >= min {
                return (t * MAX_PARTS as f64, 1);
            }
        }
        let mut passes = 1u64;
        loop {
            self.step(run(offsets, iters, passes));
            let t = self.span_of_last_run();
            if t >= min {
                return (t, passes);
            }
            let grow = (min * 1.25 / t.max(1e-9)).ceil() as u64;
            passes = passes.saturating_mul(grow.clamp(2, 1000));
        }
    }

    /// Bytes (bandwidth kernels) or flops (the others) all threads move
    /// in one run of `iters` iterations, `passes` times.
    fn work(&self, kernel: &Kernel, shape: Shape, iters: u64, passes: u64) -> f64 {
        let per_iter = match kernel.decl.kind {
            Kind::Bandwidth => kernel.decl.bytes_per_iter(),
            Kind::Compute | Kind::Validation => kernel.decl.shaped_flops(shape),
        };
        per_iter as f64 * iters as f64 * passes as f64 * self.n as f64
    }
}

/// See [`Bench`] for what each method does; here the pool's threads run
/// the kernel at a barrier.
impl Bench for Pool<'_> {
    fn threads(&self) -> usize {
        self.n
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn pause(&self, d: Duration) {
        std::thread::sleep(d);
    }

    fn quick_rate(
        &self,
        kernel: &'static Kernel,
        bytes: u64,
        min: Duration,
        passes: &mut u64,
    ) -> Result<(f64, f64), String> {
        let (_, iters, offsets) = self.fit(kernel, bytes, Shape::ONE)?;
        let ghz = self.clock();
        let min = min.as_secs_f64();
        *passes = (*passes).max(1);
        loop {
            self.step(Step::Run {
                kernel,
                offsets,
                iters,
                passes: *passes,
                shape: Shape::ONE,
            });
            let t = self.span_of_last_run().max(1e-9);
            let rate = self.work(kernel, Shape::ONE, iters, *passes) / t;
            // The next run lasts about 1.25 min.
            *passes = ((*passes as f64 * (min * 1.25 / t).clamp(1e-3, 1e3)) as u64).max(1);
            if t >= min {
                return Ok((rate, ghz));
            }
        }
    }

    fn measure(
        &self,
        kernel: &'static Kernel,
        bytes: u64,
        shape: Shape,
        s: &Settings,
    ) -> Result<Measurement, String> {
        let (lay, iters, offsets) = self.fit(kernel, bytes, shape)?;
        let run = |offsets, iters, passes| Step::Run {
            kernel,
            offsets,
            iters,
            passes,
            shape,
        };
        let min = s.min_sample.as_secs_f64();
        let (steal0, t0) = (super::steal::seconds(self.cpus), Instant::now());
        let (pass, passes) = self.calibrate(&run, lay, (offsets, iters), min, s.from_memory);
        // A single pass far longer than a sample: samples walk the buffer
        // part by part (the whole pass above, or from memory its first
        // part, was the warm-up). The first
        // pass over a buffer can be slow (page tables, a disturbed moment),
        // so one part is timed, and the parts merged while it is too short;
        // the samples start after that part, keeping every part's reuse
        // distance a whole buffer.
        let mut parts = match lay {
            Some(_) if passes == 1 => parts_for(pass, min, iters),
            _ => 1,
        };
        let mut first = 0;
        if let Some(l) = lay {
            while parts > 1 {
                self.step(run(l.part_offsets(0, parts), iters / parts, 1));
                let t = self.span_of_last_run();
                first = 1;
                if t >= min {
                    break;
                }
                parts = parts_for(t * parts as f64, min, iters).min(parts - 1);
            }
        }
        let part_iters = iters / parts;
        let mut seconds = Vec::with_capacity(s.samples);
        let mut clock_probes = Vec::with_capacity(s.samples + 1);
        for i in 0..s.samples.max(1) {
            clock_probes.push(self.clock());
            let offsets = lay.map_or(offsets, |l| l.part_offsets(first + i as u64, parts));
            self.step(run(offsets, part_iters, passes));
            seconds.push(self.span_of_last_run());
        }
        clock_probes.push(self.clock());
        let steal = super::steal::fraction(
            steal0.as_deref(),
            super::steal::seconds(self.cpus).as_deref(),
            t0.elapsed().as_secs_f64(),
            super::steal::tick(),
        );
        let work = self.work(kernel, shape, part_iters, passes);
        let rates: Vec<f64> = seconds.iter().map(|t| work / t).collect();
        Ok(Measurement {
            rates: summarize(&rates),
            seconds,
            bytes_per_thread: lay.map_or(0, |l| l.span),
            iters: part_iters,
            passes,
            parts,
            clock_probes,
            steal,
        })
    }
}

/// The interval covering every run: last end minus first start, seconds.
pub fn span(times: &[Option<(Instant, Instant)>]) -> f64 {
    let starts = times.iter().flatten().map(|t| t.0);
    let ends = times.iter().flatten().map(|t| t.1);
    match (starts.min(), ends.max()) {
        (Some(a), Some(b)) => b.duration_since(a).as_secs_f64(),
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::streams::alloc_for;

    #[test]
    fn a_sample_spans_every_thread() {
        let t0 = Instant::now();
        let ms = |x: u64| t0 + Duration::from_millis(x);
        // Overlapping runs: the span is the union.
        assert_eq!(span(&[Some((ms(0), ms(10))), Some((ms(1), ms(11)))]), 0.011);
        // One worker delayed: the runs did not overlap, so the sample lasted
        // 20 ms, not the 10 ms either worker took.
        assert_eq!(
            span(&[Some((ms(0), ms(10))), Some((ms(10), ms(20)))]),
            0.020
        );
        assert_eq!(span(&[None, None]), 0.0);
    }

    #[test]
    fn a_panic_in_a_pool_stops_its_workers_and_goes_on() {
        let caught = std::panic::catch_unwind(|| {
            with_pool(&[0], 4096, Instant::now(), |pool| {
                pool.clock();
                panic!("a failing check inside a pool");
            })
        });
        assert!(caught.is_err(), "the panic reaches the caller, no hang");
    }

    #[test]
    fn a_rig_keeps_each_cores_buffer_from_bench_to_bench() {
        let mut cores = Cores::new(&[0]);
        let kept = |c: &Cores| {
            c.kept.0[0]
                .lock()
                .unwrap()
                .as_ref()
                .map(|b| (b.ptr as usize, b.len()))
        };
        cores.with_bench(1, 3 << 20, |_| ()).unwrap();
        let first = kept(&cores).unwrap();
        assert_eq!(first.1, 4 << 20, "whole huge pages");
        // A smaller need reuses it, a bench without memory leaves it be.
        cores.with_bench(1, 1 << 20, |_| ()).unwrap();
        cores.with_bench(1, 0, |_| ()).unwrap();
        assert_eq!(kept(&cores), Some(first));
        // A larger one replaces it.
        cores.with_bench(1, 5 << 20, |_| ()).unwrap();
        assert_eq!(kept(&cores).unwrap().1, 6 << 20);
        // Another thread count's smaller need does not keep it: its buffers
        // together stay within what its sizes were allowed.
        cores.with_bench(2, 1 << 20, |_| ()).unwrap();
        assert_eq!(kept(&cores).unwrap().1, 2 << 20);
    }

    #[test]
    fn a_quick_look_calibrates_once_then_runs_once() {
        use crate::kernels::{Mix, Op, Precision, Role, find};
        use crate::machine::isa::Isa;
        let add = find(Isa::Scalar, Role::Compute(Op::Add, Precision::Dp)).unwrap();
        let load = find(Isa::Scalar, Role::Bandwidth(Mix::Load)).unwrap();
        let bytes = 16 << 10;
        let min = Duration::from_millis(1);
        let mut cores = Cores::new(&[0]);
        cores
            .with_bench(1, alloc_for(load, bytes, Shape::ONE), |pool| {
                for k in [add, load] {
                    let mut passes = 0;
                    let (first, ghz) = pool.quick_rate(k, bytes, min, &mut passes).unwrap();
                    assert!(first.is_finite() && first > 0.0, "{}: {first}", k.decl.name);
                    assert!(ghz > 0.1 && ghz < 10.0, "{ghz} GHz");
                    assert!(passes >= 1, "calibrated: {passes}");
                    // Calibrated: a clock probe and one run of at least `min`.
                    let t = Instant::now();
                    let (again, _) = pool.quick_rate(k, bytes, min, &mut passes).unwrap();
                    assert!(again.is_finite() && again > 0.0);
                    assert!(t.elapsed() >= min, "{:?}", t.elapsed());
                }
                // A buffer larger than the pool's is refused, not overrun.
                let mut passes = 0;
                assert!(pool.quick_rate(load, 1 << 30, min, &mut passes).is_err());
            })
            .unwrap();
    }

    #[test]
    fn from_memory_a_long_pass_is_split_without_a_whole_pass_first() {
        use crate::kernels::{Mix, Role, find};
        use crate::machine::isa::Isa;
        let load = find(Isa::Scalar, Role::Bandwidth(Mix::Load)).unwrap();
        // 64 MiB: a sixteenth of a pass lasts two samples of 10 us or more
        // at the 96 GB/s a scalar load kernel reaches at most (3 loads of
        // 8 bytes a cycle at 4 GHz).
        let bytes = 64 << 20;
        let s = Settings {
            from_memory: true,
            ..Settings::new(Duration::from_micros(10), 3)
        };
        let mut cores = Cores::new(&[0]);
        cores
            .with_bench(1, alloc_for(load, bytes, Shape::ONE), |pool| {
                let before = ITERATIONS.with(|n| n.get());
                let m = pool.measure(load, bytes, Shape::ONE, &s).unwrap();
                let ran = ITERATIONS.with(|n| n.get()) - before;
                assert_eq!(m.passes, 1);
                assert!(m.parts > 1, "{} parts", m.parts);
                // A sixteenth to probe, a part timed, three samples: less
                // than one whole pass.
                assert!(
                    ran < m.iters * m.parts,
                    "{ran} iterations, a pass {}",
                    m.iters * m.parts
                );
                assert!(m.rates.max.is_finite() && m.rates.max > 0.0);
                assert!(m.seconds.iter().all(|t| *t > 0.0));
            })
            .unwrap();
    }

    fn with_probes(clock_probes: Vec<f64>) -> Measurement {
        Measurement {
            seconds: vec![],
            rates: summarize(&[1.0]),
            bytes_per_thread: 0,
            iters: 1,
            passes: 1,
            parts: 1,
            clock_probes,
            steal: 0.0,
        }
    }

    #[test]
    fn disturbed_probes_do_not_lower_the_clock() {
        // Six of eight probes lost time to other work: the clock is the
        // undisturbed 3.2 GHz, not their median, upper quartile or mean.
        let m = with_probes(vec![3.2, 2.5, 3.1, 2.4, 2.9, 3.0, 2.0, 3.2]);
        assert!((m.clock_ghz() - 3.2).abs() < 1e-12, "{}", m.clock_ghz());
        // Disturbed probes in one half only: no drift.
        let m = with_probes(vec![2.4, 3.2, 2.6, 3.2, 3.2, 3.2, 3.2, 3.2]);
        assert!(m.clock_drift() < 1e-12, "{}", m.clock_drift());
        // The clock really moved from 3.0 to 3.3 GHz halfway: a 10% drift.
        let m = with_probes(vec![3.0, 3.0, 3.0, 3.0, 3.3, 3.3, 3.3, 3.3]);
        assert!((m.clock_drift() - 0.1).abs() < 1e-9, "{}", m.clock_drift());
        // A single probe (one sample): no drift, the clock is that probe.
        let m = with_probes(vec![3.1]);
        assert_eq!((m.clock_ghz(), m.clock_drift()), (3.1, 0.0));
    }
}
