#!/usr/bin/env bash
# The AArch64 kernels, cross-built and tested under emulation on an x86-64 machine:
# installs what it needs (the Rust target, Debian's gcc-aarch64-linux-gnu, binutils for
# aarch64 and qemu-user), makes a private arm64 sysroot (libc, hwloc, udev: downloaded with
# apt-get into target/, unpacked with dpkg-deb, never installed through multiarch), then runs
#   - every kernel, a few iterations each, its results read back (tests/aarch64_kernels.rs),
#     without SVE (cortex-a72) and at SVE vector lengths of 128, 256, 512 and 2048 bits;
#   - the declared counts against aarch64-linux-gnu-objdump (tests/kernel_disasm_aarch64.rs);
#   - `carmbench topology` and `carmbench run --quick --levels L1` end to end (the figures
#     mean nothing under emulation; the pipeline must work).
# Called by .ci/run after the x86-64 tests. Where a part cannot be had it says so in one
# line and exits 0 with "skipped" (under CI, 1): nothing is counted as passed.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
work=$PWD/target/aarch64-sysroot
sysroot=$work/root

skip() {
    echo "test-aarch64: skipped: $1"
    # Under CI a part that cannot be had fails the run: CI never passes without it.
    if [ -n "${CI:-}" ] && [ "${CI}" != false ] && [ "${CI}" != 0 ]; then exit 1; fi
    exit 0
}
[ "$(uname -m)" = aarch64 ] && skip "this machine is AArch64: scripts/test.sh ran its kernels natively"

bash scripts/setup.sh --aarch64
rustup target list --installed 2>/dev/null | grep -qx "$target" ||
    rustup target add "$target" >/dev/null 2>&1 ||
    skip "the Rust target $target cannot be installed (rustup target add $target failed)"

# The sysroot: arm64 libraries from Debian's archive, in a private apt state.
if [ ! -e "$sysroot/usr/lib/aarch64-linux-gnu/libhwloc.so" ]; then
    rm -rf "$work"
    mkdir -p "$work"/apt/{lists/partial,cache/archives/partial} "$work/debs" "$sysroot"
    touch "$work/apt/status"
    apt_opts=(-o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
        -o "Dir::State::Status=$work/apt/status" -o APT::Architecture=arm64
        -o APT::Architectures=arm64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root -qq)
    apt-get "${apt_opts[@]}" update >/dev/null 2>&1 ||
        skip "Debian's arm64 package lists cannot be fetched (apt-get update for arm64 failed)"
    (cd "$work/debs" && apt-get "${apt_opts[@]}" download libc6 libgcc-s1 libhwloc15 \
        libhwloc-dev libudev1 libudev-dev >/dev/null 2>&1) ||
        skip "the arm64 libraries cannot be downloaded (apt-get download failed)"
    for d in "$work"/debs/*.deb; do dpkg-deb -x "$d" "$sysroot"; done
fi

libdir=$sysroot/usr/lib/aarch64-linux-gnu
export PKG_CONFIG_ALLOW_CROSS=1
export PKG_CONFIG_SYSROOT_DIR=$sysroot
export PKG_CONFIG_LIBDIR=$libdir/pkgconfig:$sysroot/usr/share/pkgconfig
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C link-arg=-L$libdir -C link-arg=-Wl,-rpath-link=$libdir"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $sysroot"
# The disassembly test reads its own binary with the aarch64 objdump.
export CARMBENCH_OBJDUMP=aarch64-linux-gnu-objdump

tests=(--test aarch64_kernels --test kernel_disasm_aarch64)
cargo build --release --target "$target" -p carmbench --bin carmbench "${tests[@]}"

# Every kernel without SVE, then at each SVE vector length (bytes).
for cpu in cortex-a72 max,sve-default-vector-length=16 max,sve-default-vector-length=32 \
    max,sve-default-vector-length=64 max,sve-default-vector-length=256; do
    echo "test-aarch64: kernels on -cpu $cpu"
    QEMU_CPU=$cpu cargo test --release --target "$target" -p carmbench "${tests[@]}" -q
done

# End to end under emulation.
bin=target/$target/release/carmbench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
QEMU_CPU=max,sve-default-vector-length=32 qemu-aarch64 -L "$sysroot" "$bin" topology
QEMU_CPU=max,sve-default-vector-length=32 qemu-aarch64 -L "$sysroot" "$bin" run --quick \
    --levels L1 --isa all -o "$out"
grep -q "isa: sve" "$out/carm.yaml" && grep -q "isa: neon" "$out/carm.yaml" ||
    { echo "test-aarch64: the run measured no SVE or no NEON roof" >&2; exit 1; }
echo "test-aarch64: passed"
