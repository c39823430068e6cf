#!/usr/bin/env python3
"""Targets of `carmbench profile --timeline`, measured on this machine.

1. Cost: the emulated run of `profile --counts emulate` against the same with `--timeline`, RUNS
   times each, medians and their ratio (target: at most 1.10x), for tests/programs/phases.c (three
   phases, few blocks), gzip of 30 MB (branchy code, many small blocks) and the numpy script of
   tests/programs/numpy_phases.py (the interpreter and numpy: the most blocks a snapshot walks).
2. Boundaries: phases.c prints when each of its phases began; `--timeline`'s phase boundaries
   against them, as a share of the run (target: 5 %), the median of RUNS runs. The same for the
   numpy script's steps, and how often each step lies at least half in one phase (the test's
   rule). Run it again beside two `yes > /dev/null` to see a loaded machine.

Needs gcc, gzip, qemu-user and Debian's python3-numpy (`bash scripts/setup.sh --tests`) and `cargo
build --release --workspace`. Usage: scripts/bench-timeline.py [--runs N]
"""

import argparse
import os
import re
import statistics
import subprocess
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "carmbench")
PROGRAMS = os.path.join(ROOT, "tests", "programs")
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OPENBLAS_CORETYPE="Sandybridge")


def profile(args, cwd):
    """`profile --counts emulate ARGS` in `cwd`: its stdout and stderr."""
    r = subprocess.run([BIN, "profile", "--counts", "emulate", "-o", "t.yaml", *args],
                       cwd=cwd, capture_output=True, text=True, check=True, env=ENV)
    return r.stdout, r.stderr


def emulated(args, runs, cwd):
    """The median emulated-run seconds `profile` reports."""
    out = []
    for _ in range(runs):
        stdout, _ = profile(args, cwd)
        out.append(float(re.search(r"emulated run ([0-9.]+) s", stdout).group(1)))
    return statistics.median(out)


def cost(work, exe, runs):
    big = os.path.join(work, "big.txt")
    with open(big, "wb") as f:
        f.write(os.urandom(15_000_000).hex().encode())
    script = os.path.join(PROGRAMS, "numpy_phases.py")
    for name, cmd in [("phases.c", [exe, "4000000", "30"]),
                      ("gzip 30 MB", ["sh", "-c", f"gzip -c {big} > /dev/null"]),
                      ("numpy_phases.py", ["/usr/bin/python3", script])]:
        plain = emulated(["--", *cmd], runs, work)
        timeline = emulated(["--timeline", "--", *cmd], runs, work)
        print(f"cost, {name}: emulated run {plain:.2f} s, with --timeline {timeline:.2f} s: "
              f"{timeline / plain:.3f}x (medians of {runs})")


def boundaries(work, exe, runs):
    errors = []
    for _ in range(runs):
        os.path.exists(os.path.join(work, "t.yaml")) and os.remove(os.path.join(work, "t.yaml"))
        _, stderr = profile(["--timeline", "--", exe, "4000000", "30"], work)
        own = [float(x) for x in re.search(r"^phases (.*)$", stderr, re.M).group(1).split()]
        pts = yaml.safe_load(open(os.path.join(work, "t.yaml")))["applications"]
        starts = sorted(p["phase"]["start"] for p in pts if p.get("phase"))
        if len(starts) != 3:
            print(f"boundaries: {len(starts)} phases, not 3")
            continue
        errors.append(max(abs(s - o) for s, o in zip(starts[1:], own[1:3])) / own[3])
    print(f"boundaries, phases.c: the farther boundary {100 * statistics.median(errors):.2f} % of the run "
          f"from the program's own stamp (median of {len(errors)}; target 5 %)")


def numpy_steps(work, runs):
    """numpy_phases.py's four stamps (each step's start, then the end) against the nearest phase
    boundary, as a share of the run; and whether each step lies at least half in one phase (the
    test's rule)."""
    script = os.path.join(PROGRAMS, "numpy_phases.py")
    errors, held = [], 0
    for _ in range(runs):
        _, stderr = profile(["--timeline", "--", "/usr/bin/python3", script], work)
        own = [float(x) for x in re.search(r"^steps (.*)$", stderr, re.M).group(1).split()]
        pts = yaml.safe_load(open(os.path.join(work, "t.yaml")))["applications"]
        spans = sorted((p["phase"]["start"], p["phase"]["end"]) for p in pts if p.get("phase"))
        run = spans[-1][1]
        cuts = [a for a, _ in spans[1:]]
        errors.append(max(min(abs(c - t) for c in cuts) for t in own) / run)
        held += all(max(min(e, b) - max(s, a) for a, b in spans) >= 0.5 * (e - s)
                    for s, e in zip(own, own[1:]))
    print(f"boundaries, numpy: the farthest step {100 * statistics.median(errors):.1f} % of the run "
          f"from a phase boundary (median of {runs}); each step at least half in one phase in "
          f"{held} of {runs}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        exe = os.path.join(work, "phases")
        subprocess.run(["gcc", "-O2", "-g", "-o", exe, os.path.join(PROGRAMS, "phases.c")], check=True)
        boundaries(work, exe, a.runs)
        numpy_steps(work, a.runs)
        cost(work, exe, a.runs)


if __name__ == "__main__":
    main()
