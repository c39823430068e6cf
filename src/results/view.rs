//! What a results document shows when the user does not choose: the
//! widest ISA, double precision, the CARM mix (two loads and a store) and
//! the FP roofs that bound most code. The chart, `compare`, `predict` and
//! `profile` all start from this view.

use super::{Document, Roof};
use crate::kernels::{Kind, Mix, Op, Precision};
use crate::machine::isa::Isa;

/// Whether roof `r` is drawn with the roofs of `isa`: its own, and the
/// integer ALU roofs of the general registers beside any vector ISA's (the
/// roofs integer code is mostly under).
pub fn shown_with(r: &Roof, isa: Isa) -> bool {
    r.isa == isa
        || (r.kind == Kind::Compute && r.precision == Some(Precision::Int) && r.isa == Isa::Scalar)
}

/// The widest ISA among `roofs` with a usable value.
pub fn widest_isa<'a>(roofs: impl IntoIterator<Item = &'a Roof>) -> Option<Isa> {
    roofs
        .into_iter()
        .filter(|r| r.usable())
        .map(|r| r.isa)
        .max()
}

/// The mix shown by default: two loads and a store (the CARM mix), else
/// loads only, else the first there is.
pub fn default_mix(available: &[Mix]) -> Option<Mix> {
    [Mix::TwoLdOneSt, Mix::Load]
        .into_iter()
        .find(|m| available.contains(m))
        .or(available.first().copied())
}

/// The precision shown by default: double, else the first there is.
pub fn default_precision(available: &[Precision]) -> Option<Precision> {
    if available.contains(&Precision::Dp) {
        Some(Precision::Dp)
    } else {
        available.first().copied()
    }
}

/// The FP roofs shown by default, of those there are: FMA with ADD (the
/// core's peak), FMA, ADD; every op there is when none of them is.
pub fn default_ops(available: &[Op]) -> Vec<Op> {
    let d: Vec<Op> = [Op::FmaAdd, Op::Fma, Op::Add]
        .into_iter()
        .filter(|o| available.contains(o))
        .collect();
    if d.is_empty() { available.to_vec() } else { d }
}

/// The roofs of one results document shown by default for one thread
/// count: the widest ISA, its default mix and precision.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// ISA shown.
    pub isa: Isa,
    /// Threads.
    pub threads: usize,
    /// Bandwidth roofs of the default mix, fastest first.
    pub bandwidth: Vec<&'a Roof>,
    /// Compute roofs of the default precision, every op, highest first.
    pub compute: Vec<&'a Roof>,
}

impl<'a> View<'a> {
    /// The default view of `doc` for `threads`; `None` without a usable
    /// roof of that thread count.
    pub fn of(doc: &'a Document, threads: usize) -> Option<View<'a>> {
        Self::of_precision(doc, threads, None)
    }

    /// The same with the compute roofs of `precision` (the default when
    /// `None`): the widest ISA that has them.
    pub fn of_precision(
        doc: &'a Document,
        threads: usize,
        precision: Option<Precision>,
    ) -> Option<View<'a>> {
        let rs: Vec<&Roof> = doc
            .roofs
            .iter()
            .filter(|r| r.threads == threads && r.usable())
            .collect();
        let has = |r: &&Roof| precision.is_none_or(|p| r.precision == Some(p));
        let isa = widest_isa(rs.iter().copied().filter(has))?;
        let rs: Vec<&Roof> = rs.into_iter().filter(|r| shown_with(r, isa)).collect();
        let mix = default_mix(&distinct(&rs, |r| r.mix));
        let precision = precision.or_else(|| default_precision(&distinct(&rs, |r| r.precision)));
        let mut bandwidth: Vec<&Roof> = rs
            .iter()
            .copied()
            .filter(|r| r.kind == Kind::Bandwidth && r.mix == mix && r.isa == isa)
            .collect();
        bandwidth.sort_by(|a, b| b.value().total_cmp(&a.value()));
        let mut compute: Vec<&Roof> = rs
            .iter()
            .copied()
            .filter(|r| r.kind == Kind::Compute && r.precision == precision)
            .collect();
        compute.sort_by(|a, b| b.value().total_cmp(&a.value()));
        Some(View {
            isa,
            threads,
            bandwidth,
            compute,
        })
    }

    /// The compute roof of `op`.
    pub fn op(&self, op: Op) -> Option<&'a Roof> {
        self.compute.iter().copied().find(|r| r.op == Some(op))
    }

    /// The compute roofs of the default ops ([`default_ops`]).
    pub fn default_compute(&self) -> Vec<&'a Roof> {
        let ops = default_ops(&self.compute.iter().filter_map(|r| r.op).collect::<Vec<_>>());
        self.compute
            .iter()
            .copied()
            .filter(|r| r.op.is_some_and(|o| ops.contains(&o)))
            .collect()
    }
}

/// The distinct values `f` takes over `roofs`, sorted.
pub fn distinct<T: Ord>(roofs: &[&Roof], f: impl Fn(&Roof) -> Option<T>) -> Vec<T> {
    let mut v: Vec<T> = roofs.iter().filter_map(|r| f(r)).collect();
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_prefer_the_carm_mix_double_precision_and_the_peak() {
        assert_eq!(
            default_mix(&[Mix::Load, Mix::TwoLdOneSt]),
            Some(Mix::TwoLdOneSt)
        );
        assert_eq!(default_mix(&[Mix::Store, Mix::Load]), Some(Mix::Load));
        assert_eq!(default_mix(&[Mix::Store]), Some(Mix::Store));
        assert_eq!(default_mix(&[]), None);
        assert_eq!(
            default_precision(&[Precision::Sp, Precision::Dp]),
            Some(Precision::Dp)
        );
        assert_eq!(default_precision(&[Precision::Sp]), Some(Precision::Sp));
        assert_eq!(
            default_ops(&[Op::Add, Op::Div, Op::Fma]),
            vec![Op::Fma, Op::Add]
        );
        assert_eq!(default_ops(&[Op::Div]), vec![Op::Div]);
    }
}
