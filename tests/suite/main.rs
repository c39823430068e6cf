//! The integration tests that need nothing beside Rust, in one binary: one
//! link of the crate instead of one per file. Each file keeps its own module
//! (tests/NAME.rs); the tests that need QEMU, Chromium or Slurm, the fuzzing
//! replay and the AArch64 ones are binaries of their own (Cargo.toml).

#[path = "../common/mod.rs"]
mod common;

#[path = "../bad_input.rs"]
mod bad_input;
#[path = "../chart_apps.rs"]
mod chart_apps;
#[path = "../cli_errors.rs"]
mod cli_errors;
#[path = "../compare_cli.rs"]
mod compare_cli;
#[path = "../damaged_files.rs"]
mod damaged_files;
#[path = "../kernel_disasm.rs"]
mod kernel_disasm;
#[path = "../layout.rs"]
mod layout;
#[path = "../live_machine.rs"]
mod live_machine;
#[path = "../plot_cli.rs"]
mod plot_cli;
#[path = "../profile_cli.rs"]
mod profile_cli;
#[path = "../profile_gpu.rs"]
mod profile_gpu;
#[path = "../profile_points.rs"]
mod profile_points;
#[path = "../profile_runs.rs"]
mod profile_runs;
#[path = "../report_cli.rs"]
mod report_cli;
#[path = "../run_cli.rs"]
mod run_cli;
#[path = "../sizing.rs"]
mod sizing;
#[path = "../validate_cli.rs"]
mod validate_cli;
