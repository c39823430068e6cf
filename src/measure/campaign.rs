//! One loop for every command that measures many things: work items run in
//! groups that share a thread count and a memory level, one bench per
//! group with buffers made once for all of it; a progress bar on standard
//! error while they run.

use super::bench::{Bench, Rig};
use super::interrupt;
use crate::error::{Error, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// Run `items` in groups of consecutive items with the same `key` (their
/// thread count first): one bench per group, with as many bytes of buffer
/// per thread as `alloc` says the group needs, on which `run` measures the
/// group. Stops before a group once Ctrl-C was pressed or the rig's clock
/// passed `until`, keeping what was done.
pub fn in_benches<T, K: PartialEq, R>(
    rig: &mut impl Rig,
    items: &[T],
    key: impl Fn(&T) -> (usize, K),
    alloc: impl Fn(&[T]) -> usize,
    until: Option<Duration>,
    mut run: impl FnMut(&dyn Bench, &[T]) -> Result<Vec<R>>,
) -> Result<Vec<R>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < items.len() && !interrupt::requested() && until.is_none_or(|u| rig.now() < u) {
        let k = key(&items[start]);
        let end = items[start..]
            .iter()
            .position(|x| key(x) != k)
            .map_or(items.len(), |p| start + p);
        let group = &items[start..end];
        let done = rig
            .with_bench(k.0, alloc(group), |bench| run(bench, group))
            .map_err(Error::Io)??;
        out.extend(done);
        start = end;
    }
    Ok(out)
}

/// A progress bar of `total` steps on standard error, its message after
/// `what` (indicatif hides it when standard error is not a terminal).
pub fn progress(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template =
        format!("{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {what}{{msg}}");
    bar.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

#[cfg(test)]
mod tests {
    use super::super::fake::{FakeRig, Outcome};
    use super::*;

    #[test]
    fn one_bench_per_run_of_items_sharing_threads_and_level() {
        let mut rig = FakeRig::scripted(vec![Outcome::steady(1.0)]);
        // (threads, level, bytes)
        let items = [
            (1, 'a', 10),
            (1, 'a', 30),
            (1, 'b', 5),
            (2, 'b', 7),
            (1, 'a', 1),
        ];
        let groups = in_benches(
            &mut rig,
            &items,
            |i| (i.0, i.1),
            |g| g.iter().map(|i| i.2).max().unwrap(),
            None,
            |b, g| Ok(vec![(b.threads(), g.len())]),
        )
        .unwrap();
        assert_eq!(groups, [(1, 2), (1, 1), (2, 1), (1, 1)]);
        assert_eq!(rig.benches(), [(1, 30), (1, 5), (2, 7), (1, 1)]);
    }

    #[test]
    fn no_group_starts_after_the_deadline() {
        let mut rig = FakeRig::scripted(vec![Outcome::steady(1.0)]);
        let items = [1usize, 2, 3];
        let done = in_benches(
            &mut rig,
            &items,
            |i| (1, *i),
            |_| 0,
            Some(Duration::from_millis(50)),
            |b, g| {
                b.pause(Duration::from_millis(30));
                Ok(g.to_vec())
            },
        )
        .unwrap();
        // 0 ms: group 1 runs; 30 ms: group 2 runs; 60 ms: past the deadline.
        assert_eq!(done, [1, 2]);
    }
}
