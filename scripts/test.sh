#!/usr/bin/env bash
# The test suite: installs what is missing, checks formatting and lints
# (a warning fails), builds the workspace (the tests run the counting plugin
# and the regions library beside carmbench), runs every test, then the
# AArch64 kernels cross-built and run under emulation
# (scripts/test-aarch64.sh). The API documentation must build without a
# warning (a broken link or a stray tag fails here).
#
# Tests that need a part beside Rust (QEMU, Chromium, Slurm) look for it when
# they run: missing, they print `skipped: TEST: ...` and count as ignored,
# never passed (under CI they fail). The last line sums up every stage:
#   tests: N passed, N failed, N skipped
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests || exit 1

log=$(mktemp "${TMPDIR:-/tmp}/carmbench-tests.XXXXXX")
trap 'rm -f "$log"' EXIT
status=0
stage() {
    "$@" 2>&1 | tee -a "$log"
    local s=${PIPESTATUS[0]}
    [ "$s" -eq 0 ] || { [ "$status" -ne 0 ] || status=$s; echo "test.sh: failed: $*" | tee -a "$log"; }
}

stage cargo fmt --all --check
[ "$status" -eq 0 ] && stage cargo clippy --release --workspace --all-targets --features carmbench/fuzzing --quiet -- -D warnings
[ "$status" -eq 0 ] && stage cargo build --release --workspace --all-targets --features carmbench/fuzzing
[ "$status" -eq 0 ] && stage cargo test --release --workspace --features carmbench/fuzzing --no-fail-fast "$@"
[ "$status" -eq 0 ] && RUSTDOCFLAGS="-D warnings" stage cargo doc --no-deps --workspace --quiet
[ "$status" -eq 0 ] && stage bash scripts/test-aarch64.sh

# The sum of every harness's "test result:" line; skips named by their part.
read -r passed failed ignored < <(awk '/^test result:/ {
        for (i = 1; i <= NF; i++) {
            if ($(i+1) ~ /^passed;?$/) p += $i
            if ($(i+1) ~ /^failed;?$/) f += $i
            if ($(i+1) ~ /^ignored;?$/) g += $i
        }
    } END { print p + 0, f + 0, g + 0 }' "$log")
parts=$(sed -n 's/^skipped: [^:]*: \(.*\) is not installed .*/\1/p; s/^test-aarch64: skipped: //p' "$log" | sort -u)
# A stage skipped whole (the AArch64 one without its cross tools) counts once.
ignored=$((ignored + $(grep -c '^test-aarch64: skipped: ' "$log")))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1 # a stage that failed outside a test harness (a build, the docs)
fi
if [ -n "$parts" ]; then
    echo "missing parts (their tests were skipped, not passed):"
    echo "$parts" | sed 's/^/    /'
fi
echo "tests: $passed passed, $failed failed, $ignored skipped"
exit "$status"
