//! One loop for every command that measures many things: work items run in
//! groups that share a thread count and a memory level, one bench per
//! group with buffers made once for all of it; a progress bar on standard
//! error while they run.

use super::bench::{Bench, Rig};
use super::interrupt;
use crate::error::{Error, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// Work that runs on a bench: its thread count and level (what groups
/// items on one bench), and the bytes of buffer per thread it needs.
pub trait WorkItem {
    /// What groups items on one bench: the thread count first.
    type Key: PartialEq;
    /// Its key.
    fn key(&self) -> (usize, Self::Key);
    /// Bytes of buffer it needs per thread.
    fn alloc(&self) -> usize;
}

/// Run `items` in groups of consecutive items with the same key: one bench
/// per group, on which `run` measures the group. Its buffers are as large
/// as the largest need of this group and of every later one of its thread
/// count (and `extra`, what probes between the items need): a rig that keeps
/// its buffers between benches then makes and touches them once per thread
/// count, not once per level. Stops before a group once Ctrl-C was pressed
/// or the rig's clock passed `until`, keeping what was done.
pub fn in_benches<T: WorkItem, R>(
    rig: &mut impl Rig,
    items: &[T],
    extra: usize,
    until: Option<Duration>,
    mut run: impl FnMut(&dyn Bench, &[T]) -> Result<Vec<R>>,
) -> Result<Vec<R>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < items.len() && !interrupt::requested() && until.is_none_or(|u| rig.now() < u) {
        let k = items[start].key();
        let end = items[start..]
            .iter()
            .position(|x| x.key() != k)
            .map_or(items.len(), |p| start + p);
        let group = &items[start..end];
        let alloc = items[start..]
            .iter()
            .filter(|x| x.key().0 == k.0)
            .map(WorkItem::alloc)
            .max()
            .unwrap_or(0)
            .max(extra);
        let done = rig
            .with_bench(k.0, alloc, |bench| run(bench, group))
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

    /// (threads, level, bytes)
    impl WorkItem for (usize, char, usize) {
        type Key = char;
        fn key(&self) -> (usize, char) {
            (self.0, self.1)
        }
        fn alloc(&self) -> usize {
            self.2
        }
    }

    #[test]
    fn one_bench_per_run_of_items_sharing_threads_and_level() {
        let mut rig = FakeRig::scripted(vec![Outcome::steady(1.0)]);
        let items = [
            (1, 'a', 10),
            (1, 'a', 30),
            (1, 'b', 5),
            (2, 'b', 7),
            (1, 'a', 1),
        ];
        let groups = in_benches(&mut rig, &items, 6, None, |b, g| {
            Ok(vec![(b.threads(), g.len())])
        })
        .unwrap();
        assert_eq!(groups, [(1, 2), (1, 1), (2, 1), (1, 1)]);
        // The largest need of the group and the later ones of its thread
        // count, and never less than the extra.
        assert_eq!(rig.benches(), [(1, 30), (1, 6), (2, 7), (1, 6)]);
        let items = [(1, 'a', 10), (1, 'b', 30), (2, 'a', 7), (1, 'c', 1)];
        let mut rig = FakeRig::scripted(vec![Outcome::steady(1.0)]);
        in_benches(&mut rig, &items, 0, None, |_, g| Ok(vec![g.len()])).unwrap();
        assert_eq!(rig.benches(), [(1, 30), (1, 30), (2, 7), (1, 1)]);
    }

    #[test]
    fn no_group_starts_after_the_deadline() {
        let mut rig = FakeRig::scripted(vec![Outcome::steady(1.0)]);
        let items = [(1, 'a', 0), (1, 'b', 0), (1, 'c', 0)];
        let done = in_benches(
            &mut rig,
            &items,
            0,
            Some(Duration::from_millis(50)),
            |b, g| {
                b.pause(Duration::from_millis(30));
                Ok(g.iter().map(|i| i.1).collect())
            },
        )
        .unwrap();
        // 0 ms: group a runs; 30 ms: group b runs; 60 ms: past the deadline.
        assert_eq!(done, ['a', 'b']);
    }
}
