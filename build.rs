//! Reads every kernel declaration (`# @kernel NAME key=value ...` lines, or
//! `// @kernel` where `#` is not a comment, in `asm/<arch>/*/*.S` for the
//! target's architecture) and generates the kernel table: the `global_asm!`
//! that brings the assembly in, the `extern` declarations of the symbols, and
//! one `Kernel` entry per declaration. The declaration is the only place a
//! kernel's counts are written; everything else derives from it. `width=vl`
//! (SVE) is the vector length the CPU reports at run time, written 0.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

const KEYS: [&str; 19] = [
    "kind",
    "mix",
    "op",
    "isa",
    "precision",
    "width",
    "loads",
    "stores",
    "add",
    "mul",
    "fma",
    "div",
    "dot",
    "madd",
    "mmla",
    "alu",
    "needs",
    "prefetch",
    "pace",
];

fn variant(v: &str) -> String {
    match v {
        "2ld1st" => "TwoLdOneSt".into(),
        "1ld1st" => "OneLdOneSt".into(),
        "nt_store" => "NtStore".into(),
        "fma_add" => "FmaAdd".into(),
        "addmul" => "AddMul".into(),
        "avx512" => "Avx512".into(),
        "avx2" => "Avx2".into(),
        "int8" => "Int8".into(),
        "int16" => "Int16".into(),
        "int32" => "Int32".into(),
        "bf16" => "Bf16".into(),
        "fp16" => "Fp16".into(),
        _ => {
            let mut c = v.chars();
            let f = c.next().unwrap().to_ascii_uppercase();
            std::iter::once(f).chain(c).collect()
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap();
    let asm = root.join("asm").join(&arch);
    assert!(
        asm.is_dir(),
        "carmbench has kernels for x86_64 and aarch64 (asm/<arch>), not for {arch}"
    );
    println!("cargo:rerun-if-changed=asm");
    let files = kernel_files(&asm);
    let mut externs = String::new();
    let mut table = String::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        let text = fs::read_to_string(f).unwrap();
        for (ln, line) in text.lines().enumerate() {
            let line = line.trim();
            let Some(rest) = line
                .strip_prefix("# @kernel ")
                .or_else(|| line.strip_prefix("// @kernel "))
            else {
                continue;
            };
            let at = format!("{rel}:{}", ln + 1);
            let (name, row) = declare(&rel, &at, &text, rest);
            let sym = format!("carm_{name}");
            writeln!(
                externs,
                "    fn {sym}(a: *const u8, b: *const u8, c: *mut u8, iters: u64, passes: u64, shape: u64);"
            )
            .unwrap();
            writeln!(table, "{row}").unwrap();
        }
    }
    let mut out = assembly(&asm, &files);
    out.push_str(");\n\nunsafe extern \"C\" {\n");
    out.push_str(&externs);
    out.push_str(
        "}\n\n/// Every kernel, as declared in `asm/`.\npub static KERNELS: &[Kernel] = &[\n",
    );
    out.push_str(&table);
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("kernels.rs");
    fs::write(dest, out).unwrap();
}

/// The kernels' files: every `.S` in a folder of `asm` (one per ISA), in
/// order.
fn kernel_files(asm: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for isa_dir in fs::read_dir(asm).expect("asm/<arch> exists") {
        let d = isa_dir.unwrap().path();
        if d.is_dir() {
            for f in fs::read_dir(&d).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "S") {
                    println!("cargo:rerun-if-changed={}", f.display());
                    files.push(f);
                }
            }
        }
    }
    files.sort();
    files
}

/// One `@kernel` declaration (`rest`, the words after it, at `at` of the
/// file `rel` whose text is `text`): its name and its row of the table.
fn declare(rel: &str, at: &str, text: &str, rest: &str) -> (String, String) {
    let mut it = rest.split_whitespace();
    let name = it.next().expect("kernel name");
    let mut kv = std::collections::BTreeMap::new();
    for tok in it {
        let (k, v) = tok
            .split_once('=')
            .unwrap_or_else(|| panic!("{at}: '{tok}' is not key=value"));
        assert!(KEYS.contains(&k), "{at}: unknown key '{k}'");
        kv.insert(k, v);
    }
    // Its code: `BEGIN name`, or a kernel-making macro (`FKERNEL
    // name, ...`, `VKERNEL`, `NKERNEL`, `ZKERNEL`).
    let made = text.lines().any(|l| {
        l.trim_start()
            .split_once(' ')
            .is_some_and(|(m, rest)| m.ends_with("KERNEL") && rest.starts_with(&format!("{name},")))
    });
    assert!(
        text.contains(&format!("BEGIN {name}\n")) || made,
        "{rel}: declaration of {name} has no `BEGIN {name}` or `...KERNEL {name}, ...`"
    );
    let get = |k: &str| kv.get(k).copied();
    let num = |k: &str| {
        get(k)
            .filter(|v| !(k == "width" && *v == "vl"))
            .map(|v| {
                v.parse::<u32>()
                    .unwrap_or_else(|_| panic!("{at}: {k} must be a number"))
            })
            .unwrap_or(0)
    };
    let kind = get("kind").unwrap_or_else(|| panic!("{rel}: {name} has no kind"));
    let opt = |k: &str, ty: &str| match get(k) {
        Some(v) => format!("Some({ty}::{})", variant(v)),
        None => "None".into(),
    };
    let sym = format!("carm_{name}");
    let row = format!(
        "    Kernel {{ decl: Decl {{ name: \"{name}\", file: \"{rel}\", kind: Kind::{}, mix: {}, op: {}, isa: Isa::{}, precision: {}, declared_width: {}, loads: {}, stores: {}, adds: {}, muls: {}, fmas: {}, divs: {}, dots: {}, madds: {}, mmlas: {}, alus: {}, needs: {:?}, prefetch: {}, pace: {} }}, entry: {sym} }},",
        variant(kind),
        opt("mix", "Mix"),
        opt("op", "Op"),
        variant(get("isa").unwrap_or_else(|| panic!("{rel}: {name} has no isa"))),
        opt("precision", "Precision"),
        num("width"),
        num("loads"),
        num("stores"),
        num("add"),
        num("mul"),
        num("fma"),
        num("div"),
        num("dot"),
        num("madd"),
        num("mmla"),
        num("alu"),
        get("needs"),
        num("prefetch"),
        num("pace"),
    );
    (name.to_string(), row)
}

/// The `global_asm!` opening and every file's text in it: the shared
/// macros first (`common.S`, then the other top-level files), then
/// `files`.
fn assembly(asm: &Path, files: &[PathBuf]) -> String {
    let mut out = String::new();
    out.push_str("core::arch::global_asm!(\n");
    let common = asm.join("common.S");
    let mut shared: Vec<PathBuf> = fs::read_dir(asm)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "S") && *p != common)
        .collect();
    shared.sort();
    // Each file as a template string: braces (SVE's register lists) doubled,
    // as `global_asm!` reads single ones as operands.
    for f in std::iter::once(&common).chain(&shared).chain(files) {
        println!("cargo:rerun-if-changed={}", f.display());
        let text = fs::read_to_string(f).unwrap();
        let text = text.replace('{', "{{").replace('}', "}}");
        assert!(
            !text.contains("\"#"),
            "{}: the text \"# cannot be embedded",
            f.display()
        );
        writeln!(out, "    r#\"{text}\"#,").unwrap();
    }
    out
}
