//! A results document as a file: written as YAML or JSON, read back with
//! its schema and every field checked ([`super::check`]).

use super::{Document, SCHEMA, check};
use crate::error::{Error, Result};
use std::path::Path;

/// The formats a results document is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DocFormat {
    /// YAML (carm.yaml).
    #[default]
    Yaml,
    /// JSON (carm.json).
    Json,
}

impl DocFormat {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            DocFormat::Yaml => "yaml",
            DocFormat::Json => "json",
        }
    }

    /// The format a file's name says: JSON for `.json`, else YAML.
    pub fn of_path(path: &Path) -> DocFormat {
        match path.extension() {
            Some(e) if e.eq_ignore_ascii_case("json") => DocFormat::Json,
            _ => DocFormat::Yaml,
        }
    }

    /// Any serializable document as text in this format.
    pub fn encode<T: serde::Serialize>(self, doc: &T) -> Result<String> {
        match self {
            DocFormat::Json => serde_json::to_string_pretty(doc)
                .map(|s| s + "\n")
                .map_err(|e| Error::Io(format!("cannot encode JSON: {e}"))),
            DocFormat::Yaml => serde_yaml::to_string(doc)
                .map_err(|e| Error::Io(format!("cannot encode YAML: {e}"))),
        }
    }
}

/// Save a document.
pub fn save(doc: &Document, path: &Path, format: DocFormat) -> Result<()> {
    crate::files::write_atomic(path, &format.encode(doc)?)
}

/// Load a results document (YAML or JSON), checking its schema version
/// and every field ([`check::results`]).
pub fn load(path: &Path) -> Result<Document> {
    let what = format!("results file '{}'", path.display());
    parse(&crate::files::read_input(path, &what)?, &what)
}

/// The sections a results file keeps after its roofs, in the order this
/// version writes them.
const AFTER_ROOFS: [&str; 5] = ["validation:", "curves:", "coissue:", "sweeps:", "gpus:"];

/// A results file's machine, plan and roofs, without what follows its roofs
/// (validation points, curves, co-issue, sweeps): what `fleet` reads of
/// thousands of files. Those sections are cut from the text before parsing
/// when they follow the roofs at the top level, as this version writes
/// them; a file laid out otherwise is read whole.
pub fn load_roofs(path: &Path) -> Result<Document> {
    let what = format!("results file '{}'", path.display());
    let text = crate::files::read_input(path, &what)?;
    let mut d = parse(up_to_roofs_end(&text), &what)?;
    d.validation.clear();
    Ok(d)
}

/// A results file's text up to the first section after its roofs (see
/// [`load_roofs`]); the whole text when there is none.
pub fn up_to_roofs_end(text: &str) -> &str {
    // A key at a line's start is a top-level key: its index is a char boundary.
    let top = |key: &str| {
        text.match_indices(key)
            .map(|(i, _)| i)
            .find(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n')
    };
    let cut = top("roofs:").and_then(|r| {
        AFTER_ROOFS
            .iter()
            .filter_map(|k| top(k))
            .filter(|&i| i > r)
            .min()
    });
    &text[..cut.unwrap_or(text.len())]
}

/// A YAML value as a message shows it: on one line, at most 40 characters.
fn shown(v: &serde_yaml::Value) -> String {
    let t = serde_yaml::to_string(v).unwrap_or_default();
    let t = t.trim().replace('\n', " ");
    match t.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &t[..i]),
        None => t,
    }
}

