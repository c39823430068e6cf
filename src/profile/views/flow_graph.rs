//! Loops in the code that ran, found from the binary as it ran, unmodified:
//! one function's control flow as the emulated run took it (the blocks QEMU
//! translated, each split where another block starts, and how often each
//! followed each: `--loops` asks the plugin for both), its dominators, its
//! back edges and natural loops, their nesting; a cycle with two ways in (an
//! irreducible region) is reported as such, never dropped.
//!
//! Calls and returns are not control flow within a function: a block that
//! ends in a call goes on, for its function, at the block right after it;
//! the transfers into the function from others are its entries. A loop's
//! iterations are its header's runs, its entries the transfers into the
//! header from outside its body: their ratio is the trip count.

use crate::profile::measured::work::Work;
use std::collections::HashSet;

/// A place in one function's code that ran: a block, or a part of one.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its offset in the function's file.
    pub offset: u64,
    /// Its bytes of code.
    pub size: u64,
    /// How often it ran.
    pub runs: u64,
    /// Its work.
    pub work: Work,
    /// It ends in a call: the function goes on right after it.
    pub calls: bool,
}

/// One function's control flow as the run took it.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// The places, by offset.
    pub nodes: Vec<Node>,
    /// Each node's successors and how often each was taken.
    succ: Vec<Vec<(usize, u64)>>,
    /// Each node's predecessors, likewise.
    pred: Vec<Vec<(usize, u64)>>,
    /// Transfers into each node from other functions (calls, jumps in).
    entered: Vec<u64>,
}

/// A loop: its header, its body, where it nests.
#[derive(Debug, Clone, PartialEq)]
pub struct Loop {
    /// The header's node.
    pub header: usize,
    /// Every node of the body, the header first.
    pub body: Vec<usize>,
    /// The body's node that goes back to the header most often: its last
    /// instruction is the loop's own test or jump.
    pub latch: Option<usize>,
    /// The loop it is nested in (an index among the loops).
    pub parent: Option<usize>,
    /// 1 for an outermost loop.
    pub depth: usize,
    /// The header's runs.
    pub iterations: u64,
    /// Transfers into the header from outside the body.
    pub entries: u64,
    /// A cycle entered at two places or more: no header dominates it.
    pub irreducible: bool,
}

impl Loop {
    /// Runs of the header per entry.
    pub fn trip_count(&self) -> f64 {
        self.iterations as f64 / self.entries.max(1) as f64
    }
}

impl Graph {
    /// The graph of `nodes` (one function's), with `inside` the transfers
    /// between them (from, to offsets, count; neither a call nor a return)
    /// and `entering` those into them from other functions (to, count; not
    /// returns). A node that ends in a call is followed by the node right
    /// after it, as often as it ran.
    pub fn new(mut nodes: Vec<Node>, inside: &[(u64, u64, u64)], entering: &[(u64, u64)]) -> Graph {
        nodes.sort_by_key(|n| n.offset);
        let n = nodes.len();
        let at = |o: u64| nodes.binary_search_by_key(&o, |x| x.offset).ok();
        let mut g = Graph {
            succ: vec![Vec::new(); n],
            pred: vec![Vec::new(); n],
            entered: vec![0; n],
            nodes: Vec::new(),
        };
        let mut edges: Vec<(usize, usize, u64)> = inside
            .iter()
            .filter_map(|&(a, b, c)| Some((at(a)?, at(b)?, c)))
            .filter(|(a, _, _)| !nodes[*a].calls)
            .collect();
        for (k, x) in nodes.iter().enumerate() {
            if let Some(next) = at(x.offset + x.size).filter(|_| x.calls) {
                edges.push((k, next, x.runs));
            }
        }
        for (a, b, c) in edges {
            g.succ[a].push((b, c));
            g.pred[b].push((a, c));
        }
        for &(b, c) in entering {
            if let Some(b) = at(b) {
                g.entered[b] += c;
            }
        }
        g.nodes = nodes;
        g
    }

