//! The hottest loops of the hottest functions, as points: each function's
//! blocks and the control flow between them become its loops
//! ([`crate::profile::views::flow_graph`]); the native samples in a loop's blocks are its time.
//! A loop shown counts its own blocks and those of the loops nested in it
//! that are not shown; what is left of a function with loops shown is one
//! more point, so that the loops and the rest sum to the function.

use crate::profile::ground::symbols::{Function, Symbols, canonical};
use crate::profile::measured::samples::Samples;
use crate::profile::measured::work::{Basis, Work};
use crate::profile::measured::{Block, Flow};
use crate::profile::views::flow_graph::{Graph, Loop, Node, innermost};
use crate::profile::views::functions::{REST, by_function};
use carmbench_counts::End;
use std::collections::{BTreeMap, HashMap};

/// A point of a loop, or of the rest of a function whose loops are shown.
#[derive(Debug, Clone)]
pub struct LoopPoint {
    /// The function it is in.
    pub function: Function,
    /// The point's name: "function: loop at file.c:12", or "function: the
    /// rest".
    pub name: String,
    /// The loop (none for the rest of a function).
    pub found: Option<HotLoop>,
    /// What the point counts.
    pub work: Work,
    /// Native samples in its blocks.
    pub samples: u64,
    /// Its share of the samples.
    pub share: f64,
    /// Its time, seconds.
    pub seconds: f64,
}

/// A loop shown: the loop as the flow graph found it, and where it is in
/// the function's file and sources.
#[derive(Debug, Clone)]
pub struct HotLoop {
    /// The loop: its depth, runs, entries, whether irreducible.
    pub found: Loop,
    /// Its header's offset in the function's file.
    pub header: u64,
    /// Its own source line ("file.c:12"), when the file has line tables.
    pub line: Option<String>,
    /// The loop it nests in (its point's name when shown, else its place).
    pub parent: Option<String>,
    /// Its whole body's work, nested loops shown or not.
    pub total: Work,
}

/// One function's graph, loops and each loop's samples.
struct Analysed {
    function: Function,
    /// The file its code ran from: its own, or a `--count-with` twin's.
    code: String,
    graph: Graph,
    loops: Vec<Loop>,
    inner: Vec<Option<usize>>,
    /// Samples per loop; then those in none of them.
    samples: Vec<u64>,
    rest_samples: u64,
}

/// The `top` hottest loops of `functions` and the rest of each function
/// that has one shown, from the blocks, the flow between them and the
/// native samples.
pub fn hottest(
    blocks: &[Block],
    flow: &[Flow],
    samples: &Samples,
    functions: &[Function],
    top: usize,
    basis: &Basis,
    symbols: &mut Symbols,
) -> Vec<LoopPoint> {
    let analysed = analyse(blocks, flow, samples, functions, symbols);
    // Every loop, hottest first: by samples, then W, then Q.
    let mut all: Vec<(usize, usize)> = analysed
        .iter()
        .enumerate()
        .flat_map(|(f, a)| (0..a.loops.len()).map(move |l| (f, l)))
        .collect();
    let key = |&(f, l): &(usize, usize)| {
        let a: &Analysed = &analysed[f];
        let d = basis.derive(&body_work(&a.graph, &a.loops[l].body));
        (a.samples[l], d.flops, d.bytes)
    };
    all.sort_by(|x, y| {
        let (a, b) = (key(x), key(y));
        (b.0.cmp(&a.0))
            .then(b.1.total_cmp(&a.1))
            .then(b.2.total_cmp(&a.2))
    });
    all.truncate(top);
    let mut out = Vec::new();
    for (f, a) in analysed.iter().enumerate() {
        let shown: Vec<usize> = all.iter().filter(|x| x.0 == f).map(|x| x.1).collect();
        if !shown.is_empty() {
            out.extend(points_of(a, &shown, samples, symbols));
        }
    }
    out
}

