//! Configuration: the benchmark plan and the theoretical limits, both kept
//! as YAML in `configs/` and embedded in the binary.

pub mod choice;
pub mod cpus;
pub mod limits;
pub mod plan;

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;

/// The deepest flow nesting (`[` and `{`) a document may have. carmbench's
/// own documents nest 3 deep; the YAML parser's time grows with the square of
/// the depth, so a file of brackets would stall every reader.
pub const MAX_FLOW_DEPTH: usize = 64;

/// The line of the first place `text` nests flow collections past `limit`,
/// if any. Quoted text and comments are skipped; a bracket inside a plain
/// word (`a[1]`) opens nothing.
pub fn too_deep(text: &str, limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (n, line) in text.lines().enumerate() {
        // The last character, and the last one that is not a space.
        let (mut last, mut word) = (' ', '\n');
        let mut quote = None;
        for c in line.chars() {
            match (quote, c) {
                (Some(q), _) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '#') if last.is_whitespace() => break,
                (None, '[' | '{') if depth > 0 || matches!(word, '\n' | ':' | '-' | ',') => {
                    depth += 1;
                    if depth > limit {
                        return Some(n + 1);
                    }
                }
                (None, ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            last = c;
            if !c.is_whitespace() {
                word = c;
            }
        }
    }
    None
}

/// Refuse a text nested past [`MAX_FLOW_DEPTH`] before any parser sees it.
pub fn check_depth(text: &str, what: &str) -> Result<()> {
    match too_deep(text, MAX_FLOW_DEPTH) {
        Some(line) => Err(Error::input(format!(
            "{what} nests [ or {{ more than {MAX_FLOW_DEPTH} deep at line {line}: not a file carmbench wrote; give the right file"
        ))),
        None => Ok(()),
    }
}

/// Parse YAML, turning serde's error into one line that says where.
pub fn parse_yaml<T: DeserializeOwned>(text: &str, what: &str) -> Result<T> {
    check_depth(text, what)?;
    serde_yaml::from_str(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(" at line {} column {}", l.line(), l.column()))
            .unwrap_or_default();
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        Error::input(format!("{what} is malformed{at}: {msg}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_nesting_is_bounded_before_parsing() {
        let ok = "a: [1, {b: [2, 3]}]\nname: 'x[[[[' # [[[[\nc: a[1] [[\n";
        assert_eq!(too_deep(ok, 3), None);
        assert_eq!(too_deep("a: [[[[1]]]]\n", 3), Some(1));
        assert_eq!(too_deep("x: 1\n- [\n  [\n   [\n    [1]]]]\n", 3), Some(5));
        let deep = "[".repeat(400_000);
        let t = std::time::Instant::now();
        let e = parse_yaml::<serde_yaml::Value>(&deep, "file 'f'").unwrap_err();
        assert!(e.to_string().contains("more than 64 deep at line 1"), "{e}");
        assert!(t.elapsed().as_secs_f64() < 1.0, "{:?}", t.elapsed());
    }
}
