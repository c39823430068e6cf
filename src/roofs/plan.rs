//! What `carmbench run` measures: one task per roof of the plan on this
//! machine, each with its kernel, level, threads and buffer sizes.

use crate::config::plan::{Plan, RoofFrom};
use crate::error::Result;
use crate::kernels::{self, Kernel, Mix, Precision, Role};
use crate::machine::isa::Isa;
use crate::machine::sizing::{self, range_of};
use crate::machine::{Level, Machine, Scope};

/// One roof to measure.
#[derive(Debug, Clone)]
pub struct RoofTask {
    /// Its kernel.
    pub kernel: &'static Kernel,
    /// Memory level (bandwidth roofs).
    pub level: Option<Level>,
    /// Threads, one per core.
    pub threads: usize,
    /// Buffer sizes per thread across the level's range (one `0` for
    /// compute roofs): the roof's.
    pub sizes: Vec<u64>,
    /// Sizes between the range of the level below and this one's, measured
    /// for the memory curve only: with them the curve shows where each
    /// level ends.
    pub between: Vec<u64>,
    /// The level each of `between` fits in.
    pub between_levels: Vec<Level>,
    /// What the roof is taken from.
    pub roof_from: RoofFrom,
    /// The level cannot be measured apart from the one below with these
    /// threads.
    pub not_isolated: bool,
    /// Its sizes were cut to what memory allows (smaller than the sizing
    /// rule asks).
    pub capped: bool,
    /// Each thread has the resource to itself (FP pipes, or a cache instance
    /// per thread with these threads), so the roof should grow with the
    /// threads.
    pub one_per_thread: bool,
    /// Whom the resource serves on this machine.
    pub scope: Scope,
    /// DRAM roofs: the paced form of the kernel ([`Role::Paced`]), measured
    /// beside it and recorded when faster ([`super::assemble::with_paced`]).
    pub paced: Option<&'static Kernel>,
}

impl RoofTask {
    /// Its paced form and the size that runs it (the middle of the roof's
    /// sizes), when it has one.
    pub fn paced_at(&self) -> Option<(&'static Kernel, u64)> {
        self.paced
            .zip(self.sizes.get(self.sizes.len() / 2).copied())
    }
}

impl crate::measure::campaign::WorkItem for RoofTask {
    type Key = Option<Level>;
    fn key(&self) -> (usize, Option<Level>) {
        (self.threads, self.level)
    }
    fn alloc(&self) -> usize {
        self.sizes
            .iter()
            .chain(&self.between)
            .map(|&b| {
                crate::measure::streams::alloc_for(self.kernel, b, crate::kernels::Shape::ONE)
            })
            .max()
            .unwrap_or(0)
    }
}

/// The working set `kernel` spans for `bytes` per thread: whole inner
/// iterations (a 2LD1ST iteration of AVX-512 moves 1.5 KiB).
pub fn span(kernel: &Kernel, bytes: u64) -> u64 {
    crate::measure::streams::layout(kernel, bytes, crate::kernels::Shape::ONE).span
}