    /// The nodes the function is entered at: those entered from other
    /// functions, and those nothing leads to.
    fn roots(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&k| self.entered[k] > 0 || self.pred[k].is_empty())
            .collect()
    }

    /// Reverse postorder of the nodes reachable from the roots.
    fn order(&self) -> Vec<usize> {
        let mut seen = vec![false; self.nodes.len()];
        let mut post = Vec::new();
        for r in self.roots() {
            if seen[r] {
                continue;
            }
            seen[r] = true;
            let mut stack = vec![(r, 0usize)];
            while let Some((v, i)) = stack.pop() {
                match self.succ[v].get(i) {
                    Some(&(w, _)) => {
                        stack.push((v, i + 1));
                        if !seen[w] {
                            seen[w] = true;
                            stack.push((w, 0));
                        }
                    }
                    None => post.push(v),
                }
            }
        }
        post.reverse();
        post
    }

    /// Each reachable node's immediate dominator (the roots': a virtual
    /// root, `usize::MAX`; unreachable nodes: `None`), by the iterative
    /// algorithm of Cooper, Harvey and Kennedy.
    fn dominators(&self, order: &[usize]) -> Vec<Option<usize>> {
        const ROOT: usize = usize::MAX;
        let n = self.nodes.len();
        let mut rank = vec![usize::MAX; n];
        order.iter().enumerate().for_each(|(i, &v)| rank[v] = i);
        let mut idom: Vec<Option<usize>> = vec![None; n];
        for r in self.roots() {
            idom[r] = Some(ROOT);
        }
        let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
            while a != b {
                if a == ROOT || b == ROOT {
                    return ROOT;
                }
                while rank[a] > rank[b] {
                    a = match idom[a] {
                        Some(x) if x != ROOT => x,
                        _ => return ROOT,
                    };
                }
                while rank[b] > rank[a] {
                    b = match idom[b] {
                        Some(x) if x != ROOT => x,
                        _ => return ROOT,
                    };
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &v in order {
                if idom[v] == Some(ROOT) {
                    continue;
                }
                let mut new: Option<usize> = None;
                for &(p, _) in &self.pred[v] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(x) => intersect(&idom, x, p),
                    });
                }
                if new.is_some() && idom[v] != new {
                    idom[v] = new;
                    changed = true;
                }
            }
        }
        idom
    }

    /// Whether `a` dominates `b`.
    fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            match idom[b] {
                Some(x) if x != usize::MAX => b = x,
                _ => return false,
            }
        }
    }

    /// The nodes that reach `from` without passing `header`, and `header`.
    fn body(&self, header: usize, from: &[usize]) -> Vec<usize> {
        let mut body = vec![header];
        let mut seen: HashSet<usize> = [header].into();
        let mut todo: Vec<usize> = from.to_vec();
        while let Some(v) = todo.pop() {
            if seen.insert(v) {
                body.push(v);
                todo.extend(self.pred[v].iter().map(|p| p.0));
            }
        }
        body
    }

    /// Every loop of the function, natural and irreducible, nested.
    pub fn loops(&self) -> Vec<Loop> {
        let order = self.order();
        let idom = self.dominators(&order);
        let reachable: HashSet<usize> = order.iter().copied().collect();
        let mut loops: Vec<Loop> = Vec::new();
        // Natural loops: an edge to a node that dominates its source.
        for &h in &order {
            let latches: Vec<usize> = (self.pred[h].iter())
                .map(|p| p.0)
                .filter(|&u| reachable.contains(&u) && Self::dominates(&idom, h, u))
                .collect();
            if !latches.is_empty() {
                loops.push(self.make(h, self.body(h, &latches), false));
            }
        }
        // What is left of a cycle after them: entered at two places.
        for region in self.irreducible(&order, &idom) {
            let header = region[0];
            loops.push(self.make(header, region, true));
        }
        nest(&mut loops);
        loops
    }

    /// A loop of `header` and `body`, its counts from the edges. A natural
    /// loop is entered at its header only; an irreducible region at several
    /// nodes: its entries are the transfers into any of them from outside,
    /// and its iterations the runs of its busiest way in (each pass round
    /// the cycle goes through every way in once).
    fn make(&self, header: usize, body: Vec<usize>, irreducible: bool) -> Loop {
        let inside: HashSet<usize> = body.iter().copied().collect();
        let entering = |v: usize| {
            (self.pred[v].iter())
                .filter(|(p, _)| !inside.contains(p))
                .map(|(_, c)| c)
                .sum::<u64>()
                + self.entered[v]
        };
        let (entries, iterations) = match irreducible {
            false => (entering(header), self.nodes[header].runs),
            true => (
                body.iter().map(|&v| entering(v)).sum(),
                (body.iter().filter(|&&v| entering(v) > 0))
                    .map(|&v| self.nodes[v].runs)
                    .max()
                    .unwrap_or(self.nodes[header].runs),
            ),
        };
        let latch = (self.pred[header].iter())
            .filter(|(p, _)| inside.contains(p))
            .max_by_key(|(p, c)| (*c, *p))
            .map(|(p, _)| *p);
        Loop {
            header,
            latch,
            body,
            parent: None,
            depth: 1,
            iterations,
            entries,
            irreducible,
        }
    }

    /// Cycles whose retreating edge goes to a node that does not dominate
    /// its source: each such strongly connected region once, its first
    /// node the edge's target.
    fn irreducible(&self, order: &[usize], idom: &[Option<usize>]) -> Vec<Vec<usize>> {
        let rank: std::collections::HashMap<usize, usize> =
            order.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let scc = self.components(order);
        let mut out: Vec<Vec<usize>> = Vec::new();
        let mut done = HashSet::new();
        for &u in order {
            for &(h, _) in &self.succ[u] {
                let retreating = rank.get(&h).is_some_and(|r| *r <= rank[&u]);
                if retreating && !Self::dominates(idom, h, u) && done.insert(scc[h]) {
                    let mut region: Vec<usize> = order
                        .iter()
                        .copied()
                        .filter(|&v| scc[v] == scc[h])
                        .collect();
                    region.retain(|&v| v != h);
                    region.insert(0, h);
                    out.push(region);
                }
            }
        }
        out
    }

    /// Each node's strongly connected component (Tarjan's, iterative).
    fn components(&self, order: &[usize]) -> Vec<usize> {
        let n = self.nodes.len();
        let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
        let (mut on, mut stack, mut comp) = (vec![false; n], Vec::new(), vec![usize::MAX; n]);
        let (mut next, mut count) = (0, 0);
        for &s in order {
            if index[s] != usize::MAX {
                continue;
            }
            let mut work = vec![(s, 0usize)];
            index[s] = next;
            low[s] = next;
            next += 1;
            stack.push(s);
            on[s] = true;
            while let Some(&mut (v, ref mut i)) = work.last_mut() {
                if let Some(&(w, _)) = self.succ[v].get(*i) {
                    *i += 1;
                    if index[w] == usize::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on[w] = true;
                        work.push((w, 0));
                    } else if on[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                work.pop();
                if let Some(&(p, _)) = work.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on[w] = false;
                        comp[w] = count;
                        if w == v {
                            break;
                        }
                    }
                    count += 1;
                }
            }
        }
        comp
    }
}

