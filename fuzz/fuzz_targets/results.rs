//! Fuzz target: see `carmbench::fuzzing::results`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| carmbench::fuzzing::results(data));
