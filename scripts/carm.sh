#!/usr/bin/env bash
# The main job: installs what is missing, builds, and measures the CARM of this
# machine with the embedded default plan (results in carm-results/carm.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release
./target/release/carmbench run "$@"
