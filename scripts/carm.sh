#!/usr/bin/env bash
# The main job: installs what is missing, builds, and shows this machine as
# carmbench sees it (becomes the CARM run once `carmbench run` lands).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release
./target/release/carmbench topology "$@"
