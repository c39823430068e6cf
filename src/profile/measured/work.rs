//! What a counter found in one piece of a run ([`Work`]), and how it
//! becomes W and Q ([`Basis::derive`]): the one place counts turn into the
//! numbers a point carries, whichever counter found them.

use crate::kernels::Precision;
use crate::profile::measured::events::Family;
use crate::results::apps::{InstructionMix, ReadWrite, Traffic};
use carmbench_counts::Counts;
use std::collections::BTreeMap;

/// What was counted of one piece of a run (the program, a process, a
/// region, a block of code), before it becomes W and Q.
// Most values are emulation's counts (one per block of code): boxing them
// would add an allocation each for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// Given by hand: W and Q themselves.
    Given {
        /// W.
        flops: f64,
        /// Q.
        bytes: f64,
    },
    /// Counted instruction by instruction under emulation.
    Counted(Counts),
    /// Hardware events by name (the PMU), counted or sampled.
    Events(BTreeMap<String, u64>),
}

impl Default for Work {
    fn default() -> Self {
        Work::Counted(Counts::default())
    }
}

impl Work {
    /// Nothing counted yet.
    pub fn is_empty(&self) -> bool {
        match self {
            Work::Given { flops, bytes } => *flops == 0.0 && *bytes == 0.0,
            Work::Counted(c) => *c == Counts::default(),
            Work::Events(e) => e.values().all(|v| *v == 0),
        }
    }

    /// The emulated counts, when counted so.
    pub fn counts(&self) -> Option<&Counts> {
        match self {
            Work::Counted(c) => Some(c),
            _ => None,
        }
    }
}

impl std::ops::AddAssign<&Work> for Work {
    fn add_assign(&mut self, o: &Work) {
        match (&mut *self, o) {
            (Work::Counted(a), Work::Counted(b)) => *a += b,
            (Work::Events(a), Work::Events(b)) => {
                for (k, v) in b {
                    *a.entry(k.clone()).or_default() += v;
                }
            }
            (Work::Given { flops, bytes }, Work::Given { flops: f, bytes: b }) => {
                *flops += f;
                *bytes += b;
            }
            // One run has one counter: only an empty sum meets another kind.
            (s, o) if s.is_empty() => *s = o.clone(),
            _ => debug_assert!(o.is_empty(), "work of two counters added"),
        }
    }
}

/// A part taken out of the work that holds it (never below zero): a
/// rank's own work, its MPI runtime's taken out.
impl std::ops::SubAssign<&Work> for Work {
    fn sub_assign(&mut self, o: &Work) {
        match (&mut *self, o) {
            (Work::Counted(a), Work::Counted(b)) => *a -= b,
            (Work::Events(a), Work::Events(b)) => {
                for (k, v) in b {
                    if let Some(x) = a.get_mut(k) {
                        *x = x.saturating_sub(*v);
                    }
                }
            }
            (Work::Given { flops, bytes }, Work::Given { flops: f, bytes: b }) => {
                *flops = (*flops - f).max(0.0);
                *bytes = (*bytes - b).max(0.0);
            }
            _ => debug_assert!(o.is_empty(), "work of two counters taken apart"),
        }
    }
}

/// W, Q and what else a point says about its work.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Derived {
    /// W, in the unit of the point's precision.
    pub flops: f64,
    /// Q: bytes requested by the core.
    pub bytes: f64,
    /// Q taken apart: loaded and stored, when the counts tell them apart.
    pub sides: Option<ReadWrite>,
    /// Flops done by FMA instructions, when counted apart.
    pub fma_flops: Option<f64>,
    /// The instruction mix, when counted instruction by instruction.
    pub mix: Option<InstructionMix>,
    /// The simulated caches' traffic by level.
    pub traffic: Option<Traffic>,
    /// The approximation made, in words (the PMU's estimate of Q).
    pub note: Option<String>,
}

/// How work becomes W and Q.
#[derive(Debug, Clone, Copy, Default)]
pub struct Basis<'a> {
    /// The arithmetic W counts (None: double and single precision flops).
    pub precision: Option<Precision>,
    /// The PMU's events and the bytes of one access (None: the FP widths).
    pub pmu: Option<(&'a Family, Option<f64>)>,
    /// The simulated caches, when they were simulated.
    pub caches: Option<&'a crate::profile::measured::traffic::Caches>,
}

