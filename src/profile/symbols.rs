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

/// The file name of a module path, for names and labels.
pub fn file_name(module: &str) -> &str {
    module.rsplit('/').next().unwrap_or(module)
}

/// What the unwind tables of one file say: where functions start, and how
/// file offsets become addresses.
#[derive(Debug, Default)]
struct Frames {
    /// (start, end) addresses of functions, by start.
    functions: Vec<(u64, u64)>,
    /// (file offset, file size, address) of each loaded segment.
    segments: Vec<(u64, u64, u64)>,
}

impl Frames {
    fn read(path: &Path) -> Frames {
        Self::parse(&std::fs::read(path).unwrap_or_default()).unwrap_or_default()
    }

    fn parse(data: &[u8]) -> Option<Frames> {
        use gimli::UnwindSection;
        use object::{Object, ObjectSection, ObjectSegment};
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
        Some(Frames {
            functions,
            segments,
        })
    }

    /// The address of a file offset.
    fn address(&self, offset: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|(off, size, _)| (*off..off + size).contains(&offset))
            .map(|(off, _, addr)| addr + (offset - off))
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
}

impl Default for Symbols {
    fn default() -> Self {
        Symbols {
            symbolizer: Symbolizer::new(),
            frames: HashMap::new(),
        }
    }
}

impl Symbols {
    /// The functions holding each of `offsets` in `module`.
    pub fn functions(&mut self, module: &str, offsets: &[u64]) -> Vec<Function> {
        if module.is_empty() {
            return offsets
                .iter()
                .map(|_| Function {
                    module: String::new(),
                    name: "[code in no file]".into(),
                })
                .collect();
        }
        let src = Source::Elf(Elf::new(module));
        let names: Vec<Option<String>> = self
            .symbolizer
            .symbolize(&src, Input::FileOffset(offsets))
            .unwrap_or_default()
            .iter()
            .map(|f| match f {
                Symbolized::Sym(s) if !s.name.is_empty() => Some(s.name.to_string()),
                _ => None,
            })
            .collect();
        offsets
            .iter()
            .enumerate()
            .map(|(k, &offset)| {
                let name = match names.get(k) {
                    Some(Some(n)) => n.clone(),
                    _ => self.unnamed(module, offset),
                };
                Function {
                    module: module.to_string(),
                    name,
                }
            })
            .collect()
    }

    /// `file+0xADDR` of the function holding `offset`.
    fn unnamed(&mut self, module: &str, offset: u64) -> String {
        let frames = self
            .frames
            .entry(module.to_string())
            .or_insert_with(|| Frames::read(Path::new(module)));
        let at = match frames.address(offset) {
            Some(a) => frames.start(a).unwrap_or(a),
            None => offset,
        };
        format!("{}+{at:#x}", file_name(module))
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
            s.unnamed(me, offset),
            format!("{}+{start:#x}", file_name(me))
        );
        // An offset past the file: named by itself, never dropped.
        let far = s.functions(me, &[u64::MAX / 2]);
        assert!(far[0].name.ends_with(&format!("+{:#x}", u64::MAX / 2)));
        assert_eq!(file_name("/usr/lib/libm.so.6"), "libm.so.6");
    }
}
