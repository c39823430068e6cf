//! Fuzz target: see `carmbench::fuzzing::regions`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| carmbench::fuzzing::regions(data));