/// The spans of `sizes`, ascending, each once and none of `measured`: two
/// sizes in the same iteration count are one size.
pub fn spans(kernel: &Kernel, sizes: &[u64], measured: &[u64]) -> Vec<u64> {
    let mut v: Vec<u64> = sizes
        .iter()
        .map(|&b| span(kernel, b))
        .filter(|s| !measured.contains(s))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The tasks of `plan` on `machine`, in the order they run: by thread
/// count, ISA, then each level's mixes and the FP ops. Kernels this CPU
/// cannot run are left out and returned beside.
pub fn tasks(plan: &Plan, m: &Machine) -> Result<(Vec<RoofTask>, Vec<&'static Kernel>)> {
    tasks_where(plan, m, Kernel::runnable)
}

/// [`tasks`], with a chosen answer to "can this CPU run that kernel?".
pub fn tasks_where(
    plan: &Plan,
    m: &Machine,
    runnable: impl Fn(&Kernel) -> bool,
) -> Result<(Vec<RoofTask>, Vec<&'static Kernel>)> {
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    let mut keep = |task: RoofTask| {
        if runnable(task.kernel) {
            out.push(task);
        } else if !skipped
            .iter()
            .any(|k: &&Kernel| k.decl.name == task.kernel.decl.name)
        {
            skipped.push(task.kernel);
        }
    };
    for &t in &plan.threads {
        let ranges = sizing::ranges(m, t);
        for &isa in &plan.isa {
            for &level in &plan.levels {
                level_tasks(plan, m, &ranges, (t, isa, level))
                    .into_iter()
                    .for_each(&mut keep);
            }
            compute_tasks(plan, t, isa).into_iter().for_each(&mut keep);
        }
        // Integer code runs mostly on the general registers: their roofs are
        // measured whatever vector ISA the plan names.
        if plan.precision.contains(&Precision::Int) && !plan.isa.contains(&Isa::Scalar) {
            let only_int = Plan {
                precision: vec![Precision::Int],
                ..plan.clone()
            };
            compute_tasks(&only_int, t, Isa::Scalar)
                .into_iter()
                .for_each(&mut keep);
        }
    }
    Ok((out, skipped))
}

/// The bandwidth tasks of one level, ISA and thread count: a task per
/// mix of the plan, over the level's sizes and those between it and the
/// level above.
fn level_tasks(
    plan: &Plan,
    m: &Machine,
    ranges: &[sizing::BufferRange],
    (t, isa, level): (usize, Isa, Level),
) -> Vec<RoofTask> {
    let r = range_of(ranges, level).expect("levels resolved against this machine");
    let sizes = sizing::sizes_for(r, plan.sizes_per_level);
    let below = ranges.iter().take_while(|b| b.level < level).last();
    let between = below.map_or(Vec::new(), |b| sizing::between(b, r));
    let between_levels: Vec<Level> = between
        .iter()
        .map(|&x| sizing::holding(ranges, x))
        .collect();
    let mut out = Vec::new();
    for &mix in &plan.mixes {
        // Non-temporal stores bypass the caches: they measure DRAM only.
        if mix == Mix::NtStore && !level.is_memory() {
            continue;
        }
        let kernel =
            kernels::find(isa, Role::Bandwidth(mix)).expect("every mix has a kernel per ISA");
        let sizes = spans(kernel, &sizes, &[]);
        let (between, between_levels): (Vec<u64>, Vec<Level>) = between
            .iter()
            .zip(&between_levels)
            .map(|(&b, &l)| (span(kernel, b), l))
            .filter(|(b, _)| !sizes.contains(b))
            .unzip();
        out.push(RoofTask {
            kernel,
            level: Some(level),
            threads: t,
            sizes,
            between,
            between_levels,
            roof_from: plan.roof_from,
            not_isolated: !r.isolated,
            capped: r.capped,
            one_per_thread: r.threads_per_instance == 1 && !level.is_memory(),
            scope: m.scope(level),
            paced: level
                .is_memory()
                .then(|| kernels::find(isa, Role::Paced(mix)))
                .flatten(),
        });
    }
    out
}

/// The compute tasks of one ISA and thread count. Double and single: the
/// plan's ops; the narrow types: their own, where this ISA has a kernel of
/// them (no scalar INT8). No ops in the plan: no compute roof at all.
fn compute_tasks(plan: &Plan, t: usize, isa: Isa) -> Vec<RoofTask> {
    let mut out = Vec::new();
    for &p in &plan.precision {
        let ops = match plan.ops.is_empty() {
            true => &[][..],
            false => p.own_ops().unwrap_or(&plan.ops),
        };
        for &op in ops {
            let Some(kernel) = kernels::find(isa, Role::Compute(op, p)) else {
                continue;
            };
            out.push(RoofTask {
                kernel,
                level: None,
                threads: t,
                sizes: vec![0],
                between: Vec::new(),
                between_levels: Vec::new(),
                roof_from: plan.roof_from,
                not_isolated: false,
                capped: false,
                one_per_thread: true,
                scope: Scope::Core,
                paced: None,
            });
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::plan::{self, PlanFile};
    use crate::machine::Source;

    /// The tasks of the default plan with `yaml` laid over it, on `m`.
    pub fn tasks_with(m: &Machine, yaml: &str) -> Vec<RoofTask> {
        // The default's precisions but the integer ALU work's (whose
        // scalar roofs any ISA adds), unless `yaml` names them.
        let fp = PlanFile::parse("precision: [dp, int8, bf16]", "t").unwrap();
        let pf =
            (PlanFile::default_plan().overlay(fp)).overlay(PlanFile::parse(yaml, "t").unwrap());
        tasks(&plan::resolve(&pf, m, false).unwrap(), m).unwrap().0
    }

    fn synthetic(d: &str) -> Machine {
        Machine::load(&Source::Synthetic(d.into())).unwrap()
    }

    #[test]
    fn sizes_are_whole_iterations_each_once() {
        // An AVX-512 2LD1ST iteration moves 1.5 KiB: sizes 12 and 13 KiB
        // would both run 8 iterations.
        let m = synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=32KiB) pu:1",
        );
        let pf = PlanFile::default_plan()
            .overlay(PlanFile::parse("isa: [avx512]\nops: []\nsizes_per_level: 12", "t").unwrap());
        let plan = plan::resolve_with(&pf, &m, false, |_| true).unwrap();
        let (t, _) = tasks_where(&plan, &m, |_| true).unwrap();
        assert!(!t.is_empty());
        for task in &t {
            let per_iter = task.kernel.decl.bytes_per_iter();
            assert!(
                task.sizes.windows(2).all(|w| w[0] < w[1]),
                "{:?}",
                task.sizes
            );
            assert!(
                task.sizes
                    .iter()
                    .chain(&task.between)
                    .all(|s| s % per_iter == 0)
            );
            assert!(task.between.iter().all(|b| !task.sizes.contains(b)));
            assert_eq!(task.between.len(), task.between_levels.len());
        }
        let l1 = t
            .iter()
            .find(|x| x.level == Some(Level::L1) && x.kernel.decl.mix == Some(Mix::TwoLdOneSt))
            .unwrap();
        assert!(l1.sizes.len() < 12, "{:?}", l1.sizes);
    }

    #[test]
    fn dram_buffers_above_memory_are_measured_at_what_it_allows_and_flagged() {
        let m = synthetic(
            "pack:1 numa:1(memory=256MiB) l3:1(size=32MiB) core:4 l2:1(size=1MiB) l1d:1(size=32KiB) pu:1",
        );
        // Four threads: 128 MiB each asked, 32 MiB each allowed.
        let t = tasks_with(&m, "isa: [scalar]\nlevels: [DRAM]\nthreads: [4]");
        let dram: Vec<_> = t.iter().filter(|t| t.level == Some(Level::Dram)).collect();
        assert!(!dram.is_empty());
        for t in dram {
            assert!(t.capped, "{t:?}");
            assert!(t.sizes.iter().all(|&b| b <= 32 << 20), "{:?}", t.sizes);
        }
        // One thread fits: 128 MiB of the 128 MiB allowed.
        let t = tasks_with(&m, "isa: [scalar]\nlevels: [DRAM]\nthreads: [1]");
        let one: Vec<_> = t.iter().filter(|t| t.level == Some(Level::Dram)).collect();
        assert!(
            one.iter()
                .all(|t| !t.capped && t.sizes[0] > (127 << 20) && t.sizes[0] <= 128 << 20),
            "{one:?}"
        );
    }

    #[test]
    fn nt_store_runs_at_dram_only_and_sizes_follow_the_ranges() {
        let m = synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=48KiB) pu:1",
        );
        let t = tasks_with(
            &m,
            "isa: [scalar]\nmixes: [load, nt_store]\nops: []\nthreads: [1]",
        );
        let nt: Vec<_> = t
            .iter()
            .filter(|t| t.kernel.decl.mix == Some(Mix::NtStore))
            .collect();
        assert_eq!(nt.len(), 1);
        assert_eq!(nt[0].level, Some(Level::Dram));
        assert_eq!(t.len(), 4 + 1);
        let l2 = t.iter().find(|t| t.level == Some(Level::L2)).unwrap();
        // The range of L2 (96 to 768 KiB), and one size between L1's range
        // (to 36 KiB) and L2's, where L1 no longer holds it.
        assert_eq!(l2.sizes.len(), 6);
        assert_eq!((l2.sizes[0], l2.sizes[5]), (96 << 10, 768 << 10));
        assert_eq!(l2.between.len(), 1);
        assert!(l2.between[0] > 36 << 10 && l2.between[0] < 96 << 10);
        assert_eq!(l2.between_levels, [Level::L2]);
        let l1 = t.iter().find(|t| t.level == Some(Level::L1)).unwrap();
        assert!(l1.between.is_empty());
    }

    #[test]
    fn per_core_resources_are_the_ones_expected_to_scale() {
        // 2-socket SMT server: L1/L2 per core, L3 per socket.
        let m = synthetic(
            "pack:2 numa:1(memory=64GiB) l3:1(size=32MiB) core:4 l2:1(size=1MiB) l1d:1(size=48KiB) pu:2",
        );
        let t = tasks_with(
            &m,
            "isa: [scalar]\nmixes: [load]\nops: [fma]\nthreads: [all]",
        );
        let at = |l: Option<Level>| t.iter().find(|t| t.level == l).unwrap();
        assert!(at(None).one_per_thread && at(Some(Level::L1)).one_per_thread);
        assert!(at(Some(Level::L2)).one_per_thread);
        assert!(!at(Some(Level::L3)).one_per_thread && !at(Some(Level::Dram)).one_per_thread);
        // One core's own resources whatever the threads: with 1 thread, when
        // L3 has its instance to itself, L3 is still shared.
        let t1 = tasks_with(&m, "isa: [scalar]\nmixes: [load]\nops: [fma]\nthreads: [1]");
        let at1 = |l: Option<Level>| t1.iter().find(|t| t.level == l).unwrap();
        for l in [None, Some(Level::L1), Some(Level::L2)] {
            assert_eq!(at1(l).scope, Scope::Core, "{l:?}");
        }
        assert_eq!(at1(Some(Level::L3)).scope, Scope::Shared);
        assert_eq!(at1(Some(Level::Dram)).scope, Scope::Memory);
        assert!(at1(Some(Level::L3)).one_per_thread);
        // An L2 shared by a cluster of four cores is not the core's own,
        // whatever its name.
        let cluster = synthetic(
            "pack:1 numa:1(memory=16GiB) l3:1(size=8MiB) l2:2(size=2MiB) core:4 l1d:1(size=32KiB) pu:1",
        );
        let tc = tasks_with(
            &cluster,
            "isa: [scalar]\nmixes: [load]\nops: []\nthreads: [1]",
        );
        let l2 = tc.iter().find(|t| t.level == Some(Level::L2)).unwrap();
        assert_eq!(l2.scope, Scope::Shared);
    }

    #[test]
    fn integer_alu_roofs_are_measured_on_the_general_registers_whatever_the_isa() {
        let m = synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=48KiB) pu:1",
        );
        let pf = PlanFile::default_plan().overlay(
            PlanFile::parse(
                "isa: [avx2]
threads: [1]",
                "t",
            )
            .unwrap(),
        );
        let plan = plan::resolve(&pf, &m, false).unwrap();
        assert!(
            plan.precision.contains(&Precision::Int),
            "in the default plan"
        );
        let (todo, _) = tasks_where(&plan, &m, |_| true).unwrap();
        let int: Vec<(Isa, Option<crate::kernels::Op>)> = (todo.iter())
            .filter(|t| t.kernel.decl.precision == Some(Precision::Int))
            .map(|t| (t.kernel.decl.isa, t.kernel.decl.op))
            .collect();
        use crate::kernels::Op;
        for want in [
            (Isa::Avx2, Some(Op::Add)),
            (Isa::Scalar, Some(Op::Add)),
            (Isa::Scalar, Some(Op::Alu)),
        ] {
            assert!(int.contains(&want), "{want:?} in {int:?}");
        }
        assert_eq!(int.len(), 3);
    }

    #[test]
    fn kernels_the_cpu_lacks_are_skipped_and_listed() {
        let m = synthetic(
            "pack:1 numa:1(memory=64GiB) l3:1(size=32MiB) core:2 l2:1(size=1MiB) l1d:1(size=48KiB) pu:1",
        );
        let pf = PlanFile::default_plan().overlay(
            PlanFile::parse(
                "isa: [scalar]\nmixes: [load]\nops: [add, fma]\nthreads: [1]",
                "t",
            )
            .unwrap(),
        );
        let plan = plan::resolve(&pf, &m, false).unwrap();
        // A CPU without FMA: the FMA kernel is not planned, and named.
        let (t, skipped) = tasks_where(&plan, &m, |k| k.decl.fmas == 0).unwrap();
        assert!(t.iter().all(|t| t.kernel.decl.fmas == 0));
        assert!(t.iter().any(|t| t.kernel.decl.name == "scalar_dp_add"));
        let names: Vec<_> = skipped.iter().map(|k| k.decl.name).collect();
        assert_eq!(names, ["scalar_dp_fma"]);
        let (all, none) = tasks_where(&plan, &m, |_| true).unwrap();
        assert_eq!(all.len(), t.len() + 1);
        assert!(none.is_empty());
    }
}
