#!/usr/bin/env python3
"""Why do DRAM validation points near the ridge fall under min(P, AI x B)?  A probe.

On the Emerald Rapids data (docs/evidence.md, "DRAM validation around the ridge") the load-mix
points between a tenth of the ridge and the ridge deliver 9-41 % less than the DRAM roof. This
probe measures, on one core of this machine and from a DRAM-sized buffer (the top of the 1-thread
DRAM range of `carmbench topology`), the GB/s each variant delivers, as a ratio to the roof's own
bare load kernel measured in the same rounds:

1. `load, paced form`: the same loads with vector integer adds beside them, whose rate a DRAM
   roof records when it is clearly faster.
2. `load, core 1 busy`: the bare load kernel while the next core runs the FMA roof's kernel
   (`--first-core 1`). A loss here is shared by the cores (uncore clock, package power), not
   made by the core's own instructions.
3. `dp_v_load_fma J,K`: the validation kernel, K FMA units beside J memory units, plain and with
   its prefetching twin (`_pf`, each line prefetched 4 KiB ahead), with the flops each 64-byte
   line carries. The twin keeps more lines in flight whatever the FP work beside them.
4. `dp_v_load_addmul`: ADDs and MULs instead of FMAs, as many instructions per line as the FMA shape
   above it (half its flops: an FMA is two flops a lane), so the two differ in what the
   instructions are, not in how many there are beside each line.

Variants are alternated within each round (the host's DRAM bandwidth moves from minute to
minute); the table gives medians over RUNS rounds.
Needs `cargo build --release`. Usage: scripts/probe-ridge.py [--runs N] [--isa avx512|avx2]
"""

import argparse
import os
import re
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "carmbench")
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
FMA_SHAPES = [(1, 1), (1, 2), (1, 3), (1, 4), (1, 6), (1, 8)]


def dram_bytes():
    out = subprocess.run([BIN, "topology"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^\s*DRAM\s+[\d.]+ \S+ \.\. ([\d.]+) (\S+)", out, re.M)
    cores = int(re.search(r"cores (\d+)", out).group(1))
    return int(float(m.group(1)) * UNITS[m.group(2)]), cores


def kernel(name, nbytes, shape=None, core=0, samples=11):
    cmd = [BIN, "kernel", name, "--bytes", str(nbytes), "--samples", str(samples),
           "--first-core", str(core)]
    if shape:
        cmd += ["--shape", "%d,%d" % shape]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    fields = dict(re.findall(r"(\w+)=([^\s]+)", out))
    value = float(fields["median"])
    ai = fields["ai"]
    return value if ai == "-" else value / float(ai)  # GB/s either way


def intensity(name, shape):
    """The kernel's flop/byte at `shape`, as it reports it (from its declaration)."""
    out = subprocess.run([BIN, "kernel", name, "--shape", "%d,%d" % shape, "--samples", "1",
                          "--min-ms", "0.1"], capture_output=True, text=True, check=True).stdout
    return float(re.search(r"ai=([\d.]+)", out).group(1))


def runnable(name):
    p = subprocess.run([BIN, "kernel", name, "--samples", "1"], capture_output=True, text=True)
    return p.returncode == 0


def beside(busy, nbytes, name):
    """GB/s of `name` on core 0 while core 1 runs the kernel `busy` without pause."""
    other = subprocess.Popen([BIN, "kernel", busy, "--first-core", "1", "--samples", "1000",
                              "--min-ms", "50"], stdout=subprocess.DEVNULL)
    try:
        return kernel(name, nbytes)
    finally:
        other.kill()
        other.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--isa", choices=["avx512", "avx2"])
    a = ap.parse_args()
    isa = a.isa or ("avx512" if runnable("avx512_dp_fma") else "avx2")
    nbytes, cores = dram_bytes()
    variants = [("load (the roof's bare kernel)", lambda: kernel(f"{isa}_load", nbytes), 0),
                ("load, paced form", lambda: kernel(f"{isa}_load_paced", nbytes), 0)]
    if cores > 1:
        variants.append(("load, core 1 busy with FMAs",
                         lambda: beside(f"{isa}_dp_fma", nbytes, f"{isa}_load"), 0))
    # Flops a 64-byte line carries follow from each kernel's own intensity (its
    # declaration); an FMA is 2 flops a lane, an ADD or a MUL 1, so an addmul shape with half
    # the FMA shape's intensity has as many FP instructions beside each line.
    fma, addmul = f"{isa}_dp_v_load_fma", f"{isa}_dp_v_load_addmul"
    for j, k in FMA_SHAPES:
        flops = 64 * intensity(fma, (j, k))
        for name in (fma, fma + "_pf"):
            variants.append((f"{name[len(isa) + 1:]} {j},{k}",
                             lambda n=name, s=(j, k): kernel(n, nbytes, s), flops))
        same = [(j, m) for m in range(1, 4 * k + 1)
                if abs(128 * intensity(addmul, (j, m)) - flops) < 1e-9]
        for s2 in same[:1]:
            variants.append((f"dp_v_load_addmul {s2[0]},{s2[1]}",
                             lambda s=s2: kernel(addmul, nbytes, s), flops))
    rates = {v[0]: [] for v in variants}
    for r in range(a.runs):
        for label, measure, _ in variants:
            rates[label].append(measure())
        print(f"round {r + 1} of {a.runs} done", flush=True)
    base = statistics.median(rates[variants[0][0]])
    print(f"\n{isa}, 1 thread on core 0, {nbytes >> 20} MiB, median of {a.runs} rounds")
    print(f"{'variant':34} {'flop/line':>9} {'GB/s':>7} {'/ load':>7}  (rounds)")
    for label, _, flops in variants:
        med = statistics.median(rates[label])
        each = " ".join(f"{x:.1f}" for x in rates[label])
        print(f"{label:34} {flops:9.0f} {med:7.2f} {med / base:7.3f}  ({each})")


if __name__ == "__main__":
    main()
