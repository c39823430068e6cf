//! The document readers against bad bytes, on the stable toolchain: every
//! crash `scripts/fuzz.sh` ever found (fuzz/regressions/), and a short
//! smoke of each fuzz target on mutated seeds (fuzz/seeds/). The long,
//! coverage-guided runs are `scripts/fuzz.sh`'s.

use carmbench::fuzzing;
use std::path::Path;
use std::time::{Duration, Instant};

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 5] = [
    ("plan", fuzzing::plan),
    ("results", fuzzing::results),
    ("apps", fuzzing::apps),
    ("regions", fuzzing::regions),
    ("document", fuzzing::document),
];

/// The files of `fuzz/<dir>/<target>`.
fn files(dir: &str, target: &str) -> Vec<Vec<u8>> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(dir)
        .join(target);
    let mut v: Vec<_> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    v.sort();
    v.into_iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn every_crash_found_so_far_stays_mended() {
    for (name, target) in TARGETS {
        for input in files("regressions", name) {
            target(&input);
        }
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `seed` with a few random edits: bytes flipped, dropped, repeated, or
/// taken from a list of troublesome tokens.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    const TOKENS: [&[u8]; 12] = [
        b"-5.0",
        b".nan",
        b".inf",
        b"-.inf",
        b"1e308",
        b"0",
        b"null",
        b"[",
        b"{",
        b"- ",
        b": ",
        b"18446744073709551616",
    ];
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let end = (at + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            3 if !v.is_empty() => {
                let start = at.min(v.len() - 1);
                let end = (start + rng.below(64)).min(v.len());
                let part = v[start..end].to_vec();
                v.splice(at..at, part);
            }
            _ => {
                let b = rng.next() as u8;
                v.insert(at, b);
            }
        }
    }
    v
}

#[test]
fn each_target_survives_mutated_seeds() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (name, target) in TARGETS {
        let seeds = files("seeds", name);
        assert!(!seeds.is_empty(), "seeds of {name}");
        let start = Instant::now();
        let mut runs = 0;
        while start.elapsed() < Duration::from_millis(1500) || runs < 200 {
            let s = &seeds[rng.below(seeds.len())];
            target(&mutate(s, &mut rng));
            runs += 1;
        }
        // The seeds themselves are read without complaint.
        for s in &seeds {
            target(s);
        }
    }
}