/// A results document from its text; `doc` names it in errors.
pub fn parse(text: &str, doc: &str) -> Result<Document> {
    if text.trim().is_empty() {
        return Err(Error::input(format!(
            "{doc} is empty; give a file written by `carmbench run`"
        )));
    }
    crate::config::check_depth(text, doc)?;
    // One typed pass when the file is what this version writes (a fleet
    // reads thousands); the schema then read from a generic pass, for the
    // error that names what is wrong.
    if let Ok(d) = serde_yaml::from_str::<Document>(text)
        && d.schema == SCHEMA
    {
        check::results(&d, doc)?;
        return Ok(d);
    }
    let v: serde_yaml::Value = crate::config::parse_yaml(text, doc)?;
    if v.get("applications").is_some() && v.get("roofs").is_none() {
        return Err(Error::input(format!(
            "{doc} is an apps file (from `carmbench profile`), not results; give it with --apps and the results file (carm.yaml) as the argument"
        )));
    }
    match v.get("schema") {
        Some(s) if s.as_u64() == Some(u64::from(SCHEMA)) => {}
        Some(s) if s.as_u64().is_some() => {
            return Err(Error::input(format!(
                "{doc} has schema {}, this carmbench reads schema {SCHEMA}; re-run `carmbench run` or use the matching carmbench version",
                s.as_u64().unwrap_or_default()
            )));
        }
        Some(s) => {
            return Err(Error::input(format!(
                "{doc} has schema {}, not a version number; give a file written by `carmbench run`",
                shown(s)
            )));
        }
        None => {
            return Err(Error::input(format!(
                "{doc} is not a carmbench results file (no 'schema' key); give a file written by `carmbench run`"
            )));
        }
    }
    let d: Document = crate::config::parse_yaml(text, doc)?;
    check::results(&d, doc)?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Mix;
    use crate::machine::isa::Isa;
    use crate::machine::level::Level;
    use crate::results::{CoIssue, Curve, CurvePoint};

    #[test]
    fn files_before_the_memory_curve_load_and_the_new_fields_round_trip() {
        // The Zen 5 file from before curves, plateaus and co-issue.
        let text = include_str!("../../tests/fixtures/zen5-avx512.yaml");
        assert!(!text.contains("curves:") && !text.contains("plateau"));
        let mut d = parse(text, "zen5").unwrap();
        assert!(d.curves.is_empty() && d.coissue.is_empty());
        assert!(
            d.roofs
                .iter()
                .all(|r| r.plateau.is_none() && r.knee_bytes.is_none())
        );
        assert_eq!(d.plan.roof_from, crate::config::plan::RoofFrom::Median);
        // Written again with them, read back the same.
        let r = d.roofs.iter_mut().find(|r| r.level.is_some()).unwrap();
        r.plateau = Some([64 << 10, 512 << 10]);
        r.knee_bytes = Some(768 << 10);
        let (isa, mix) = (r.isa, r.mix.unwrap());
        d.curves = vec![Curve {
            isa,
            mix,
            threads: 1,
            points: vec![CurvePoint {
                bytes_per_thread: 64 << 10,
                gb_per_s: 200.0,
                per_cycle: 50.0,
                level: Level::L2,
            }],
        }];
        d.coissue = vec![CoIssue::zen5_stores_beside_fmas(isa)];
        let back = parse(&serde_yaml::to_string(&d).unwrap(), "again").unwrap();
        assert_eq!(back.curves, d.curves);
        assert_eq!(back.coissue, d.coissue);
        assert_eq!(back.roofs, d.roofs);
    }

    #[test]
    fn load_roofs_reads_machine_and_roofs_and_skips_what_follows() {
        let dir = std::env::temp_dir().join(format!("carmbench-roofs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("carm.yaml");
        let mut d = crate::fixture();
        d.curves = vec![Curve {
            isa: Isa::Avx512,
            mix: Mix::Load,
            threads: 1,
            points: Vec::new(),
        }];
        std::fs::write(&f, serde_yaml::to_string(&d).unwrap()).unwrap();
        let r = load_roofs(&f).unwrap();
        assert_eq!((r.roofs, r.machine), (d.roofs.clone(), d.machine.clone()));
        assert!(r.curves.is_empty() && r.validation.is_empty());
        // A damaged section after the roofs is not read; a damaged roof is.
        let text = std::fs::read_to_string(&f).unwrap();
        std::fs::write(&f, format!("{text}sweeps: 7\n")).unwrap();
        assert!(load_roofs(&f).is_ok() && load(&f).is_err());
        std::fs::write(&f, text.replacen("per_cycle: ", "per_cycle: -", 1)).unwrap();
        assert!(
            load_roofs(&f)
                .unwrap_err()
                .to_string()
                .contains("per_cycle")
        );
        // Laid out otherwise (the roofs last): read whole.
        let v: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let mut m = serde_yaml::Mapping::new();
        for k in [
            "curves",
            "schema",
            "tool",
            "created_unix",
            "interrupted",
            "machine",
            "plan",
            "buffer_ranges",
            "roofs",
        ] {
            if let Some(x) = v.get(k) {
                m.insert(k.into(), x.clone());
            }
        }
        std::fs::write(&f, serde_yaml::to_string(&m).unwrap()).unwrap();
        assert_eq!(load_roofs(&f).unwrap().roofs, d.roofs);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
