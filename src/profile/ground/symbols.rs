//! Names for code: a place in a file (the program or a shared library, at
//! a file offset, as both the counting plugin and the native sampler find
//! it) becomes the function that holds it.
//!
//! Symbols come from the ELF symbol tables and DWARF through `blazesym`,
//! demangled. Code with no symbol (a stripped build) is never dropped: it is
//! named `file+0xADDR` by the start of the function that holds it, from the
//! unwind tables (`.eh_frame`, kept by stripping because exceptions and
//! debuggers need them), else by its own address.

use blazesym::symbolize::source::{Elf, Source};
use blazesym::symbolize::{Input, Symbolized, Symbolizer};
use std::collections::HashMap;
use std::path::Path;

/// A function: the file it is in, and its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Function {
    /// The file's path ("" for code in no file).
    pub module: String,
    /// Its name, demangled; `file+0xADDR` when it has none.
    pub name: String,
}

/// The function all code in anonymous memory (a JIT's) is one of: its
/// symbols are nowhere.
pub const ANONYMOUS_CODE: &str = "[code in anonymous memory]";

/// The file name of a module path, for names and labels.
pub fn file_name(module: &str) -> &str {
    module.rsplit('/').next().unwrap_or(module)
}

/// A module's path as both runs name it: the file itself, links resolved
/// (a library is found as `/lib/...` by one and `/usr/lib/...` by the
/// other when `/lib` is a link).
pub fn canonical(path: &str, cache: &mut HashMap<String, String>) -> String {
    if path.is_empty() {
        return String::new();
    }
    cache
        .entry(path.to_string())
        .or_insert_with(|| {
            std::fs::canonicalize(Path::new(path))
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| path.to_string())
        })
        .clone()
}

/// What the unwind tables of one file say: where functions start, and how
/// file offsets become addresses.
#[derive(Debug, Default)]
struct Frames {
    /// (start, end) addresses of functions, by start.
    functions: Vec<(u64, u64)>,
    /// (file offset, file size, address) of each loaded segment.
    segments: Vec<(u64, u64, u64)>,
    /// (start, end, name) of the symbol table's functions, by start: for a
    /// name `blazesym` does not give (one that is not UTF-8, shown with
    /// U+FFFD in place of the bad bytes).
    symbols: Vec<(u64, u64, String)>,
}

impl Frames {
    fn read(path: &Path) -> Frames {
        Self::parse(&std::fs::read(path).unwrap_or_default()).unwrap_or_default()
    }

    fn parse(data: &[u8]) -> Option<Frames> {
        use gimli::UnwindSection;
        use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, SymbolKind};
        let file = object::File::parse(data).ok()?;
        let segments = file
            .segments()
            .map(|s| {
                let (off, size) = s.file_range();
                (off, size, s.address())
            })
            .collect();
        let mut functions = Vec::new();
        if let Some(sec) = file.section_by_name(".eh_frame") {
            let bytes = sec.data().ok()?;
            let eh = gimli::EhFrame::new(bytes, gimli::LittleEndian);
            let bases = gimli::BaseAddresses::default().set_eh_frame(sec.address());
            let mut entries = eh.entries(&bases);
            while let Ok(Some(e)) = entries.next() {
                if let gimli::CieOrFde::Fde(partial) = e
                    && let Ok(fde) = partial.parse(|s, b, o| s.cie_from_offset(b, o))
                {
                    let start = fde.initial_address();
                    functions.push((start, start + fde.len()));
                }
            }
        }
        functions.sort_unstable();
        let mut symbols: Vec<(u64, u64, String)> = file
            .symbols()
            .chain(file.dynamic_symbols())
            .filter(|y| y.kind() == SymbolKind::Text && y.size() > 0)
            .filter_map(|y| {
                let name = String::from_utf8_lossy(y.name_bytes().ok()?).into_owned();
                Some((y.address(), y.address() + y.size(), name))
            })
            .collect();
        symbols.sort();
        Some(Frames {
            functions,
            segments,
            symbols,
        })
    }

    /// The address of a file offset.
    fn address(&self, offset: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|(off, size, _)| (*off..off + size).contains(&offset))
            .map(|(off, _, addr)| addr + (offset - off))
    }

    /// `file+0xADDR`: the start of the function holding `offset` by the
    /// unwind tables, else the offset's own address.
    fn by_start(&self, module: &str, offset: u64) -> String {
        let at = match self.address(offset) {
            Some(a) => self.start(a).unwrap_or(a),
            None => offset,
        };
        format!("{}+{at:#x}", file_name(module))
    }

    /// The symbol table's name of the function holding `address`.
    fn symbol(&self, address: u64) -> Option<&str> {
        let i = self
            .symbols
            .partition_point(|(s, _, _)| *s <= address)
            .checked_sub(1)?;
        let (_, e, name) = &self.symbols[i];
        (address < *e && !name.is_empty()).then_some(name.as_str())
    }

    /// The start of the function holding `address`.
    fn start(&self, address: u64) -> Option<u64> {
        let i = self
            .functions
            .partition_point(|(s, _)| *s <= address)
            .checked_sub(1)?;
        let (s, e) = self.functions[i];
        (address < e).then_some(s)
    }
}

