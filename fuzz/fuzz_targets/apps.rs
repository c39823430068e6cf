//! Fuzz target: see `carmbench::fuzzing::apps`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| carmbench::fuzzing::apps(data));
