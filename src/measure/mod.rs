//! Measurement: pinned threads running a kernel at a barrier ([`pool`]),
//! behind a small trait ([`bench::Bench`]) that the policies are written
//! against; the core-clock probe ([`clock`]), statistics ([`stats`]), the
//! time a hypervisor took ([`steal`]), whether threads share a core
//! ([`guard`]), and one loop running work pool by pool ([`campaign`]).

pub mod bench;
pub mod campaign;
pub mod clock;
#[cfg(test)]
pub mod fake;
pub mod guard;
pub mod interrupt;
pub mod pool;
pub mod stats;
pub mod steal;
pub mod streams;

/// Something measured whose rate per cycle tells how undisturbed it was:
/// other work on the machine only ever slows a kernel down, so of two
/// measurements of the same thing the faster per cycle is the truer.
pub trait PerCycle {
    /// Bytes or flops per core-clock cycle.
    fn per_cycle(&self) -> f64;
}

/// Keep in `kept` the faster per cycle of `kept` and `new`; whether `new`
/// was kept.
pub fn keep_faster<T: PerCycle>(kept: &mut T, new: T) -> bool {
    let faster = new.per_cycle() > kept.per_cycle();
    if faster {
        *kept = new;
    }
    faster
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rate(f64);
    impl PerCycle for Rate {
        fn per_cycle(&self) -> f64 {
            self.0
        }
    }

    #[test]
    fn the_faster_per_cycle_is_kept() {
        let mut r = Rate(2.0);
        assert!(!keep_faster(&mut r, Rate(1.5)));
        assert_eq!(r.0, 2.0);
        assert!(keep_faster(&mut r, Rate(3.0)));
        assert_eq!(r.0, 3.0);
        // A NaN never replaces a number.
        assert!(!keep_faster(&mut r, Rate(f64::NAN)));
        assert_eq!(r.0, 3.0);
    }
}
