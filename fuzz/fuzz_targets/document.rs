//! Fuzz target: see `carmbench::fuzzing::document`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| carmbench::fuzzing::document(data));
