#!/usr/bin/env bash
# Draws the charts the README shows (docs/carm.png, docs/carm-curve.png) from a real run of the default plan with
# validation on this machine. Run it on a quiet machine and commit the picture.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release
out=target/docs-run
./target/release/carmbench run --validate -o "$out"
cp "$out/carm.png" docs/carm.png
cp "$out/carm-curve.png" docs/carm-curve.png
echo "docs/carm.png and docs/carm-curve.png drawn from $out/carm.yaml"
