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
tests=0
for arg in "$@"; do
    case $arg in
    --tests)
        tests=1
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
            "the MPI tests|openmpi-bin libopenmpi-dev mpich libmpich-dev"
            "pip, for NVIDIA's ptxas and nvdisasm|python3-pip")
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

# The GPU kernels' machine-code test needs NVIDIA's ptxas and nvdisasm, not a GPU: the CUDA
# toolkit's, or pip's (looked for where tests/common/parts.rs looks).
cuda_tool() {
    command -v "$1" >/dev/null 2>&1 || [ -x "/usr/local/cuda/bin/$1" ] ||
        python3 -c 'import glob, os, sys
sys.exit(0 if any(glob.glob(os.path.join(p, "nvidia", "*", "bin", sys.argv[1])) for p in sys.path) else 1)' "$1" 2>/dev/null
}
if [ "$tests" -eq 1 ] && ! { cuda_tool ptxas && cuda_tool nvdisasm; }; then
    pip_install="python3 -m pip install --quiet nvidia-cuda-nvcc nvidia-cuda-nvdisasm"
    if [ "$(id -u)" -ne 0 ]; then
        echo "carmbench setup: NVIDIA's ptxas and nvdisasm are missing (for the GPU kernels' test)" >&2
        echo "run:  $pip_install" >&2
        exit 1
    fi
    echo "carmbench setup: installing NVIDIA's ptxas and nvdisasm (pip)" >&2
    # Debian's own Python refuses installs beside its packages unless told.
    $pip_install 2>/dev/null || $pip_install --break-system-packages || {
        echo "carmbench setup: pip could not install them; retry as root:  $pip_install" >&2
        exit 1
    }
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "carmbench setup: cargo not found; install Rust (https://rustup.rs) and run again" >&2
    exit 1
fi
