#!/usr/bin/env bash
# The test suite: installs what is missing, builds the workspace (the tests
# run the counting plugin and the regions library beside carmbench), then
# runs every test, then the AArch64 kernels cross-built and run under
# emulation (scripts/test-aarch64.sh). The API documentation must build
# without a warning (a broken link or a stray tag fails here).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
cargo build --release --workspace --all-targets
cargo test --release --workspace "$@"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --quiet
bash scripts/test-aarch64.sh
