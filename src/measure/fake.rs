//! A scripted [`Rig`] for tests: measurements return what the test says,
//! on a virtual clock that moves only by what the script says each takes,
//! so the policies built on [`Bench`] (attempts, waiting for cores, rounds
//! with deadlines, second looks) are tested without running a kernel.

use super::bench::{Bench, Measurement, Rig, Settings};
use super::stats::Summary;
use crate::kernels::{Kernel, Shape};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// The core clock of every fake measurement, GHz.
pub const CLOCK: f64 = 3.0;

/// What one fake measurement gives.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Bytes or flops per cycle, all threads together (its fastest sample).
    pub per_cycle: f64,
    /// CV of its samples.
    pub cv: f64,
    /// Share of its time the host took.
    pub steal: f64,
    /// Drift of its clock between the first and second half of its probes.
    pub clock_drift: f64,
    /// Virtual time it takes.
    pub takes: Duration,
    /// Cycles per inner iteration of its fastest sample, when a test needs
    /// them (see `Measurement::cycles_per_iter`).
    pub cycles: Option<f64>,
}

impl Outcome {
    /// A steady measurement at `per_cycle`, taking 20 ms.
    pub fn steady(per_cycle: f64) -> Outcome {
        Outcome {
            per_cycle,
            cv: 0.005,
            steal: 0.0,
            clock_drift: 0.0,
            takes: Duration::from_millis(20),
            cycles: None,
        }
    }

    /// The measurement it gives over `bytes` per thread.
    pub fn measurement(&self, bytes: u64) -> Measurement {
        let rate = self.per_cycle * 1e9 * CLOCK;
        let slow = CLOCK / (1.0 + self.clock_drift);
        Measurement {
            seconds: vec![self.cycles.map_or(1e-3, |c| c / (CLOCK * 1e9)); 4],
            rates: Summary {
                median: rate,
                q1: rate,
                q3: rate,
                min: rate,
                max: rate,
                cv: self.cv,
                n: 4,
            },
            bytes_per_thread: bytes,
            iters: 1,
            passes: 1,
            parts: 1,
            clock_probes: vec![slow, slow, CLOCK, CLOCK],
            steal: self.steal,
        }
    }
}

/// One call the fake received.
#[derive(Debug, Clone)]
pub struct Call {
    /// Kernel name.
    pub kernel: &'static str,
    /// Bytes per thread asked for.
    pub bytes: u64,
    /// Shape asked for.
    pub shape: Shape,
    /// Threads of the bench.
    pub threads: usize,
    /// Virtual time of the call.
    pub at: Duration,
}

type MeasureFn = Box<dyn FnMut(&Call) -> Outcome>;
type QuickFn = Box<dyn FnMut(&Call) -> f64>;

struct State {
    now: Duration,
    measure: MeasureFn,
    quick: QuickFn,
    measured: Vec<Call>,
    quick_calls: Vec<Call>,
    benches: Vec<(usize, usize)>,
}

/// The scripted rig.
pub struct FakeRig {
    st: Rc<RefCell<State>>,
}

impl FakeRig {
    /// A rig whose measurements give what `measure` says of each call, and
    /// whose quick looks always find the cores alone.
    pub fn new(measure: impl FnMut(&Call) -> Outcome + 'static) -> FakeRig {
        FakeRig {
            st: Rc::new(RefCell::new(State {
                now: Duration::ZERO,
                measure: Box::new(measure),
                quick: Box::new(|_| f64::MAX),
                measured: Vec::new(),
                quick_calls: Vec::new(),
                benches: Vec::new(),
            })),
        }
    }

    /// A rig whose measurements give `outcomes` in turn, the last one again
    /// once they run out.
    pub fn scripted(outcomes: Vec<Outcome>) -> FakeRig {
        let mut i = 0;
        FakeRig::new(move |_| {
            let o = outcomes[i.min(outcomes.len() - 1)].clone();
            i += 1;
            o
        })
    }

    /// The same rig, its quick looks giving what `quick` says (bytes or
    /// flops per cycle, all threads together); each takes its `min`.
    pub fn with_quick(self, quick: impl FnMut(&Call) -> f64 + 'static) -> FakeRig {
        self.st.borrow_mut().quick = Box::new(quick);
        self
    }

    /// The measurements asked for, in order.
    pub fn measured(&self) -> Vec<Call> {
        self.st.borrow().measured.clone()
    }

    /// The quick looks asked for, in order.
    pub fn quick_calls(&self) -> Vec<Call> {
        self.st.borrow().quick_calls.clone()
    }

    /// The benches opened: (threads, bytes of buffer per thread).
    pub fn benches(&self) -> Vec<(usize, usize)> {
        self.st.borrow().benches.clone()
    }
}

struct FakeBench {
    st: Rc<RefCell<State>>,
    threads: usize,
}

impl FakeBench {
    fn call(&self, kernel: &'static Kernel, bytes: u64, shape: Shape) -> Call {
        Call {
            kernel: kernel.decl.name,
            bytes,
            shape,
            threads: self.threads,
            at: self.st.borrow().now,
        }
    }
}

impl Bench for FakeBench {
    fn threads(&self) -> usize {
        self.threads
    }

    fn measure(
        &self,
        kernel: &'static Kernel,
        bytes: u64,
        shape: Shape,
        _: &Settings,
    ) -> Result<Measurement, String> {
        let call = self.call(kernel, bytes, shape);
        let mut st = self.st.borrow_mut();
        let o = (st.measure)(&call);
        st.now += o.takes;
        st.measured.push(call);
        Ok(o.measurement(bytes))
    }

    fn quick_rate(
        &self,
        kernel: &'static Kernel,
        bytes: u64,
        min: Duration,
        passes: &mut u64,
    ) -> Result<(f64, f64), String> {
        let call = self.call(kernel, bytes, Shape::ONE);
        let mut st = self.st.borrow_mut();
        let per_cycle = (st.quick)(&call);
        st.now += min;
        st.quick_calls.push(call);
        *passes = 1;
        Ok((per_cycle * 1e9 * CLOCK, CLOCK))
    }

    fn now(&self) -> Duration {
        self.st.borrow().now
    }

    fn pause(&self, d: Duration) {
        self.st.borrow_mut().now += d;
    }
}

impl Rig for FakeRig {
    fn with_bench<R>(
        &mut self,
        threads: usize,
        alloc: usize,
        f: impl FnOnce(&dyn Bench) -> R,
    ) -> Result<R, String> {
        self.st.borrow_mut().benches.push((threads, alloc));
        let bench = FakeBench {
            st: Rc::clone(&self.st),
            threads,
        };
        Ok(f(&bench))
    }

    fn now(&self) -> Duration {
        self.st.borrow().now
    }
}