/// Each loop's parent (the smallest loop whose body holds its own) and
/// depth.
fn nest(loops: &mut [Loop]) {
    let sets: Vec<HashSet<usize>> = loops
        .iter()
        .map(|l| l.body.iter().copied().collect())
        .collect();
    for k in 0..loops.len() {
        loops[k].parent = (0..loops.len())
            .filter(|&m| m != k && sets[m].len() > sets[k].len())
            .filter(|&m| sets[k].is_subset(&sets[m]))
            .min_by_key(|&m| sets[m].len());
    }
    for k in 0..loops.len() {
        let (mut d, mut p) = (1, loops[k].parent);
        while let Some(x) = p {
            d += 1;
            p = loops[x].parent;
        }
        loops[k].depth = d;
    }
}

/// Each node's innermost loop (an index among `loops`), if any.
pub fn innermost(loops: &[Loop], nodes: usize) -> Vec<Option<usize>> {
    let mut best: Vec<Option<usize>> = vec![None; nodes];
    for (k, l) in loops.iter().enumerate() {
        for &v in &l.body {
            if best[v].is_none_or(|b| loops[b].body.len() > l.body.len()) {
                best[v] = Some(k);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use carmbench_counts::Counts;

    fn node(offset: u64, size: u64, runs: u64, flops: u64) -> Node {
        let c = Counts {
            dp_fma_flops: flops,
            instructions: runs,
            ..Counts::default()
        };
        Node {
            offset,
            size,
            runs,
            work: Work::Counted(c),
            calls: false,
        }
    }

    #[test]
    fn two_loops_one_after_the_other_and_a_nest_are_found_with_their_trips() {
        // 0: entry; 10: loop A (100 iterations, itself its latch); 20:
        // between; 30: outer loop B (10), 40: inner C (10 x 50 = 500), 50:
        // B's latch; 60: exit.
        let nodes = vec![
            node(0, 10, 1, 0),
            node(10, 10, 100, 200),
            node(20, 10, 1, 0),
            node(30, 10, 10, 0),
            node(40, 10, 500, 1000),
            node(50, 10, 10, 0),
            node(60, 10, 1, 0),
        ];
        let inside = [
            (0, 10, 1),
            (10, 10, 99),
            (10, 20, 1),
            (20, 30, 1),
            (30, 40, 10),
            (40, 40, 490),
            (40, 50, 10),
            (50, 30, 9),
            (50, 60, 1),
        ];
        let g = Graph::new(nodes, &inside, &[(0, 1)]);
        let loops = g.loops();
        assert_eq!(loops.len(), 3, "{loops:?}");
        let by = |o: u64| {
            loops
                .iter()
                .find(|l| g.nodes[l.header].offset == o)
                .unwrap()
        };
        let (a, b, c) = (by(10), by(30), by(40));
        assert_eq!((a.iterations, a.entries, a.depth), (100, 1, 1));
        assert_eq!((b.iterations, b.entries, b.depth), (10, 1, 1));
        assert_eq!((c.iterations, c.entries, c.depth), (500, 10, 2));
        assert_eq!(c.trip_count(), 50.0);
        let outer = loops.iter().position(|l| l.header == b.header).unwrap();
        assert_eq!(c.parent, Some(outer));
        assert_eq!(b.body.len(), 3);
        // Each loop's latch: the node that jumps back to its header.
        let latch = |l: &Loop| l.latch.map(|v| g.nodes[v].offset);
        assert_eq!(
            (latch(a), latch(b), latch(c)),
            (Some(10), Some(50), Some(40))
        );
        let inner = innermost(&loops, g.nodes.len());
        assert_eq!(inner[5], Some(outer));
        assert!(inner[0].is_none() && inner[6].is_none());
    }

    #[test]
    fn a_call_is_no_edge_and_two_ways_into_a_cycle_make_an_irreducible_region() {
        // 0 calls out and goes on at 5; 5 and 8 form a cycle entered at
        // both (from 0 to 5, from 0's caller straight to 8).
        let mut call = node(0, 5, 4, 0);
        call.calls = true;
        let nodes = vec![call, node(5, 3, 6, 0), node(8, 2, 6, 0)];
        let inside = [(5, 8, 4), (8, 5, 2), (0, 100, 4)];
        let g = Graph::new(nodes, &inside, &[(0, 4), (8, 2)]);
        let loops = g.loops();
        assert_eq!(loops.len(), 1, "{loops:?}");
        assert!(loops[0].irreducible);
        assert_eq!(loops[0].body.len(), 2);
        // The call goes on at 5, as often as it ran.
        assert!(g.succ[0].contains(&(1, 4)));
    }

    #[test]
    fn an_irreducible_loop_counts_its_entries_at_every_way_in() {
        // 10 branches into a cycle of 20 and 30: 3 times into 20, 5 times
        // into 30; each entry goes round it 4 times, then leaves to 40.
        let nodes = vec![
            node(0, 10, 1, 0),
            node(10, 10, 8, 0),
            node(20, 10, 32, 0),
            node(30, 10, 32, 0),
            node(40, 10, 8, 0),
        ];
        let inside = [
            (0, 10, 1),
            (10, 20, 3),
            (10, 30, 5),
            (20, 30, 27),
            (30, 20, 29),
            (20, 40, 5),
            (30, 40, 3),
        ];
        let g = Graph::new(nodes, &inside, &[(0, 1), (10, 7)]);
        let loops = g.loops();
        let l = (loops.iter().find(|l| l.irreducible)).unwrap_or_else(|| panic!("{loops:?}"));
        assert_eq!(
            (l.entries, l.iterations, l.trip_count()),
            (8, 32, 4.0),
            "{l:?}"
        );
    }
}
