//! The command's processes as one tree, from its start to the end of the
//! last one that works. carmbench is their subreaper, so a background
//! grandchild whose shell has ended is re-parented to carmbench, not to
//! init, and is still found; a tag in their environment tells one run's
//! processes from another's. The command's time runs until its last
//! working process ended; processes that only wait (a `sleep &`, a daemon)
//! are not waited for: left running natively (they are the user's), stopped
//! under emulation (they are carmbench's copies). A timeout, or carmbench
//! being stopped ([`stop_all`]), stops the whole tree.

use crate::error::{Error, Result};
use crate::profile::ground::warnings::{Named, list};
use crate::profile::launch::cpu_use::CpuUse;
use std::collections::{HashMap, HashSet};
use std::process::{Command, ExitStatus};
use std::sync::Mutex;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The environment variable that tags one run's processes.
const TAG_ENV: &str = "CARMBENCH_TREE";

/// How long the processes left after the command's own must do no work
/// to be taken as waiting (a daemon, a `sleep &`), not working.
const IDLE: Duration = Duration::from_millis(500);

/// How often the tree is looked at once the command's own process ended.
const LOOK: Duration = Duration::from_millis(20);

/// How often the threads running at once are counted while the command's
/// own process runs, at most: a look reads every process's `/proc` entry,
/// so on a node of many processes the looks are spaced to take at most
/// 1 / [`LOOKS_SHARE`] of one CPU beside the program.
const COUNT_EVERY: Duration = Duration::from_millis(10);

/// See [`COUNT_EVERY`].
const LOOKS_SHARE: u32 = 100;

/// How long stopped processes get to end (and, under emulation, write
/// their counts) before they are killed.
const GRACE: Duration = Duration::from_secs(2);

/// What becomes of processes still there, idle, when the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftovers {
    /// Left running: the user's own (the native run).
    Leave,
    /// Stopped: carmbench's copies (the emulated run).
    Stop,
}

/// How one run of the command goes.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The longest it may run (`--timeout`).
    pub timeout: Option<Duration>,
    /// What becomes of idle processes left when it ended.
    pub leftovers: Leftovers,
    /// The run, for messages ("the native run").
    pub run: &'static str,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct Ended {
    /// The command's own exit status.
    pub status: ExitStatus,
    /// From its start to the end of its last working process, seconds.
    pub seconds: f64,
    /// The processes idle when it ended: left running or stopped, as the
    /// rules say.
    pub left: Vec<Named>,
    /// The most threads of the tree a look saw running at once (0: never
    /// seen running): single-threaded processes started together count
    /// each.
    pub at_once: usize,
    /// How many looks saw a thread of it running: a few looks at a brief
    /// run can miss threads that ran together.
    pub looks: usize,
    /// Its CPU time, its wait for a CPU and the host's steal.
    pub cpu: crate::results::apps::NativeTime,
}

/// The tree's running threads, counted at each look: a thread waiting for
/// a CPU counts as running (state R), so a loaded machine does not hide
/// the work that goes on at once.
/// Their wait for a CPU is read at the same looks.
struct AtOnce {
    seen: Vec<usize>,
    cpu: CpuUse,
}

impl AtOnce {
    /// Before the tree starts.
    fn start() -> AtOnce {
        AtOnce {
            seen: Vec::new(),
            cpu: CpuUse::start(),
        }
    }

    fn look(&mut self, procs: &[Proc]) {
        let n: usize = procs
            .iter()
            .map(|p| running_threads(p, &mut self.cpu))
            .sum();
        if n > 0 {
            self.seen.push(n);
        }
    }

    /// The most threads a tenth of the looks (at least one) saw running at
    /// once (a thread that started others and waits for them is not
    /// running beside them; a shell caught between starting one program
    /// and waiting for it is a moment's), 0 for none; the looks that saw
    /// any; the tree's use of the CPUs.
    fn typical(mut self) -> (usize, usize, crate::results::apps::NativeTime) {
        self.seen.sort_unstable_by(|a, b| b.cmp(a));
        let n = self.seen.get(self.seen.len() / 10).copied().unwrap_or(0);
        (n, self.seen.len(), self.cpu.end())
    }
}

/// How many of `p`'s threads run (or wait for a CPU) now; each thread's
/// wait for a CPU so far given to `cpu` on the same walk.
fn running_threads(p: &Proc, cpu: &mut CpuUse) -> usize {
    let own = std::path::PathBuf::from(format!("/proc/{}", p.pid));
    if p.threads <= 1 {
        cpu.thread(p.pid, &own);
        return usize::from(p.state == 'R');
    }
    let Ok(tasks) = std::fs::read_dir(own.join("task")) else {
        return usize::from(p.state == 'R');
    };
    (tasks.flatten())
        .filter(|t| {
            if let Some(tid) = t.file_name().to_str().and_then(|s| s.parse().ok()) {
                cpu.thread(tid, &t.path());
            }
            let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
            let state = stat.rfind(')').and_then(|c| stat.get(c + 2..c + 3));
            state == Some("R")
        })
        .count()
}

