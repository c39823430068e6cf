//! Regions of a program for `carmbench profile`.
//!
//! A program marks the code to measure with [`begin`]/[`end`] (or a
//! [`Region`] guard; from C, C++ or Fortran `carmbench_region_begin(name)`
//! and `carmbench_region_end(name)`, declared in `include/carmbench.h`).
//! A sized region ([`begin_n`], `carmbench_region_begin_n(name, n)`) is a
//! region of its own at each size `n`, ended by its name alone: the calls
//! of one name at one size are one point, its sizes a series.
//! Run under `carmbench profile`, each region's hardware counts and time are
//! summed over its calls and threads and written at exit to the file that
//! `carmbench profile` names in `CARMBENCH_REGIONS_OUT`, with the events it
//! lists in `CARMBENCH_REGIONS_EVENTS` (`name=rawconfig,...`, hex). When
//! `carmbench profile` counts the program under emulation, it sets
//! `CARMBENCH_REGIONS_EMULATED` instead, and each begin and end becomes a
//! system call the counting plugin sees ([`emulated`]). Outside
//! `carmbench profile` every call returns at once.

use perf_event::events::Raw;
use perf_event::{Builder, Counter};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{CStr, c_char};
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Environment variable naming the output file.
pub const OUT_ENV: &str = "CARMBENCH_REGIONS_OUT";
/// Environment variable listing the events.
pub const EVENTS_ENV: &str = "CARMBENCH_REGIONS_EVENTS";
/// Environment variable set when the program runs under carmbench's
/// emulation: regions are marked with the plugin's system call ([`emulated`]).
pub const EMULATED_ENV: &str = "CARMBENCH_REGIONS_EMULATED";

/// Regions marked for the counting plugin of `carmbench profile --counts
/// emulate`: the plugin's system call ([`carmbench_counts::protocol`]),
/// which the plugin sees with its arguments. A region's name goes out once,
/// in parts; begin and end carry only its number, so the plugin reads no
/// guest memory.
pub mod emulated {
    use carmbench_counts::protocol::{self, op};
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};

    static IDS: OnceLock<Mutex<HashMap<Vec<u8>, u64>>> = OnceLock::new();

    thread_local! {
        /// The regions open on this thread, innermost last: where the name
        /// was (its address and length) and its number. `end` finds its
        /// number here with a few loads instead of a hashed lookup, which
        /// would run inside the region and count in its bytes.
        static OPEN: std::cell::RefCell<Vec<(usize, usize, u64, u64)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    /// FNV-1a of a name: a region ended by a name at another address is
    /// found by it, without allocating inside the region.
    fn hash(name: &[u8]) -> u64 {
        (name.iter()).fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    fn call(op: u64, id: u64, a3: u64, a4: u64, a5: u64, a6: u64) {
        // SAFETY: an unknown system call number only returns ENOSYS.
        unsafe { libc::syscall(protocol::SYSCALL, op, id, a3, a4, a5, a6) };
    }

    /// The number of `name`, sending the name first when it is new.
    fn id(name: &[u8]) -> u64 {
        let mut ids = IDS.get_or_init(Default::default).lock().unwrap();
        if let Some(&id) = ids.get(name) {
            return id;
        }
        let id = ids.len() as u64 + 1;
        for (offset, w) in protocol::name_parts(name) {
            call(op::DEFINE, id, offset, w[0], w[1], w[2]);
        }
        ids.insert(name.to_vec(), id);
        id
    }

    /// Begin `name`: the system call comes last, so nothing of this
    /// function runs inside the region.
    pub fn begin(name: &[u8]) {
        open(name, id(name));
    }

    /// Begin `name` at size `n`: the region of its sized name, ended by
    /// `name`.
    pub fn begin_n(name: &[u8], n: f64) {
        let sized = protocol::sized_name(&String::from_utf8_lossy(name), n);
        open(name, id(sized.as_bytes()));
    }

    /// Open region `id`, ended by `name`.
    fn open(name: &[u8], id: u64) {
        let h = hash(name);
        OPEN.with(|o| {
            o.borrow_mut()
                .push((name.as_ptr() as usize, name.len(), id, h))
        });
        call(op::BEGIN, id, 0, 0, 0, 0);
    }

    /// End `name` (one never begun is ignored by the plugin).
    pub fn end(name: &[u8]) {
        let key = (name.as_ptr() as usize, name.len());
        let open = OPEN.with(|o| {
            let mut o = o.borrow_mut();
            let at = o.iter().rposition(|e| (e.0, e.1) == key)?;
            Some(o.remove(at).2)
        });
        // A name passed from another address than at its begin: by its
        // bytes (never for names given as the same literal).
        let id = open.or_else(|| {
            let h = hash(name);
            OPEN.with(|o| {
                let mut o = o.borrow_mut();
                let at = o.iter().rposition(|e| e.1 == name.len() && e.3 == h)?;
                Some(o.remove(at).2)
            })
        });
        if let Some(id) = id {
            call(op::END, id, 0, 0, 0, 0);
        }
    }
}

/// Whether regions go to the counting plugin.
fn emulated_mode() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(EMULATED_ENV).is_some())
}