impl Basis<'_> {
    /// W and Q of `w`.
    pub fn derive(&self, w: &Work) -> Derived {
        match w {
            Work::Given { flops, bytes } => Derived {
                flops: *flops,
                bytes: *bytes,
                ..Derived::default()
            },
            Work::Counted(c) => Derived {
                flops: work(c, self.precision) as f64,
                bytes: c.bytes() as f64,
                sides: Some(ReadWrite {
                    read: c.bytes_loaded as f64,
                    write: c.bytes_stored as f64,
                }),
                fma_flops: self.precision.is_none().then_some(c.fma_flops() as f64),
                mix: Some(mix(c)),
                traffic: self
                    .caches
                    .and_then(|m| crate::profile::measured::traffic::of(c, m)),
                note: None,
            },
            Work::Events(e) => {
                let Some((family, access_bytes)) = self.pmu else {
                    return Derived::default();
                };
                let d = crate::profile::measured::events::derive(family, e, access_bytes);
                Derived {
                    flops: d.flops,
                    bytes: d.bytes,
                    sides: Some(ReadWrite {
                        read: d.loads as f64 * d.access_bytes,
                        write: d.stores as f64 * d.access_bytes,
                    }),
                    note: Some(d.note),
                    ..Derived::default()
                }
            }
        }
    }
}

/// How many integer ops to one flop make a count's work integer work: every
/// loop does some integer work beside its flops (its index, its pointers),
/// which does not make FP code integer code.
pub const INTEGER_OVER_FLOPS: u64 = 4;

/// The arithmetic most of a count's work is: double and single precision's
/// flops (None: the FP roofs), unless a narrow type's vector ops outnumber
/// them (that type, or BF16 or FP16 flops), or its integer ALU work
/// outnumbers them [`INTEGER_OVER_FLOPS`] to one (`Int`).
pub fn dominant(c: &Counts) -> Option<Precision> {
    let flops = c.flops();
    let narrow = [
        (Precision::Int8, c.int8_ops),
        (Precision::Int16, c.int16_ops),
        (Precision::Int32, c.int32_ops),
    ]
    .into_iter()
    .rev()
    .max_by_key(|x| x.1)
    .map(|x| x.0);
    // Vector lanes of a narrow type, or the general registers' work.
    let alu = c.int64_ops + c.scalar_int_ops();
    let integer = match c.narrow_ops() >= alu {
        true => (narrow, c.narrow_ops(), flops),
        false => (
            Some(Precision::Int),
            c.integer_ops(),
            INTEGER_OVER_FLOPS * flops,
        ),
    };
    [
        integer,
        (Some(Precision::Bf16), c.bf16_flops, flops),
        (Some(Precision::Fp16), c.fp16_flops, flops),
    ]
    .into_iter()
    .filter(|x| x.1 > x.2)
    .max_by_key(|x| x.1)
    .and_then(|x| x.0)
}

/// The arithmetic a count's work is, double and single precision told
/// apart: what `--precision` is compared with.
pub fn kind(c: &Counts) -> Precision {
    match dominant(c) {
        Some(p) => p,
        None if c.sp_fma_flops + c.sp_other_flops > c.dp_flops() => Precision::Sp,
        None => Precision::Dp,
    }
}

/// A count's own work of `p`: its flops of that precision for dp and sp
/// (apart), else [`work`].
pub fn own_work(c: &Counts, p: Precision) -> u64 {
    match p {
        Precision::Dp => c.dp_flops(),
        Precision::Sp => c.sp_fma_flops + c.sp_other_flops,
        p => work(c, Some(p)),
    }
}

/// W of a count in the unit of the roofs of `precision`: flops of double
/// and single; for a narrow integer type its vector lanes' ops of every
/// narrow width (a dot product's widening steps are integer work of several
/// widths); for integer ALU work every integer op; BF16 or FP16 flops.
pub fn work(c: &Counts, precision: Option<Precision>) -> u64 {
    match precision {
        Some(Precision::Int) => c.integer_ops(),
        Some(p) if p.is_integer() => c.narrow_ops(),
        Some(Precision::Bf16) => c.bf16_flops,
        Some(Precision::Fp16) => c.fp16_flops,
        _ => c.flops(),
    }
}