/// Each function's graph and loops, with the samples in each loop.
fn analyse(
    blocks: &[Block],
    flow: &[Flow],
    samples: &Samples,
    functions: &[Function],
    symbols: &mut Symbols,
) -> Vec<Analysed> {
    let mut paths = HashMap::new();
    let places = blocks
        .iter()
        .map(|b| (canonical(&b.module, &mut paths), b.offset, b));
    let mut of: BTreeMap<Function, Vec<&Block>> = BTreeMap::new();
    let mut where_is: HashMap<(String, u64), Function> = HashMap::new();
    for (f, b) in by_function(places, symbols) {
        where_is.insert((b.module.clone(), b.offset), f.clone());
        of.entry(f).or_default().push(b);
    }
    let ends: HashMap<(&str, u64), End> = blocks
        .iter()
        .map(|b| ((b.module.as_str(), b.offset), b.ends))
        .collect();
    // The samples by function, as the functions' own are found.
    let sampled = samples
        .places
        .iter()
        .map(|((path, offset), n)| (canonical(path, &mut paths), *offset, *n));
    let mut samples_of: HashMap<Function, Vec<(u64, u64)>> = HashMap::new();
    for (f, (offset, n)) in by_function(sampled.map(|(m, o, n)| (m, o, (o, n))), symbols) {
        samples_of.entry(f).or_default().push((offset, n));
    }
    let mut out = Vec::new();
    for f in functions.iter().filter(|f| f.name != REST) {
        let Some(bs) = of.get(f) else { continue };
        let graph = graph_of(f, bs, flow, &ends, &where_is);
        let loops = graph.loops();
        let inner = innermost(&loops, graph.nodes.len());
        let code = canonical(&bs[0].module, &mut paths);
        let sampled = samples_of.get(f).map_or(&[][..], Vec::as_slice);
        let in_loop = match code == f.module {
            true => by_offset(&graph, &inner, sampled),
            false => by_line(&graph, &inner, &loops, (&code, f), sampled, symbols),
        };
        let mut per_loop = vec![0; loops.len()];
        let mut rest_samples = 0;
        for (l, &(_, n)) in in_loop.into_iter().zip(sampled) {
            match l {
                Some(l) => per_loop[l] += n,
                None => rest_samples += n,
            }
        }
        out.push(Analysed {
            code,
            function: f.clone(),
            graph,
            loops,
            inner,
            samples: per_loop,
            rest_samples,
        });
    }
    out
}

/// The innermost loop holding each sampled offset: the node holding the
/// sampled instruction, if it ran under emulation too.
fn by_offset(graph: &Graph, inner: &[Option<usize>], sampled: &[(u64, u64)]) -> Vec<Option<usize>> {
    (sampled.iter())
        .map(|&(o, _)| {
            let k = (graph.nodes.partition_point(|x| x.offset <= o)).checked_sub(1);
            let node = k.filter(|&k| o < graph.nodes[k].offset + graph.nodes[k].size.max(1));
            node.and_then(|k| inner[k])
        })
        .collect()
}

/// The same where the code that ran is a twin build's (`code`) and the
/// samples are in the command's file: matched by source line, each node's
/// first and last, the deepest loop of a line taking it.
fn by_line(
    graph: &Graph,
    inner: &[Option<usize>],
    loops: &[Loop],
    (code, f): (&str, &Function),
    sampled: &[(u64, u64)],
    symbols: &mut Symbols,
) -> Vec<Option<usize>> {
    let ends: Vec<u64> = (graph.nodes.iter())
        .flat_map(|n| [n.offset, n.offset + n.size.max(1) - 1])
        .collect();
    let lines = symbols.lines(code, &ends);
    let mut of_line: HashMap<String, usize> = HashMap::new();
    for (k, line) in lines.into_iter().enumerate() {
        let (Some(line), Some(l)) = (line, inner[k / 2]) else {
            continue;
        };
        let e = of_line.entry(line).or_insert(l);
        if loops[l].depth > loops[*e].depth {
            *e = l;
        }
    }
    let offsets: Vec<u64> = sampled.iter().map(|s| s.0).collect();
    (symbols.lines(&f.module, &offsets).into_iter())
        .map(|line| line.and_then(|x| of_line.get(&x).copied()))
        .collect()
}

/// The graph of function `f` from its blocks and the flow: transfers out
/// of a call or a return are not its control flow; transfers into it from
/// elsewhere (but returns) are its entries.
fn graph_of(
    f: &Function,
    blocks: &[&Block],
    flow: &[Flow],
    ends: &HashMap<(&str, u64), End>,
    where_is: &HashMap<(String, u64), Function>,
) -> Graph {
    let mut merged: BTreeMap<u64, Node> = BTreeMap::new();
    for b in blocks {
        let n = merged.entry(b.offset).or_insert_with(|| Node {
            offset: b.offset,
            size: 0,
            runs: 0,
            work: Work::Counted(Default::default()),
            calls: false,
        });
        n.size = n.size.max(b.size);
        n.runs += b.runs;
        n.work += &b.work;
        n.calls |= b.ends == End::Call;
    }
    let mine = |p: &(String, u64)| where_is.get(p) == Some(f);
    let (mut inside, mut entering) = (Vec::new(), Vec::new());
    for e in flow {
        let from_ends = ends.get(&(e.from.0.as_str(), e.from.1)).copied();
        if from_ends == Some(End::Return) || !mine(&e.to) {
            continue;
        }
        match mine(&e.from) {
            true => inside.push((e.from.1, e.to.1, e.count)),
            // A system call in another function (a signal handler's
            // `rt_sigreturn`) resumes the code it interrupted: no entry.
            false if from_ends == Some(End::Syscall) => {}
            false => entering.push((e.to.1, e.count)),
        }
    }
    Graph::new(merged.into_values().collect(), &inside, &entering)
}

/// The work of the nodes `body`.
fn body_work(g: &Graph, body: &[usize]) -> Work {
    let mut w = Work::Counted(Default::default());
    body.iter().for_each(|&v| w += &g.nodes[v].work);
    w
}

