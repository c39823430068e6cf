#!/usr/bin/env bash
# The main job: installs what is missing, builds, and measures the CARM of this
# machine with the embedded default plan, validates it and draws the chart
# (carm-results/carm.yaml, carm.svg, carm.png).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release
./target/release/carmbench run --validate "$@"