/// The instruction mix behind a count.
pub fn mix(c: &Counts) -> InstructionMix {
    let f = |x: u64| x as f64;
    InstructionMix {
        dp_flops: f(c.dp_fma_flops + c.dp_other_flops),
        sp_flops: f(c.sp_fma_flops + c.sp_other_flops),
        fma_flops: f(c.fma_flops()),
        other_flops: f(c.dp_other_flops + c.sp_other_flops),
        fp_scalar: f(c.fp_scalar),
        fp_128: f(c.fp_128),
        fp_256: f(c.fp_256),
        fp_512: f(c.fp_512),
        x87: f(c.x87),
        bytes_loaded: f(c.bytes_loaded),
        bytes_stored: f(c.bytes_stored),
        loads: f(c.loads),
        stores: f(c.stores),
        instructions: f(c.instructions),
        int8_ops: f(c.int8_ops),
        int16_ops: f(c.int16_ops),
        int32_ops: f(c.int32_ops),
        int64_ops: f(c.int64_ops),
        scalar_int_ops: [
            f(c.scalar_int8_ops),
            f(c.scalar_int16_ops),
            f(c.scalar_int32_ops),
            f(c.scalar_int64_ops),
        ],
        int_compares: f(c.int_compares),
        bf16_flops: f(c.bf16_flops),
        fp16_flops: f(c.fp16_flops),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_give_w_q_and_the_mix() {
        let c = Counts {
            dp_fma_flops: 200,
            dp_other_flops: 10,
            sp_other_flops: 4,
            x87: 7,
            bytes_loaded: 2400,
            bytes_stored: 800,
            ..Counts::default()
        };
        // x87's 7 flops in W, and apart in the mix (no vector or FMA
        // advice reads them).
        assert_eq!((c.flops(), c.fma_flops(), c.bytes()), (221, 200, 3200));
        let m = mix(&c);
        assert_eq!((m.dp_flops, m.sp_flops, m.other_flops), (210.0, 4.0, 14.0));
        assert_eq!(m.x87, 7.0);
        let d = Basis::default().derive(&Work::Counted(c));
        assert_eq!(
            (d.flops, d.bytes, d.fma_flops),
            (221.0, 3200.0, Some(200.0))
        );
        let s = d.sides.unwrap();
        assert_eq!((s.read, s.write), (2400.0, 800.0));
    }

    #[test]
    fn the_pmus_loads_and_stores_are_the_bytes_read_and_written() {
        let zen3 = crate::profile::measured::events::families()
            .into_iter()
            .find(|f| f.name == "zen3")
            .unwrap();
        // Every event the family counts, loads three times the stores.
        let events: BTreeMap<String, u64> = (zen3.events.iter())
            .map(|e| (e.name.clone(), 1000))
            .chain([("cycles".to_string(), 1000)])
            .collect();
        let basis = Basis {
            pmu: Some((&zen3, Some(8.0))),
            ..Basis::default()
        };
        let d = basis.derive(&Work::Events(events));
        let s = d.sides.unwrap();
        assert!(d.bytes > 0.0 && s.read > 0.0, "{d:?}");
        assert_eq!(s.read + s.write, d.bytes);
        assert_eq!(
            basis
                .derive(&Work::Given {
                    flops: 1.0,
                    bytes: 2.0
                })
                .sides,
            None
        );
    }

    #[test]
    fn integer_work_places_a_count_when_it_outnumbers_the_flops() {
        let c = |flops, scalar, narrow| Counts {
            dp_other_flops: flops,
            scalar_int64_ops: scalar,
            int8_ops: narrow,
            ..Counts::default()
        };
        // A loop's index beside its flops: FP code still.
        assert_eq!(dominant(&c(100, 300, 0)), None);
        assert_eq!(dominant(&c(100, 401, 0)), Some(Precision::Int));
        assert_eq!(dominant(&c(0, 5, 0)), Some(Precision::Int));
        // A narrow type's vector lanes: theirs, one to one.
        assert_eq!(dominant(&c(100, 10, 101)), Some(Precision::Int8));
        assert_eq!(dominant(&c(100, 10, 100)), None);
        let k = c(0, 7, 3);
        assert_eq!(work(&k, Some(Precision::Int)), 10);
        assert_eq!(work(&k, Some(Precision::Int8)), 3);
    }

    #[test]
    fn work_of_one_kind_adds_up_and_an_empty_sum_takes_any() {
        let mut w = Work::default();
        let e = |n| Work::Events([("loads".to_string(), n)].into());
        w += &e(3);
        w += &e(4);
        assert_eq!(w, e(7));
        let mut g = Work::Given {
            flops: 1.0,
            bytes: 2.0,
        };
        g += &Work::Given {
            flops: 1.0,
            bytes: 2.0,
        };
        let d = Basis::default().derive(&g);
        assert_eq!((d.flops, d.bytes, d.mix), (2.0, 4.0, None));
    }
}
