//! The source layout keeps its shape (docs/layout.md): modules import only
//! from layers below them, no two files import each other however far round,
//! a file over 600 lines says in its header why it is long, no function
//! runs past 80 lines (a test's past 120), and a command file stays within
//! 150 lines. Read from the source text, so a new upward import
//! fails here before anyone reads the code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crate's top-level modules, lowest layer first; a module may import
/// from its own layer's others and from the layers before it.
const LAYERS: &[&[&str]] = &[
    &["error", "units", "files"],
    &["arch"],
    &["machine"],
    &["kernels"],
    &["measure", "gpu"],
    &["config", "roofline"],
    &["results"],
    &["roofs"],
    &["validate"],
    &["compare", "profile", "fleet", "run"],
    &["chart"],
    &["output"],
    &["report"],
    &["commands"],
    &["cli"],
    &["fuzzing"],
];

/// The steps of `profile/` (docs/layout.md), each a folder (or a file) at
/// its top, lowest first, held to the same rule inside it: the ground
/// (symbols, runtimes, warnings), what was measured, the launch, the
/// counters, the views, the plan, and GPU kernels under Nsight Compute.
const PROFILE_LAYERS: &[&[&str]] = &[
    &["ground"],
    &["measured"],
    &["launch"],
    &["counter"],
    &["views"],
    &["plan"],
    &["gpu"],
];

/// Entries at the top of `src/profile/`: its steps and `mod.rs`.
const PROFILE_TOP_MAX: usize = 8;

const MAX_FILE_LINES: usize = 600;
/// A function of the crates' own code; a test's (its set-up and checks in
/// one place) may run longer.
const MAX_FN_LINES: usize = 80;
const MAX_TEST_FN_LINES: usize = 120;
/// A command file parses, calls the library and prints.
const MAX_COMMAND_LINES: usize = 150;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `results::apps` for src/results/apps.rs; "" for lib.rs and main.rs.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] {
        parts.clear();
    }
    parts.join("::")
}

/// The code before the unit tests, comments left out (a doc link is not an
/// import): what the crate itself imports.
fn without_tests(text: &str) -> String {
    let code = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |i| &text[..i]);
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The path at the start of `rest`: identifiers and `::`.
fn path_at(rest: &str) -> &str {
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The paths a file names: `crate::a::b::C`, each item of
/// `use crate::{a, b::c}`, and `super::x::Y` taken from `module`'s parent.
fn named_paths(text: &str, module: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|p| {
                p.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .take_while(|p| !p.is_empty())
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        if i > 0 && text.as_bytes()[i - 1] == b'$' {
            continue;
        }
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let body = &group[..group.find('}').unwrap_or(group.len())];
            for item in body.split(',') {
                out.push(ident(item.trim()));
            }
        } else {
            out.push(ident(path_at(rest)));
        }
    }
    // `super` is the parent of this module (of a mod.rs's own folder too).
    let mut parent: Vec<String> = module
        .split("::")
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect();
    parent.pop();
    for (i, _) in text.match_indices("super::") {
        if i > 0
            && (text.as_bytes()[i - 1] == b':' || text.as_bytes()[i - 1].is_ascii_alphanumeric())
        {
            continue;
        }
        let rest = &text[i + "super::".len()..];
        let mut full = parent.clone();
        if let Some(group) = rest.strip_prefix('{') {
            let body = &group[..group.find('}').unwrap_or(group.len())];
            for item in body.split(',') {
                let mut f = full.clone();
                f.extend(ident(item.trim()));
                out.push(f);
            }
        } else {
            full.extend(ident(path_at(rest)));
            out.push(full);
        }
    }
    out
}

struct Source {
    /// module → file.
    files: BTreeMap<String, PathBuf>,
    /// module → modules it imports (not its ancestors or descendants).
    edges: BTreeMap<String, BTreeSet<String>>,
}

fn read_source() -> Source {
    read_tree("src")
}

/// The modules of the crate whose source is under `dir`, and their imports.
fn read_tree(dir: &str) -> Source {
    let src = root().join(dir);
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let files: BTreeMap<String, PathBuf> = paths
        .iter()
        .map(|p| (module_of(&src, p), p.clone()))
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, p) in &files {
        let text = std::fs::read_to_string(p).unwrap();
        for path in named_paths(&without_tests(&text), m) {
            let target = (1..=path.len())
                .rev()
                .map(|k| path[..k].join("::"))
                .find(|c| files.contains_key(c));
            let Some(t) = target else { continue };
            let related = t == *m
                || t.is_empty()
                || m.is_empty()
                || t.starts_with(&format!("{m}::"))
                || m.starts_with(&format!("{t}::"));
            if !related {
                edges.entry(m.clone()).or_default().insert(t);
            }
        }
    }
    Source { files, edges }
}