/// Names places in files, each file read once.
pub struct Symbols {
    symbolizer: Symbolizer,
    frames: HashMap<String, Frames>,
    /// Where each named function starts in its sources ("file.c:12"), when
    /// its file has DWARF line tables.
    locations: HashMap<Function, String>,
    /// Files whose code stands for another's: a `--count-with` twin's
    /// functions, named from its own symbols, are the command's.
    stand_ins: HashMap<String, String>,
}

thread_local! {
    /// How many symbolizers this thread made: one profile run makes one.
    static MADE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many [`Symbols`] this thread has made so far.
pub fn made_here() -> usize {
    MADE.with(|m| m.get())
}

impl Default for Symbols {
    fn default() -> Self {
        MADE.with(|m| m.set(m.get() + 1));
        Symbols {
            symbolizer: Symbolizer::new(),
            frames: HashMap::new(),
            locations: HashMap::new(),
            stand_ins: HashMap::new(),
        }
    }
}

impl Symbols {
    /// Name the functions of `code` (a twin build's file) as those of
    /// `module` (the command's): found in `code`'s symbols, by name.
    pub fn stand_in(&mut self, code: &str, module: &str) {
        self.stand_ins.insert(code.to_string(), module.to_string());
    }

    /// The file the functions of `module`'s code are named in.
    pub fn named_in<'a>(&'a self, module: &'a str) -> &'a str {
        self.stand_ins.get(module).map_or(module, String::as_str)
    }

    /// The functions holding each of `offsets` in `module`.
    pub fn functions(&mut self, module: &str, offsets: &[u64]) -> Vec<Function> {
        let whole = match module {
            "" => Some("[code in no file]"),
            carmbench_counts::protocol::ANONYMOUS => Some(ANONYMOUS_CODE),
            _ => None,
        };
        if let Some(name) = whole {
            let f = Function {
                module: module.to_string(),
                name: name.into(),
            };
            return vec![f; offsets.len()];
        }
        let src = Source::Elf(Elf::new(module));
        // (name, start address) of each offset's symbol.
        let names: Vec<Option<(String, u64)>> = self
            .symbolizer
            .symbolize(&src, Input::FileOffset(offsets))
            .unwrap_or_default()
            .iter()
            .map(|f| match f {
                Symbolized::Sym(s) if !s.name.is_empty() => Some((s.name.to_string(), s.addr)),
                _ => None,
            })
            .collect();
        let named_in = self.named_in(module).to_string();
        self.locate(&named_in, &src, &names);
        offsets
            .iter()
            .enumerate()
            .map(|(k, &offset)| {
                let name = match names.get(k) {
                    Some(Some((n, _))) => n.clone(),
                    _ => self.unnamed(module, offset),
                };
                Function {
                    module: named_in.clone(),
                    name,
                }
            })
            .collect()
    }

    /// The source line of each of `offsets` in `module` ("file.c:12"),
    /// when its file has line tables.
    pub fn lines(&mut self, module: &str, offsets: &[u64]) -> Vec<Option<String>> {
        if module.is_empty() || module == carmbench_counts::protocol::ANONYMOUS {
            return vec![None; offsets.len()];
        }
        let src = Source::Elf(Elf::new(module));
        let found = self
            .symbolizer
            .symbolize(&src, Input::FileOffset(offsets))
            .unwrap_or_default();
        (0..offsets.len())
            .map(|k| {
                let Some(Symbolized::Sym(s)) = found.get(k) else {
                    return None;
                };
                let info = s.code_info.as_ref()?;
                let file = Path::new(&info.file).file_name()?.to_string_lossy();
                Some(format!("{file}:{}", info.line?))
            })
            .collect()
    }

    /// Where `f` starts in its sources, when its file has line tables.
    pub fn location(&self, f: &Function) -> Option<&str> {
        self.locations.get(f).map(String::as_str)
    }

    /// Find the source line of the start of each function in `names` not
    /// located yet, in one call for the module.
    fn locate(&mut self, module: &str, src: &Source, names: &[Option<(String, u64)>]) {
        let mut todo: Vec<(String, u64)> = Vec::new();
        for (n, addr) in names.iter().flatten() {
            let f = Function {
                module: module.to_string(),
                name: n.clone(),
            };
            if !self.locations.contains_key(&f) && !todo.iter().any(|(m, _)| m == n) {
                todo.push((n.clone(), *addr));
            }
        }
        if todo.is_empty() {
            return;
        }
        let starts: Vec<u64> = todo.iter().map(|t| t.1).collect();
        // One address the line tables cannot take fails the whole call:
        // then each on its own.
        let found = match self.symbolizer.symbolize(src, Input::VirtOffset(&starts)) {
            Ok(f) => f,
            Err(_) => starts
                .iter()
                .map(|&a| {
                    self.symbolizer
                        .symbolize_single(src, Input::VirtOffset(a))
                        .unwrap_or(Symbolized::Unknown(
                            blazesym::symbolize::Reason::IgnoredError,
                        ))
                })
                .collect(),
        };
        for ((n, _), f) in todo.into_iter().zip(&found) {
            let Symbolized::Sym(s) = f else { continue };
            let Some(info) = &s.code_info else { continue };
            let Some(line) = info.line else { continue };
            let file = Path::new(&info.file)
                .file_name()
                .map_or_else(|| info.file.to_string_lossy(), |x| x.to_string_lossy());
            let key = Function {
                module: module.to_string(),
                name: n,
            };
            self.locations.insert(key, format!("{file}:{line}"));
        }
    }

    /// The symbol table's name of the function holding `offset` (a name
    /// `blazesym` could not give), else `file+0xADDR` of its start.
    fn unnamed(&mut self, module: &str, offset: u64) -> String {
        let frames = self
            .frames
            .entry(module.to_string())
            .or_insert_with(|| Frames::read(Path::new(module)));
        match frames.address(offset).and_then(|a| frames.symbol(a)) {
            Some(name) => name.to_string(),
            None => frames.by_start(module, offset),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_of_this_test_binary_are_named_and_its_offsets_are_kept() {
        let me = std::env::current_exe().unwrap();
        let me = me.to_str().unwrap();
        let frames = Frames::read(Path::new(me));
        assert!(frames.functions.len() > 100 && !frames.segments.is_empty());
        // A place in a function the unwind tables know: named by blazesym
        // from the symbol table, and its unnamed form is that function's
        // start.
        let (start, end) = frames.functions[frames.functions.len() / 2];
        let (off, _, addr) = *frames
            .segments
            .iter()
            .find(|(_, size, a)| (*a..a + size).contains(&start))
            .unwrap();
        let offset = start - addr + off + (end - start) / 2;
        let mut s = Symbols::default();
        let f = s.functions(me, &[offset]);
        assert!(!f[0].name.is_empty() && !f[0].name.contains('+'), "{f:?}");
        assert_eq!(
            frames.by_start(me, offset),
            format!("{}+{start:#x}", file_name(me))
        );
        // The symbol table names it too, as its bytes are (not demangled).
        assert!(!s.unnamed(me, offset).contains('+'));
        // An offset past the file: named by itself, never dropped.
        let far = s.functions(me, &[u64::MAX / 2]);
        assert!(far[0].name.ends_with(&format!("+{:#x}", u64::MAX / 2)));
        assert_eq!(file_name("/usr/lib/libm.so.6"), "libm.so.6");
    }
}
