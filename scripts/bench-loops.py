#!/usr/bin/env python3
"""Targets of `carmbench profile --loops`, measured on this machine.

1. Time shares: tests/programs/loops.c runs two loop nests one after the other (an L1-resident FMA
   loop, then a DRAM-sized triad). Each nest alone (the other's repetitions 0) is timed natively,
   RUNS times, medians less an empty run's: the expected share of each loop. `profile --loops` of
   both gives each loop's share of the samples; target: within 10 points of the expected.
2. Cost: the emulated run of `profile --counts emulate` against `profile --counts emulate --loops`,
   RUNS times each, medians and their ratio (target: at most 1.2x), for loops.c and for gzip of 20 MB
   (branchy code, many small blocks).

Needs gcc, gzip and qemu-user (`bash scripts/setup.sh --tests`) and `cargo build --release
--workspace`. Usage: scripts/bench-loops.py [--runs N]
"""

import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "carmbench")
PROGRAMS = os.path.join(ROOT, "tests", "programs")
# M R1 N R2: the two nests take about as long as each other natively here.
SIZES = (1024, 200_000, 4_000_000, 40)


def timed(cmd, runs):
    """The median wall time of `cmd`, seconds."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def emulated(args, runs, cwd):
    """The median emulated-run seconds `profile` reports."""
    out = []
    for _ in range(runs):
        r = subprocess.run(
            [BIN, "profile", "--counts", "emulate", "-o", "b.yaml", *args],
            cwd=cwd, capture_output=True, text=True, check=True,
        )
        out.append(float(re.search(r"emulated run ([0-9.]+) s", r.stdout).group(1)))
    return statistics.median(out)


def shares(work, runs):
    exe = os.path.join(work, "loops")
    subprocess.run(["gcc", "-O2", "-mfma", "-g", "-o", exe, os.path.join(PROGRAMS, "loops.c")], check=True)
    m, r1, n, r2 = SIZES
    empty = timed([exe, str(m), "0", str(n), "0"], runs)
    first = timed([exe, str(m), str(r1), str(n), "0"], runs) - empty
    second = timed([exe, str(m), "0", str(n), str(r2)], runs) - empty
    want = first / (first + second)
    got = []
    for _ in range(runs):
        subprocess.run(
            [BIN, "profile", "--counts", "emulate", "--loops", "-o", "s.yaml", "--", exe, *map(str, SIZES)],
            cwd=work, capture_output=True, check=True,
        )
        pts = yaml.safe_load(open(os.path.join(work, "s.yaml")))["applications"]
        inner = {p["loop"]["entries"]: p["function"]["share"] for p in pts
                 if p.get("loop") and p["loop"]["depth"] == 2 and p["name"].startswith("compute")}
        got.append(inner[r1] / (inner[r1] + inner[r2]))
        os.remove(os.path.join(work, "s.yaml"))
    g = statistics.median(got)
    print(f"time shares: first nest alone {first:.3f} s, second {second:.3f} s: expected share of the first "
          f"{100 * want:.1f} %; --loops gives {100 * g:.1f} % (median of {runs}): {100 * abs(g - want):.1f} points apart")


def cost(work, runs):
    exe = os.path.join(work, "loops")
    big = os.path.join(work, "big.txt")
    with open(big, "wb") as f:
        f.write(os.urandom(15_000_000).hex().encode())
    for name, cmd in [("loops.c", [exe, "1024", "100000", "8000000", "10"]),
                      ("gzip 30 MB", ["sh", "-c", f"gzip -c {big} > /dev/null"])]:
        plain = emulated(["--", *cmd], runs, work)
        loops = emulated(["--loops", "--", *cmd], runs, work)
        print(f"cost, {name}: emulated run {plain:.2f} s, with --loops {loops:.2f} s: {loops / plain:.2f}x (medians of {runs})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        shares(work, a.runs)
        cost(work, a.runs)


if __name__ == "__main__":
    main()