/// One region's record, one JSON object per line of the output file:
/// written here at exit, read by `carmbench profile`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The region's name.
    pub name: String,
    /// Seconds inside the region, summed over calls and threads.
    pub seconds: f64,
    /// Calls, over all threads.
    pub calls: u64,
    /// Event counts by name, summed over calls and threads.
    pub counts: BTreeMap<String, u64>,
    /// Why counting failed, when it did (the counts are then missing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Record {
    /// The record as one line of JSON (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A record from one line of the output file.
    pub fn parse_line(line: &str) -> Result<Record, String> {
        serde_json::from_str(line).map_err(|e| format!("unreadable region record '{line}': {e}"))
    }
}

struct State {
    out: String,
    events: Vec<(String, u64)>,
    regions: Mutex<BTreeMap<String, Record>>,
    errors: Mutex<Option<String>>,
}

static STATE: OnceLock<Option<State>> = OnceLock::new();

fn state() -> Option<&'static State> {
    STATE
        .get_or_init(|| {
            let out = std::env::var(OUT_ENV).ok()?;
            let events = std::env::var(EVENTS_ENV)
                .unwrap_or_default()
                .split(',')
                .filter_map(|kv| {
                    let (k, v) = kv.split_once('=')?;
                    Some((
                        k.to_string(),
                        u64::from_str_radix(v.trim_start_matches("0x"), 16).ok()?,
                    ))
                })
                .collect();
            // SAFETY: registering a plain extern "C" function.
            unsafe { libc::atexit(flush_at_exit) };
            Some(State {
                out,
                events,
                regions: Mutex::new(BTreeMap::new()),
                errors: Mutex::new(None),
            })
        })
        .as_ref()
}

thread_local! {
    /// Sized regions open on this thread, innermost last: (name, the
    /// region's sized name).
    static SIZED: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
    static COUNTERS: RefCell<Option<Vec<Counter>>> = const { RefCell::new(None) };
    static OPEN: RefCell<HashMap<String, (Instant, Vec<u64>)>> = RefCell::new(HashMap::new());
}

fn read_all(st: &State) -> Vec<u64> {
    COUNTERS.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            let mut v = Vec::new();
            for (name, cfg) in &st.events {
                match Builder::new(Raw::new(*cfg))
                    .observe_self()
                    .any_cpu()
                    .build()
                {
                    Ok(mut k) => {
                        let _ = k.enable();
                        v.push(k);
                    }
                    Err(e) => {
                        *st.errors.lock().unwrap() = Some(format!("{name}: {e}"));
                        break;
                    }
                }
            }
            *c = Some(v);
        }
        c.as_mut()
            .unwrap()
            .iter_mut()
            .map(|k| k.read().unwrap_or(0))
            .collect()
    })
}

/// Start region `name` on this thread.
pub fn begin(name: &str) {
    if emulated_mode() {
        return emulated::begin(name.as_bytes());
    }
    let Some(st) = state() else { return };
    let counts = read_all(st);
    OPEN.with(|o| {
        o.borrow_mut()
            .insert(name.to_string(), (Instant::now(), counts))
    });
}

/// Start region `name` at size `n` on this thread (a point of its own for
/// each `n`, the series of `name`); [`end`] ends it by its name.
pub fn begin_n(name: &str, n: f64) {
    if emulated_mode() {
        return emulated::begin_n(name.as_bytes(), n);
    }
    if state().is_none() {
        return;
    }
    let sized = carmbench_counts::protocol::sized_name(name, n);
    SIZED.with(|s| s.borrow_mut().push((name.to_string(), sized.clone())));
    begin(&sized);
}