/// The groups of modules that import each other, however far round.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Two modules are in one circle when each reaches the other.
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(m) = todo.pop() {
            for t in edges.get(&m).into_iter().flatten() {
                if seen.insert(t.clone()) {
                    todo.push(t.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        edges.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (m, r) in &reached {
        if !r.contains(*m) || out.iter().any(|c| c.contains(m)) {
            continue;
        }
        let circle: Vec<String> = r
            .iter()
            .filter(|t| reached.get(t).is_some_and(|back| back.contains(*m)))
            .cloned()
            .collect();
        out.push(circle);
    }
    out
}

fn layer(module: &str) -> Option<usize> {
    let top = module.split("::").next().unwrap_or("");
    LAYERS.iter().position(|l| l.contains(&top))
}

#[test]
fn no_two_files_import_each_other() {
    let s = read_source();
    let c = circles(&s.edges);
    assert!(c.is_empty(), "import circles: {c:?}");
}

#[test]
fn the_plugin_has_no_circles() {
    let s = read_tree("qemu-plugin/src");
    assert!(s.files.len() > 5, "the plugin's modules were read");
    let c = circles(&s.edges);
    assert!(c.is_empty(), "import circles in the plugin: {c:?}");
}

/// The step of `profile/` a module of it is in; None for another module.
fn profile_layer(module: &str) -> Option<usize> {
    let step = module.strip_prefix("profile::")?.split("::").next()?;
    let at = PROFILE_LAYERS.iter().position(|l| l.contains(&step));
    Some(at.unwrap_or_else(|| panic!("profile::{step} is in no step: add it to PROFILE_LAYERS")))
}

/// The imports of `s` from a module of `profile/` to a later step.
fn profile_upward(s: &Source) -> Vec<String> {
    let mut upward = Vec::new();
    for (m, targets) in &s.edges {
        let Some(from) = profile_layer(m) else {
            continue;
        };
        for t in targets {
            if profile_layer(t).is_some_and(|to| to > from) {
                upward.push(format!("{m} -> {t}"));
            }
        }
    }
    upward
}

#[test]
fn every_import_in_profile_points_down_its_steps() {
    let s = read_source();
    for m in s.files.keys() {
        profile_layer(m);
    }
    let upward = profile_upward(&s);
    assert!(upward.is_empty(), "imports of a later step: {upward:#?}");
    // The check finds what it looks for.
    let made_up = Source {
        files: BTreeMap::new(),
        edges: [(
            "profile::counter::emulation".to_string(),
            [
                "profile::views::functions".to_string(),
                "profile::measured::work".to_string(),
            ]
            .into(),
        )]
        .into(),
    };
    assert_eq!(
        profile_upward(&made_up),
        ["profile::counter::emulation -> profile::views::functions"]
    );
}

#[test]
fn profile_is_its_steps() {
    let dir = root().join("src/profile");
    let mut top: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert!(
        top.len() <= PROFILE_TOP_MAX,
        "src/profile/ holds {} entries, at most {PROFILE_TOP_MAX}: {top:?}",
        top.len()
    );
    for e in &top {
        let step = e.trim_end_matches(".rs");
        assert!(
            e == "mod.rs" || PROFILE_LAYERS.iter().any(|l| l.contains(&step)),
            "src/profile/{e} is not one of the steps in PROFILE_LAYERS"
        );
    }
    // The steps that hold more than one module are folders.
    for step in ["ground", "measured", "launch", "counter", "views"] {
        assert!(
            dir.join(step).join("mod.rs").is_file(),
            "src/profile/{step}/ is a folder"
        );
    }
}

#[test]
fn every_import_points_down_the_layers() {
    let s = read_source();
    let mut upward = Vec::new();
    for m in s.files.keys().filter(|m| !m.is_empty()) {
        let from = layer(m).unwrap_or_else(|| panic!("{m} is in no layer: add it to LAYERS"));
        for t in s.edges.get(m).into_iter().flatten() {
            let to = layer(t).unwrap_or_else(|| panic!("{t} is in no layer"));
            if to > from {
                upward.push(format!("{m} -> {t}"));
            }
        }
    }
    assert!(upward.is_empty(), "imports of a higher layer: {upward:#?}");
}

/// Whether the line `t` (its indent taken off) starts a function: `fn`
/// after any visibility and qualifiers (`pub(crate)`, `const`, `async`,
/// `unsafe`, `extern "C"`).
fn starts_fn(t: &str) -> bool {
    let mut rest = t;
    loop {
        let before = rest;
        for q in [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
            "extern \"C\" ",
            "extern \"C-unwind\" ",
        ] {
            rest = rest.strip_prefix(q).unwrap_or(rest);
        }
        if rest == before {
            return rest.starts_with("fn ");
        }
    }
}

/// Every Rust file of the workspace's crates, and the build script.
fn workspace_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("build.rs")];
    for dir in [
        "src",
        "qemu-plugin/src",
        "regions/src",
        "counts/src",
        "follow/src",
        "tests",
    ] {
        rust_files(&root().join(dir), &mut files);
    }
    files
}

#[test]
fn long_files_say_why_and_functions_stay_short() {
    let mut problems = Vec::new();
    for f in workspace_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let name = f.strip_prefix(root()).unwrap().display().to_string();
        let header = lines.iter().take(5).any(|l| l.contains("long because"));
        if lines.len() > MAX_FILE_LINES && !header && name.starts_with("src/") {
            problems.push(format!(
                "{name}: {} lines and no 'long because' in its header",
                lines.len()
            ));
        }
        if lines.len() > MAX_COMMAND_LINES && name.starts_with("src/commands/") {
            problems.push(format!(
                "{name}: a command file of {} lines: move the work into the library",
                lines.len()
            ));
        }
        let max_fn = match name.starts_with("tests/") {
            true => MAX_TEST_FN_LINES,
            false => MAX_FN_LINES,
        };
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            let is_fn = starts_fn(t);
            // A declaration (its signature, however many lines, ends with
            // ';'), or a body on one line.
            let signature_end = lines[i..]
                .iter()
                .map(|x| x.trim_end())
                .find(|x| x.ends_with('{') || x.ends_with(';') || x.ends_with('}'));
            if !is_fn || signature_end.is_none_or(|x| x.ends_with(';')) || t.ends_with('}') {
                continue;
            }
            let indent = l.len() - t.len();
            let close = format!("{}}}", " ".repeat(indent));
            let end = lines[i..]
                .iter()
                .position(|x| *x == close || x.starts_with(&format!("{close} ")))
                .map(|k| i + k);
            if let Some(e) = end
                && e - i + 1 > max_fn
            {
                problems.push(format!(
                    "{name}:{}: a function of {} lines",
                    i + 1,
                    e - i + 1
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_checks_find_what_they_look_for() {
    // A circle and an upward import, made up.
    let mut e: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    e.entry("results::apps".into())
        .or_default()
        .insert("results::check".into());
    e.entry("results::check".into())
        .or_default()
        .insert("results::apps".into());
    e.entry("results::view".into())
        .or_default()
        .insert("results::check".into());
    assert_eq!(
        circles(&e),
        vec![vec![
            "results::apps".to_string(),
            "results::check".to_string()
        ]]
    );
    assert!(layer("results::sweep") < layer("validate::verdict"));
    let p = named_paths(
        "use crate::{machine::Level, results};\nuse super::check::Entry;\nlet x = crate::units::num(1.0);",
        "results::apps",
    );
    assert!(p.contains(&vec!["machine".to_string(), "Level".to_string()]));
    assert!(p.contains(&vec![
        "results".to_string(),
        "check".to_string(),
        "Entry".to_string()
    ]));
    assert!(p.contains(&vec!["units".to_string(), "num".to_string()]));
    for f in [
        "fn a() {",
        "pub(super) extern \"C\" fn on_translate(_id: u64) {",
        "pub unsafe extern \"C\" fn qemu_plugin_install(",
        "const fn n() -> u8 {",
    ] {
        assert!(starts_fn(f), "{f}");
    }
    assert!(!starts_fn("let fn_count = 1;") && !starts_fn("pub struct Fn {"));
}

/// The items of a Markdown page: table rows, numbered items, headings and
/// paragraphs, each with the lines that continue it.
fn items(page: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in page.lines() {
        let t = line.trim_start();
        let starts = t.is_empty()
            || t.starts_with('|')
            || t.starts_with('#')
            || t.split_once(". ")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok());
        if starts || out.is_empty() {
            out.push(String::new());
        }
        let last = out.last_mut().unwrap();
        last.push_str(t);
        last.push(' ');
    }
    out
}

/// Whether `page` names the source file `rel` (relative to the workspace):
/// a crate's file by its path, one of `src/` by its name in an item that
/// names its folder.
fn names_module(page: &str, items: &[String], rel: &str) -> bool {
    let Some(inner) = rel.strip_prefix("src/") else {
        return page.contains(rel);
    };
    let (dir, file) = inner.rsplit_once('/').unwrap_or(("", inner));
    let folder = dir.rsplit('/').next().unwrap_or("");
    items.iter().any(|i| {
        i.contains(&format!("`{file}`"))
            || i.contains(&format!("/{file}`"))
            || i.contains(&format!("`{file}"))
    }) && (dir.is_empty()
        || items.iter().any(|i| {
            i.contains(&format!("{folder}/"))
                && (i.contains(&format!("`{file}`")) || i.contains(&format!("{folder}/{file}")))
        }))
}

#[test]
fn every_module_is_named_in_the_layout_page() {
    let page = std::fs::read_to_string(root().join("docs/layout.md")).unwrap();
    let all = items(&page);
    let mut missing = Vec::new();
    for dir in [
        "src",
        "qemu-plugin/src",
        "regions/src",
        "counts/src",
        "follow/src",
    ] {
        let mut files = Vec::new();
        rust_files(&root().join(dir), &mut files);
        for f in files {
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            if !names_module(&page, &all, &rel) {
                missing.push(rel);
            }
        }
    }
    assert!(missing.is_empty(), "not in docs/layout.md: {missing:#?}");
    // The check finds what it looks for.
    let made_up = "1. **`chart/`**: `carm.rs` (the chart).\n2. `other.rs`\n";
    let it = items(made_up);
    assert!(names_module(made_up, &it, "src/chart/carm.rs"));
    assert!(!names_module(made_up, &it, "src/chart/other.rs"));
    assert!(!names_module(made_up, &it, "src/chart/legend.rs"));
}
