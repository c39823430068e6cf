#!/usr/bin/env bash
# The test suite: installs what is missing, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --release "$@"