/// End region `name` on this thread (a region not begun is ignored): the
/// innermost sized region of that name when one is open.
pub fn end(name: &str) {
    if emulated_mode() {
        return emulated::end(name.as_bytes());
    }
    let Some(st) = state() else { return };
    let now = read_all(st);
    let sized = SIZED.with(|s| {
        let mut s = s.borrow_mut();
        let at = s.iter().rposition(|e| e.0 == name)?;
        Some(s.remove(at).1)
    });
    let name = sized.as_deref().unwrap_or(name);
    let Some((t0, before)) = OPEN.with(|o| o.borrow_mut().remove(name)) else {
        return;
    };
    let mut regions = st.regions.lock().unwrap();
    let acc = regions.entry(name.to_string()).or_insert_with(|| Record {
        name: name.to_string(),
        ..Record::default()
    });
    acc.seconds += t0.elapsed().as_secs_f64();
    acc.calls += 1;
    for ((ev, _), (a, b)) in st.events.iter().zip(now.iter().zip(&before)) {
        *acc.counts.entry(ev.clone()).or_insert(0) += a.saturating_sub(*b);
    }
}

/// A region that ends when dropped.
pub struct Region {
    name: String,
}

impl Region {
    /// Begin `name`; it ends when the guard is dropped.
    pub fn begin(name: &str) -> Region {
        begin(name);
        Region {
            name: name.to_string(),
        }
    }

    /// Begin `name` at size `n` ([`begin_n`]); it ends when dropped.
    pub fn begin_n(name: &str, n: f64) -> Region {
        begin_n(name, n);
        Region {
            name: name.to_string(),
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        end(&self.name);
    }
}

/// Write the regions measured so far to the output file (one JSON object
/// per line, appended) and forget them. Runs by itself at exit.
pub fn flush() {
    let Some(st) = state() else { return };
    let regions = std::mem::take(&mut *st.regions.lock().unwrap());
    if regions.is_empty() {
        return;
    }
    let err = st.errors.lock().unwrap().clone();
    let mut text = String::new();
    for (_, mut r) in regions {
        r.error = err.clone();
        text.push_str(&r.to_line());
        text.push('\n');
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&st.out)
    {
        let _ = f.write_all(text.as_bytes());
    }
}

extern "C" fn flush_at_exit() {
    flush();
}

fn name_of(p: *const c_char) -> Option<String> {
    bytes_of(p).map(|b| String::from_utf8_lossy(b).into_owned())
}

/// The bytes of a NUL-terminated C string, without copying them.
fn bytes_of<'a>(p: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: the caller passes a NUL-terminated string (see carmbench.h).
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// C ABI: begin the region `name` (NUL-terminated) on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn carmbench_region_begin(name: *const c_char) {
    if emulated_mode() {
        return bytes_of(name).into_iter().for_each(emulated::begin);
    }
    if let Some(n) = name_of(name) {
        begin(&n);
    }
}

/// C ABI: begin the region `name` at size `n` on this thread: a point of
/// its own for each size, ended by `carmbench_region_end(name)`.
#[unsafe(no_mangle)]
pub extern "C" fn carmbench_region_begin_n(name: *const c_char, n: f64) {
    if emulated_mode() {
        return bytes_of(name)
            .into_iter()
            .for_each(|b| emulated::begin_n(b, n));
    }
    if let Some(s) = name_of(name) {
        begin_n(&s, n);
    }
}

/// C ABI: end the region `name` on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn carmbench_region_end(name: *const c_char) {
    // Under emulation, without allocating: this runs inside the region.
    if emulated_mode() {
        return bytes_of(name).into_iter().for_each(emulated::end);
    }
    if let Some(n) = name_of(name) {
        end(&n);
    }
}

/// C ABI: write the regions measured so far (also done at exit).
#[unsafe(no_mangle)]
pub extern "C" fn carmbench_regions_flush() {
    flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_through_one_line() {
        let r = Record {
            name: "triad \"loop\"\n".into(),
            seconds: 0.25,
            calls: 3,
            counts: [("fp_ops".to_string(), 42u64)].into_iter().collect(),
            error: None,
        };
        let line = r.to_line();
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(Record::parse_line(&line), Ok(r.clone()));
        let failed = Record {
            error: Some("fp_ops: ENOENT".into()),
            ..r
        };
        assert_eq!(Record::parse_line(&failed.to_line()), Ok(failed));
        assert!(Record::parse_line("{\"name\": 3}").is_err());
    }

    #[test]
    fn regions_are_no_ops_outside_the_profiler() {
        // Not under `carmbench profile`: nothing is opened or written.
        if std::env::var_os(OUT_ENV).is_none() {
            let _r = Region::begin("idle");
            end("never begun");
            flush();
            assert!(state().is_none());
        }
    }
}
