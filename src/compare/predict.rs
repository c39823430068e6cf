//! The roofs an application is predicted under (`carmbench predict`): the
//! thread count asked for, else the application's own, and the roofs of
//! its own arithmetic.

use super::{MachineRoofs, machine_roofs, machine_roofs_of};
use crate::error::{Error, Result};
use crate::machine::Level;
use crate::results::Document;
use crate::results::apps::AppPoint;

/// The thread count of the roofs: the one asked for (which must be
/// measured), else the application's own (or the nearest measured, see
/// [`crate::results::placement::roof_threads`]), else the fewest.
fn threads_of(doc: &Document, want: Option<usize>, app: Option<usize>) -> Result<usize> {
    let t = doc.thread_counts();
    let chosen = match (want, app) {
        (Some(w), _) if !t.contains(&w) => {
            return Err(Error::input(format!(
                "the results have no {w}-thread roofs; they have {}",
                t.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        (Some(w), _) => Some(w),
        (None, Some(n)) => crate::results::placement::roof_threads(doc, n),
        (None, None) => t.first().copied(),
    };
    chosen.ok_or_else(|| Error::input("the results hold no roofs"))
}

/// The roofs of `doc` at `threads` for `app`'s own arithmetic.
fn roofs_of(doc: &Document, threads: usize, flag: &str, app: &AppPoint) -> Result<MachineRoofs> {
    machine_roofs(doc, threads)
        .ok_or_else(|| Error::input(format!("no usable roofs in {flag}")))?;
    // The application's own arithmetic: an INT8 point under INT8 roofs.
    machine_roofs_of(doc, threads, app.precision).ok_or_else(|| {
        let p = app.precision.map_or("dp", |p| p.name());
        Error::input(format!(
            "{flag} has no {p} roofs for {}, whose work is {p} ops; measure them with `carmbench run --precision {p}`",
            app.name
        ))
    })
}

/// The roofs an application is predicted under, on `doc` (`flag` names it,
/// `threads` and `level` as asked), and a note when they are not of the
/// application's thread count.
pub fn roofs_for(
    doc: &Document,
    threads: Option<usize>,
    level: Option<Level>,
    app: &AppPoint,
    flag: &str,
) -> Result<(MachineRoofs, String)> {
    let t = threads_of(doc, threads, app.threads)?;
    let m = roofs_of(doc, t, flag, app)?;
    if let Some(l) = level.filter(|l| !m.levels.iter().any(|(x, _)| x == l)) {
        return Err(Error::input(format!(
            "{flag} has no {l} roof with {t} thread(s); it has {}",
            m.levels
                .iter()
                .map(|(x, _)| x.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let note = match app.threads {
        Some(n) if n != t && threads.is_none() => {
            format!(" (it ran {n} thread(s), which were not measured)")
        }
        _ => String::new(),
    };
    Ok((m, note))
}
