//! Fuzz target: see `carmbench::fuzzing::plan`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| carmbench::fuzzing::plan(data));
