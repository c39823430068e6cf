//! Regions of a program for `carmbench profile`.
//!
//! A program marks the code to measure with [`begin`]/[`end`] (or a
//! [`Region`] guard; from C, C++ or Fortran `carmbench_region_begin(name)`
//! and `carmbench_region_end(name)`, declared in `include/carmbench.h`).
//! Run under `carmbench profile`, each region's hardware counts and time are
//! summed over its calls and threads and written at exit to the file that
//! `carmbench profile` names in `CARMBENCH_REGIONS_OUT`, with the events it
//! lists in `CARMBENCH_REGIONS_EVENTS` (`name=rawconfig,...`, hex). Outside
//! `carmbench profile` every call returns at once.

use perf_event::events::Raw;
use perf_event::{Builder, Counter};
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

#[derive(Default, Clone)]
struct Acc {
    seconds: f64,
    calls: u64,
    counts: BTreeMap<String, u64>,
}

struct State {
    out: String,
    events: Vec<(String, u64)>,
    regions: Mutex<BTreeMap<String, Acc>>,
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
    let Some(st) = state() else { return };
    let counts = read_all(st);
    OPEN.with(|o| {
        o.borrow_mut()
            .insert(name.to_string(), (Instant::now(), counts))
    });
}

/// End region `name` on this thread (a region not begun is ignored).
pub fn end(name: &str) {
    let Some(st) = state() else { return };
    let now = read_all(st);
    let Some((t0, before)) = OPEN.with(|o| o.borrow_mut().remove(name)) else {
        return;
    };
    let mut regions = st.regions.lock().unwrap();
    let acc = regions.entry(name.to_string()).or_default();
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
}

impl Drop for Region {
    fn drop(&mut self) {
        end(&self.name);
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
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
    for (name, a) in regions {
        let counts: Vec<String> = a
            .counts
            .iter()
            .map(|(k, v)| format!("{}:{v}", json_str(k)))
            .collect();
        text.push_str(&format!(
            "{{\"name\":{},\"seconds\":{},\"calls\":{},\"counts\":{{{}}}{}}}\n",
            json_str(&name),
            a.seconds,
            a.calls,
            counts.join(","),
            err.as_ref()
                .map(|e| format!(",\"error\":{}", json_str(e)))
                .unwrap_or_default()
        ));
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
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller passes a NUL-terminated string (see carmbench.h).
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// C ABI: begin the region `name` (NUL-terminated) on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn carmbench_region_begin(name: *const c_char) {
    if let Some(n) = name_of(name) {
        begin(&n);
    }
}

/// C ABI: end the region `name` on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn carmbench_region_end(name: *const c_char) {
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
    fn json_strings_are_escaped() {
        assert_eq!(json_str("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
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