/// When child `pid` ended, and its wait for a CPU then (its `schedstat`
/// read before it is reaped), nanoseconds; left to be reaped.
fn exited(pid: i32) -> (Instant, Option<u64>) {
    // SAFETY: waitid on a child of this process, WNOWAIT: it stays a
    // zombie for `Child::wait` to reap.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOWAIT;
    let ok = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) } == 0;
    let at = Instant::now();
    let path = format!("/proc/{pid}/schedstat");
    let waited = ok.then(|| std::fs::read_to_string(path).ok()).flatten();
    (
        at,
        waited.and_then(|s| crate::profile::launch::cpu_use::run_delay(&s)),
    )
}

/// This thread's CPU time so far.
fn thread_cpu() -> Duration {
    // SAFETY: clock_gettime fills the timespec it is given.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Trees running now (tag, root pid): what [`stop_all`] stops.
static RUNNING: Mutex<Vec<(String, i32)>> = Mutex::new(Vec::new());

/// Run `cmd` as `rules` say, calling `tick` every few milliseconds while it
/// runs (to read samples as they come).
pub fn run(cmd: &mut Command, rules: &Rules, mut tick: impl FnMut()) -> Result<Ended> {
    subreaper();
    let tag = new_tag();
    cmd.env(TAG_ENV, &tag);
    crate::profile::launch::mask::restore_in(cmd);
    let mut at_once = AtOnce::start();
    let t0 = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::input(format!("cannot run {:?}: {e}", cmd.get_program())))?;
    let root = child.id() as i32;
    let _running = Registered::new(&tag, root);
    // The command's own end, to the microsecond: a thread waits for it,
    // and reads its wait for a CPU before it is reaped (the looks miss its
    // last stretch).
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (at, waited) = exited(root);
        let _ = tx.send((child.wait(), at, waited));
    });
    let over = |now: Instant| rules.timeout.is_some_and(|t| now - t0 > t);
    let mut next_look = t0 + COUNT_EVERY;
    let (status, end) = loop {
        tick();
        if Instant::now() >= next_look {
            // The look's own CPU time: on a loaded machine its wall time
            // counts waiting for a CPU, and looks spaced by it would miss
            // the waits of threads that end between them.
            let cost = thread_cpu();
            at_once.look(&alive(&tag, root));
            next_look = Instant::now() + COUNT_EVERY.max((thread_cpu() - cost) * LOOKS_SHARE);
        }
        match rx.recv_timeout(Duration::from_millis(5)) {
            Ok((s, at, waited)) => {
                at_once.cpu.waited(root, waited);
                break (s.map_err(|e| Error::Io(format!("cannot wait: {e}")))?, at);
            }
            Err(RecvTimeoutError::Timeout) if over(Instant::now()) => {
                return Err(timed_out(rules, stop(&tag, root)));
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::Io("lost the command's process".into()));
            }
        }
    };
    // Ended by the signal that stops carmbench too: carmbench says so.
    crate::profile::launch::mask::wait_if_stopping(&status);
    let (last, left) = rest(&tag, root, end, &mut tick, rules, (t0, &mut at_once))?;
    let left = match rules.leftovers {
        Leftovers::Leave => left.iter().map(|p| named(p.pid, &p.name)).collect(),
        Leftovers::Stop => stop_these(&left),
    };
    let (at_once, looks, cpu) = at_once.typical();
    Ok(Ended {
        status,
        seconds: (last.max(end) - t0).as_secs_f64(),
        left,
        at_once,
        looks,
        cpu,
    })
}

