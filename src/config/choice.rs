//! The words a plan file or a flag names what to measure with, as types:
//! an ISA or "best"/"all", a level or "all", a thread count or "all", and
//! list items that may be "none". Each reads from and writes to the text a
//! user types (clap through `FromStr`, YAML through serde), so a wrong word
//! is refused where it is read, with the words that would do.

use crate::kernels::{Mix, Op, Precision};
use crate::machine::Level;
use crate::machine::isa::Isa;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Serde through the type's text (`Display` and `FromStr`).
macro_rules! via_text {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = Text::deserialize(d)?;
                text.0.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}

/// A scalar as text: numbers too, so `threads: [1, all]` reads.
struct Text(String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u64),
            S(String),
        }
        Ok(Text(match Raw::deserialize(d)? {
            Raw::N(n) => n.to_string(),
            Raw::S(s) => s,
        }))
    }
}

/// An ISA as a plan names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsaChoice {
    /// The widest this CPU runs.
    Best,
    /// Every one this CPU runs.
    All,
    /// This one.
    One(Isa),
}

impl FromStr for IsaChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "best" => Ok(IsaChoice::Best),
            "all" => Ok(IsaChoice::All),
            w => w
                .parse()
                .map(IsaChoice::One)
                .map_err(|e| format!("{e}, best, all")),
        }
    }
}

impl fmt::Display for IsaChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IsaChoice::Best => f.write_str("best"),
            IsaChoice::All => f.write_str("all"),
            IsaChoice::One(i) => write!(f, "{i}"),
        }
    }
}

/// A memory level as a plan names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelChoice {
    /// Every level the machine has.
    All,
    /// This one.
    One(Level),
}

impl FromStr for LevelChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim().eq_ignore_ascii_case("all") {
            Ok(LevelChoice::All)
        } else {
            Level::parse(s).map(LevelChoice::One)
        }
    }
}

impl fmt::Display for LevelChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LevelChoice::All => f.write_str("all"),
            LevelChoice::One(l) => write!(f, "{l}"),
        }
    }
}

/// A thread count as a plan names it (one thread per core).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// One per core.
    All,
    /// This many.
    N(usize),
}

impl FromStr for Threads {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("all") {
            return Ok(Threads::All);
        }
        t.parse()
            .map(Threads::N)
            .map_err(|_| format!("thread count '{s}' is not a number or 'all'"))
    }
}

impl fmt::Display for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Threads::All => f.write_str("all"),
            Threads::N(n) => write!(f, "{n}"),
        }
    }
}

/// An item of a list of mixes, ops or precisions: a value, or "none" (or
/// nothing), so `--ops none` asks for no FP roof.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed<T>(pub Option<T>);

impl<T: FromStr<Err = String>> FromStr for Listed<T> {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("none") {
            Ok(Listed(None))
        } else {
            t.parse().map(|v| Listed(Some(v)))
        }
    }
}

impl<T: fmt::Display> fmt::Display for Listed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(v) => write!(f, "{v}"),
            None => f.write_str("none"),
        }
    }
}

via_text!(
    IsaChoice,
    LevelChoice,
    Threads,
    Listed<Mix>,
    Listed<Op>,
    Listed<Precision>
);

/// The values of a list, its "none" items left out.
pub fn values<T: Copy>(items: &[Listed<T>]) -> Vec<T> {
    items.iter().filter_map(|i| i.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_and_write_as_users_type_them() {
        let isas: Vec<IsaChoice> = serde_yaml::from_str("[best, all, AVX2]").unwrap();
        assert_eq!(
            isas,
            [IsaChoice::Best, IsaChoice::All, IsaChoice::One(Isa::Avx2)]
        );
        let t: Vec<Threads> = serde_yaml::from_str("[1, all, '4']").unwrap();
        assert_eq!(t, [Threads::N(1), Threads::All, Threads::N(4)]);
        assert_eq!(serde_yaml::to_string(&t).unwrap(), "- '1'\n- all\n- '4'\n");
        let l: Vec<LevelChoice> = serde_yaml::from_str("[all, l2, DRAM]").unwrap();
        assert_eq!(l[1], LevelChoice::One(Level::L2));
        let ops: Vec<Listed<Op>> = serde_yaml::from_str("[fma, none]").unwrap();
        assert_eq!(values(&ops), [Op::Fma]);
        let e = serde_yaml::from_str::<Vec<Listed<Mix>>>("[copy]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown mix 'copy'"), "{e}");
        let e = "many".parse::<Threads>().unwrap_err();
        assert!(e.contains("'many'"), "{e}");
        let e = "avx1024".parse::<IsaChoice>().unwrap_err();
        assert!(
            e.contains("unknown ISA 'avx1024'") && e.ends_with("best, all"),
            "{e}"
        );
    }
}