/// The points of one function's loops `shown`, and of its rest.
fn points_of(
    a: &Analysed,
    shown: &[usize],
    samples: &Samples,
    symbols: &mut Symbols,
) -> Vec<LoopPoint> {
    let f = &a.function;
    let headers: Vec<u64> = (shown.iter())
        .map(|&l| a.graph.nodes[a.loops[l].header].offset)
        .collect();
    let lines = own_lines(a, shown, &headers, symbols);
    let depths: Vec<usize> = shown.iter().map(|&l| a.loops[l].depth).collect();
    let names = names(f, &headers, &lines, &depths);
    let (work, counted) = split(a, shown);
    let total = samples.total.max(1) as f64;
    let point = |name: String, found: Option<HotLoop>, work: Work, n: u64| LoopPoint {
        function: f.clone(),
        name,
        found,
        work,
        samples: n,
        share: n as f64 / total,
        seconds: n as f64 / total * samples.cpu_seconds,
    };
    let mut out = Vec::new();
    for (i, &l) in shown.iter().enumerate() {
        let lp = &a.loops[l];
        let parent = lp.parent.map(|p| match shown.iter().position(|s| *s == p) {
            Some(j) => names[j].clone(),
            None => format!(
                "{} loop at {:#x}",
                f.name, a.graph.nodes[a.loops[p].header].offset
            ),
        });
        let found = HotLoop {
            found: lp.clone(),
            header: headers[i],
            line: lines[i].clone(),
            parent,
            total: body_work(&a.graph, &lp.body),
        };
        out.push(point(
            names[i].clone(),
            Some(found),
            work[i].clone(),
            counted[i],
        ));
    }
    let rest = format!("{}: the rest", f.name);
    out.push(point(
        rest,
        None,
        work[shown.len()].clone(),
        counted[shown.len()],
    ));
    out
}

/// The source line of each loop `shown`: its latch's last instruction's
/// (the jump back is the loop's own `for` or `while`; a rotated loop's
/// header starts with its body's first statement, in a nest the inner
/// loop's), else its header's.
fn own_lines(
    a: &Analysed,
    shown: &[usize],
    headers: &[u64],
    symbols: &mut Symbols,
) -> Vec<Option<String>> {
    let module = &a.code;
    let at_headers = symbols.lines(module, headers);
    let latches: Vec<u64> = (shown.iter().zip(headers))
        .map(
            |(&l, &h)| match a.loops[l].latch.map(|v| &a.graph.nodes[v]) {
                Some(n) if n.size > 0 => n.offset + n.size - 1,
                _ => h,
            },
        )
        .collect();
    let at_latches = symbols.lines(module, &latches);
    (at_latches.into_iter().zip(at_headers))
        .map(|(l, h)| l.or(h))
        .collect()
}

/// The work and samples of each loop `shown` (its own blocks and those of
/// nested loops not shown), then of the rest of the function.
fn split(a: &Analysed, shown: &[usize]) -> (Vec<Work>, Vec<u64>) {
    // The loop shown nearest `l` outward, as an index among `shown`.
    let nearest = |mut l: Option<usize>| {
        while let Some(x) = l {
            if let Some(i) = shown.iter().position(|s| *s == x) {
                return i;
            }
            l = a.loops[x].parent;
        }
        shown.len()
    };
    let mut work = vec![Work::Counted(Default::default()); shown.len() + 1];
    for v in 0..a.graph.nodes.len() {
        work[nearest(a.inner[v])] += &a.graph.nodes[v].work;
    }
    let mut counted = vec![0u64; shown.len() + 1];
    for (l, n) in a.samples.iter().enumerate() {
        counted[nearest(Some(l))] += n;
    }
    counted[shown.len()] += a.rest_samples;
    (work, counted)
}

/// "function: loop at file.c:12" (else "at 0xOFFSET"); loops of one line
/// (a loop nest written on one line, a vectorised loop's remainder) told
/// apart by their depth, then by their order ("#2").
fn names(f: &Function, headers: &[u64], lines: &[Option<String>], depths: &[usize]) -> Vec<String> {
    let base: Vec<String> = (0..headers.len())
        .map(|i| match &lines[i] {
            Some(l) => format!("{}: loop at {l}", f.name),
            None => format!("{}: loop at {:#x}", f.name, headers[i]),
        })
        .collect();
    let count = |v: &[String], x: &String| v.iter().filter(|y| *y == x).count();
    let with_depth: Vec<String> = (0..headers.len())
        .map(|i| match count(&base, &base[i]) {
            1 => base[i].clone(),
            _ => format!("{} (depth {})", base[i], depths[i]),
        })
        .collect();
    let mut order: Vec<usize> = (0..headers.len()).collect();
    order.sort_by_key(|&i| headers[i]);
    let mut out = with_depth.clone();
    let mut seen: HashMap<&String, usize> = HashMap::new();
    for i in order {
        let n = seen.entry(&with_depth[i]).or_default();
        *n += 1;
        if *n > 1 {
            out[i] = format!("{} #{}", with_depth[i], *n);
        }
    }
    out
}