/// After the command's own process ended: wait while the rest of the tree
/// works. The last moment one worked, and those left idle.
fn rest(
    tag: &str,
    root: i32,
    end: Instant,
    tick: &mut impl FnMut(),
    rules: &Rules,
    (t0, at_once): (Instant, &mut AtOnce),
) -> Result<(Instant, Vec<Proc>)> {
    let mut last = end;
    // Each process at the last look: its CPU ticks, and whether it ran.
    let mut seen: HashMap<i32, (u64, bool)> = HashMap::new();
    let running = |p: &Proc| matches!(p.state, 'R' | 'D');
    loop {
        tick();
        let alive = alive(tag, root);
        at_once.look(&alive);
        let now = Instant::now();
        // Working: running or waiting for the disk now (a busy process a
        // loaded machine has not scheduled has no new ticks), or it used
        // the CPU since the last look, or one that was running ended (one
        // that waited, a sleeper, did no work by ending).
        let worked = alive.iter().any(running)
            || alive
                .iter()
                .any(|p| seen.get(&p.pid).is_some_and(|t| p.ticks > t.0))
            || (seen.iter()).any(|(pid, t)| t.1 && !alive.iter().any(|p| p.pid == *pid));
        if worked {
            last = now;
        }
        if alive.is_empty() || now - last >= IDLE {
            return Ok((last, alive));
        }
        if rules.timeout.is_some_and(|t| now - t0 > t) {
            return Err(timed_out(rules, stop(tag, root)));
        }
        seen = alive
            .iter()
            .map(|p| (p.pid, (p.ticks, running(p))))
            .collect();
        std::thread::sleep(LOOK);
    }
}

fn timed_out(rules: &Rules, stopped: Vec<Named>) -> Error {
    let t = rules.timeout.unwrap_or_default();
    Error::input(format!(
        "the command ran longer than --timeout {} in the {}; stopped {}; nothing written (give a longer --timeout)",
        humantime::format_duration(t),
        rules.run,
        list(&stopped)
    ))
}

/// Stop every tree running now (carmbench is being stopped): what was
/// stopped.
pub fn stop_all() -> Vec<Named> {
    let trees = RUNNING.lock().map(|r| r.clone()).unwrap_or_default();
    trees
        .iter()
        .flat_map(|(tag, root)| stop(tag, *root))
        .collect()
}

/// Send `signal` to every process of the trees running now, reaping none
/// (their runs wait for them).
pub fn signal_all(signal: libc::c_int) {
    let trees = RUNNING.lock().map(|r| r.clone()).unwrap_or_default();
    for p in trees.iter().flat_map(|(tag, root)| alive(tag, *root)) {
        // SAFETY: a signal to a process of a running tree.
        unsafe { libc::kill(p.pid, signal) };
    }
}

/// A tree in [`RUNNING`] while it runs.
struct Registered(String);

impl Registered {
    fn new(tag: &str, root: i32) -> Registered {
        if let Ok(mut r) = RUNNING.lock() {
            r.push((tag.to_string(), root));
        }
        Registered(tag.to_string())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut r) = RUNNING.lock() {
            r.retain(|(t, _)| *t != self.0);
        }
    }
}

/// Stop the whole tree: what was stopped.
fn stop(tag: &str, root: i32) -> Vec<Named> {
    stop_these(&alive(tag, root))
}

/// Ask `procs` to end (SIGTERM: a program under QEMU still writes its
/// counts), kill those still there after [`GRACE`]; what was stopped.
fn stop_these(procs: &[Proc]) -> Vec<Named> {
    let named: Vec<Named> = procs.iter().map(|p| named(p.pid, &p.name)).collect();
    let pids: HashSet<i32> = procs.iter().map(|p| p.pid).collect();
    for p in &pids {
        // SAFETY: a signal to a process of this tree.
        unsafe { libc::kill(*p, libc::SIGTERM) };
    }
    let t0 = Instant::now();
    let mut left = pids;
    while !left.is_empty() && t0.elapsed() < GRACE {
        std::thread::sleep(LOOK);
        left.retain(|p| present(*p));
    }
    for p in &left {
        // SAFETY: as above.
        unsafe { libc::kill(*p, libc::SIGKILL) };
    }
    named
}

/// Whether `pid` still runs (a zombie of carmbench's is reaped: it does not).
fn present(pid: i32) -> bool {
    let mut status = 0;
    // SAFETY: reaps `pid` only if it is a child of this process that ended.
    if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
        return false;
    }
    stat(pid).is_some_and(|p| p.state != 'Z' && p.state != 'X')
}

/// One process as `/proc/PID/stat` shows it.
#[derive(Debug, Clone)]
struct Proc {
    pid: i32,
    name: String,
    state: char,
    ppid: i32,
    /// User and system time, clock ticks, its waited-for children's
    /// included: a shell whose work is short commands it runs one after
    /// another works even when no look finds one of them running.
    ticks: u64,
    /// Its threads.
    threads: u64,
}

fn stat(pid: i32) -> Option<Proc> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid ...": the name may hold spaces and ')'.
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let fields: Vec<&str> = text.get(close + 2..)?.split(' ').collect();
    let num = |k: usize| fields.get(k).and_then(|f| f.parse::<u64>().ok());
    Some(Proc {
        pid,
        name: text.get(open + 1..close)?.to_string(),
        state: fields.first()?.chars().next()?,
        ppid: num(1)? as i32,
        ticks: num(11)? + num(12)? + num(13).unwrap_or(0) + num(14).unwrap_or(0),
        threads: num(17).unwrap_or(1),
    })
}

