#!/usr/bin/env bash
# Installs what carmbench needs on Debian, or says how: `setup.sh` for the
# main job, `setup.sh --tests` for the test suite as well.
# Sourced by scripts/carm.sh and scripts/test.sh; safe to run on its own.
set -euo pipefail

# The main job: hwloc headers, libudev (hwlocality links -ludev), pkg-config
# (finds hwloc), fonts-dejavu-core (text in PNG charts); binutils (objdump)
# for the kernel disassembly tests.
CARMBENCH_PACKAGES=(libhwloc-dev libudev-dev pkg-config binutils fonts-dejavu-core)
# The tests: gcc builds the programs profiled, qemu-user runs them under the
# counting plugin, chromium (driven by chromium-driver) opens the report, and
# Slurm with munge runs a cluster of 4 nodes on this machine for fleet mode
# (scripts/slurm-local.sh starts and stops it).
if [ "${1:-}" = "--tests" ]; then
    CARMBENCH_PACKAGES+=(gcc libc6-dev qemu-user chromium chromium-driver
        slurmctld slurmd slurm-client munge)
fi

missing=()
for p in "${CARMBENCH_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    cmd="apt-get update && apt-get install -y ${missing[*]}"
    if [ "$(id -u)" -eq 0 ]; then
        echo "carmbench setup: installing ${missing[*]}" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
    else
        echo "carmbench setup: missing Debian packages: ${missing[*]}" >&2
        echo "run as root:  sudo sh -c '$cmd'" >&2
        exit 1
    fi
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "carmbench setup: cargo not found; install Rust (https://rustup.rs) and run again" >&2
    exit 1
fi
