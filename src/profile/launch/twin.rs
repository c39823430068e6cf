//! Whether a `--count-with` program is plausibly a twin of the command: a
//! build of the same code, whose emulated run stands for the command's.
//! Two signs it is not: the symbols the two files name (the functions they
//! define and the ones they import) are mostly different, or its emulated
//! run took less time than the command's native one, which no emulated
//! build of the same work does (QEMU runs code several times slower).

use object::{Object, ObjectSymbol};
use std::collections::BTreeSet;
use std::path::Path;

/// Below this share of names in common (of all the names of both), two
/// programs are taken to be different code.
const SAME_CODE: f64 = 0.3;

/// Why `twin` may not be a build of `command`'s code, given the command's
/// native seconds and the twin's emulated ones; empty when nothing says so.
pub fn unlike(command: &Path, twin: &Path, native: f64, emulated: f64) -> Vec<String> {
    let mut why = Vec::new();
    if let (Some(a), Some(b)) = (names(command), names(twin))
        && !(a.is_empty() && b.is_empty())
    {
        let common = a.intersection(&b).count();
        let all = a.union(&b).count();
        if (common as f64) < SAME_CODE * all as f64 {
            why.push(format!(
                "the two files share {common} of their {all} symbol names"
            ));
        }
    }
    if emulated < native {
        why.push(format!(
            "its emulated run took {emulated:.3} s, less than the command's native {native:.3} s, which no emulated build of the same work does"
        ));
    }
    why
}

/// The names an ELF file defines as functions or imports, but the start-up
/// code every program has (names that begin with `_`, and `main`).
fn names(path: &Path) -> Option<BTreeSet<String>> {
    let data = std::fs::read(path).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let own = |s: &object::Symbol| s.kind() == object::SymbolKind::Text || s.is_undefined();
    let mut out: BTreeSet<String> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(own)
        .filter_map(|s| s.name().ok().map(str::to_string))
        .filter(|n| !n.is_empty() && !n.starts_with('_') && n != "main")
        .map(|n| n.split('@').next().unwrap_or_default().to_string())
        .collect();
    out.remove("");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_its_own_twin_and_a_faster_emulation_is_not() {
        let me = std::env::current_exe().unwrap();
        assert!(unlike(&me, &me, 1.0, 20.0).is_empty());
        let why = unlike(&me, &me, 1.0, 0.5);
        assert_eq!(why.len(), 1);
        assert!(why[0].contains("less than"), "{why:?}");
        // This test binary and a shell share few names.
        let sh = Path::new("/bin/sh");
        if sh.exists() {
            let why = unlike(&me, sh, 1.0, 20.0);
            assert!(why.iter().any(|w| w.contains("symbol names")), "{why:?}");
        }
    }
}