/// The tree's processes now running: the root's descendants, and the
/// orphans re-parented to carmbench that carry the tag, with theirs.
/// Zombies of carmbench's are reaped on the way.
fn alive(tag: &str, root: i32) -> Vec<Proc> {
    let me = std::process::id() as i32;
    let all: Vec<Proc> = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .filter_map(stat)
                .collect()
        })
        .unwrap_or_default();
    let mut children: HashMap<i32, Vec<usize>> = HashMap::new();
    for (k, p) in all.iter().enumerate() {
        children.entry(p.ppid).or_default().push(k);
    }
    let mut todo: Vec<i32> = vec![root];
    todo.extend(
        all.iter()
            .filter(|p| p.ppid == me && p.pid != root && tagged(p.pid, tag))
            .map(|p| p.pid),
    );
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    while let Some(pid) = todo.pop() {
        if !seen.insert(pid) {
            continue;
        }
        if let Some(p) = all.iter().find(|p| p.pid == pid) {
            // The root is reaped by its own waiter; other zombies here.
            let gone = p.state == 'Z' && (pid == root || !present(pid));
            if !gone && p.state != 'X' {
                out.push(p.clone());
            }
        }
        for k in children.get(&pid).into_iter().flatten() {
            todo.push(all[*k].pid);
        }
    }
    out
}

/// Whether `pid` started with this tree's tag in its environment; taken
/// as so while its environment cannot be read (a process amid an exec
/// shows none), to be looked at again.
fn tagged(pid: i32, tag: &str) -> bool {
    let want = format!("{TAG_ENV}={tag}");
    match std::fs::read(format!("/proc/{pid}/environ")) {
        Ok(env) if !env.is_empty() => env.split(|b| *b == 0).any(|v| v == want.as_bytes()),
        _ => true,
    }
}

/// A process named for people: QEMU by the program it emulates.
fn named(pid: i32, comm: &str) -> Named {
    let name = match comm.starts_with("qemu-") {
        true => emulated_program(pid).unwrap_or_else(|| comm.to_string()),
        false => comm.to_string(),
    };
    Named { pid, name }
}

/// The program a QEMU process runs: the first argument that is not an
/// option nor an option's value (every option carmbench gives takes one).
fn emulated_program(pid: i32) -> Option<String> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let mut args = cmdline.split(|b| *b == 0).skip(1);
    while let Some(a) = args.next() {
        match a.first() {
            Some(b'-') => {
                args.next();
            }
            Some(_) => {
                let path = String::from_utf8_lossy(a);
                let name = std::path::Path::new(path.as_ref()).file_name()?;
                return Some(format!("{} (emulated)", name.to_string_lossy()));
            }
            None => {}
        }
    }
    None
}

/// carmbench becomes the subreaper of its descendants (once).
fn subreaper() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: a process attribute; no memory is passed.
    ONCE.call_once(|| unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    });
}

/// A tag no other run of this process has.
fn new_tag() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{}.{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(leftovers: Leftovers, timeout: Option<Duration>) -> Rules {
        Rules {
            timeout,
            leftovers,
            run: "test run",
        }
    }

    #[test]
    fn a_background_worker_is_waited_for_and_a_sleeper_is_not() {
        // The shell ends at once; its child works 0.3 s of CPU, then an
        // idle sleeper stays.
        let mut c = Command::new("sh");
        c.args([
            "-c",
            "(t=$(($(date +%s%N) + 300000000)); while [ $(date +%s%N) -lt $t ]; do :; done) & sleep 30 & exit 0",
        ]);
        let t0 = Instant::now();
        let e = run(&mut c, &rules(Leftovers::Stop, None), || {}).unwrap();
        assert!(e.status.success());
        assert!(e.seconds >= 0.25, "{} s", e.seconds);
        assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
        assert_eq!(e.left.len(), 1, "{:?}", e.left);
        assert_eq!(e.left[0].name, "sleep");
        std::thread::sleep(Duration::from_millis(100));
        assert!(!present(e.left[0].pid), "the sleeper was stopped");
    }

    #[test]
    fn a_timeout_stops_the_whole_tree() {
        let mut c = Command::new("sh");
        c.args(["-c", "sleep 40 & sleep 41; exit 0"]);
        let t0 = Instant::now();
        let e = run(
            &mut c,
            &rules(Leftovers::Leave, Some(Duration::from_millis(300))),
            || {},
        )
        .unwrap_err()
        .to_string();
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        assert!(
            e.contains("--timeout 300ms") && e.contains("sleep (pid"),
            "{e}"
        );
    }
}
