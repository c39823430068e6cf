#!/usr/bin/env bash
# Installs the Debian packages carmbench needs, or says how:
#   setup.sh            the main job
#   setup.sh --tests    the test suite as well
#   setup.sh --aarch64  the AArch64 cross tools (scripts/test-aarch64.sh)
# Called by scripts/carm.sh, scripts/test.sh and scripts/test-aarch64.sh; safe to
# run on its own. Quiet: nothing when everything is here, else one line per group
# of packages; the package manager's own output goes to a log named on failure.
set -euo pipefail

# "what they are for|packages". The main job: hwloc headers, libudev (hwlocality
# links -ludev), pkg-config (finds hwloc), fonts (text in PNG charts), binutils
# (objdump, for the kernel disassembly tests).
groups=("the main job|libhwloc-dev libudev-dev pkg-config binutils fonts-dejavu-core")
for arg in "$@"; do
    case $arg in
    --tests)
        # gcc builds the programs profiled (python3 launches some of them,
        # as users' scripts do; numpy on OpenBLAS picks its kernels by CPU),
        # qemu-user runs them under the counting plugin, Valgrind's cachegrind is the reference for the
        # simulated caches, chromium opens the report, Slurm with munge runs a cluster of 4 nodes on this
        # machine (scripts/slurm-local.sh), Open MPI and MPICH build and launch the MPI programs profiled
        # (Open MPI stays Debian's default mpicc and mpirun).
        groups+=("programs to profile|gcc libc6-dev python3 python3-numpy libopenblas0"
            "emulation|qemu-user"
            "the cache simulation's reference|valgrind"
            "the browser test|chromium chromium-driver"
            "the Slurm test|slurmctld slurmd slurm-client munge"
            "the MPI tests|openmpi-bin libopenmpi-dev mpich libmpich-dev")
        ;;
    --aarch64)
        groups+=("AArch64 cross tools|gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user")
        ;;
    *)
        echo "carmbench setup: unknown option $arg; give --tests or --aarch64" >&2
        exit 2
        ;;
    esac
done

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# What is missing, group by group.
todo=() all=()
for g in "${groups[@]}"; do
    missing=()
    for p in ${g#*|}; do
        installed "$p" || [[ " ${all[*]-} " == *" $p "* ]] || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        todo+=("${g%%|*}|${missing[*]}")
        all+=("${missing[@]}")
    fi
done

if [ ${#all[@]} -gt 0 ]; then
    retry="apt-get update && apt-get install -y ${all[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "carmbench setup: missing Debian packages: ${all[*]}" >&2
        echo "run as root:  sudo sh -c '$retry'" >&2
        exit 1
    fi
    log=${TMPDIR:-/tmp}/carmbench-setup.log
    : >"$log"
    fail() {
        echo "carmbench setup: $1 failed; the last lines of $log:" >&2
        tail -n 12 "$log" | sed 's/^/    /' >&2
        echo "retry as root:  $retry" >&2
        exit 1
    }
    echo "carmbench setup: installing Debian packages (apt-get's output: $log)" >&2
    apt-get update >>"$log" 2>&1 || fail "apt-get update"
    for t in "${todo[@]}"; do
        echo "  for ${t%%|*}: ${t#*|}" >&2
        # shellcheck disable=SC2086 # a list of package names
        DEBIAN_FRONTEND=noninteractive apt-get install -y ${t#*|} \
            >>"$log" 2>&1 || fail "installing ${t#*|}"
    done
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "carmbench setup: cargo not found; install Rust (https://rustup.rs) and run again" >&2
    exit 1
fi
