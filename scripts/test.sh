#!/usr/bin/env bash
# The test suite: installs what is missing, builds the workspace (the tests
# run the counting plugin and the regions library beside carmbench), then
# runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
cargo build --release --workspace --all-targets
cargo test --release --workspace "$@"
