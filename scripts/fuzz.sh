#!/usr/bin/env bash
# Fuzzes every document reader of carmbench (carmbench::fuzzing: plan, results, apps, regions,
# document) with libFuzzer through cargo-fuzz on the nightly toolchain, RUNS executions each
# (default 1,000,000), starting from fuzz/seeds/<target> and the crashes kept so far. A crash is
# copied into fuzz/regressions/<target>/, where the test suite (tests/fuzz_regressions.rs) replays
# it for good, and the script fails.
# Usage: scripts/fuzz.sh [RUNS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
runs=${1:-1000000}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(plan results apps regions document)
if ! rustup toolchain list | grep -q nightly; then
    echo "fuzz: the nightly toolchain is missing: rustup toolchain install nightly" >&2
    exit 1
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: cargo-fuzz is missing: cargo install cargo-fuzz" >&2
    exit 1
fi
failed=0
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "regressions/$t"
    start=$(date +%s)
    log=$(mktemp)
    if cargo +nightly fuzz run "$t" "corpus/$t" "seeds/$t" "regressions/$t" -- \
        -runs="$runs" -max_len=16384 -timeout=10 -rss_limit_mb=4096 >"$log" 2>&1; then
        echo "$t: $(grep -E '^Done' "$log" | tail -1) ($(( $(date +%s) - start )) s), no crash"
    else
        failed=1
        echo "$t: FAILED after $(( $(date +%s) - start )) s:"
        grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -5
        for f in artifacts/"$t"/*; do
            [ -f "$f" ] && cp "$f" "regressions/$t/" && echo "  kept $f in regressions/$t/"
        done
    fi
    rm -f "$log"
done
exit $failed
