#!/usr/bin/env python3
"""Fleet mode's speed targets, measured on this machine.

1. `carmbench fleet run --quick -N 4` on a Slurm cluster of 4 nodes on this
   machine (scripts/slurm-local.sh; the nodes share its CPUs), RUNS times;
   target <= 60 s each.
2. `carmbench fleet report` over 1,000 node files, each a copy of a results
   file with its values scattered a little (default: a fresh `carmbench run`
   of the default plan, with --validate if asked), REPS times; target <= 2 s.

Medians of the times are printed with every sample.

Usage: scripts/bench-fleet.py [--runs N] [--reps N] [--results FILE] [--validate]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "carmbench")
SLURM = os.path.join(ROOT, "scripts", "slurm-local.sh")


def timed(cmd, env=None):
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--results", help="results file to copy 1,000 times")
    ap.add_argument("--validate", action="store_true", help="the fresh run validates too (larger files)")
    a = ap.parse_args()
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    work = tempfile.mkdtemp(prefix="carmbench-bench-fleet-")
    try:
        slurm_dir = os.path.join(work, "slurm")
        up = subprocess.run(["bash", SLURM, "up", slurm_dir], capture_output=True, text=True)
        if up.returncode != 0:
            sys.exit(f"slurm-local up failed: {up.stderr.strip()}")
        env = dict(os.environ, SLURM_CONF=up.stdout.strip().split("=", 1)[1])
        env.pop("SLURM_JOB_ID", None)
        times = []
        try:
            for i in range(a.runs):
                out = os.path.join(work, f"run{i}")
                times.append(timed([BIN, "fleet", "run", "--quick", "-N", "4", "-o", out], env))
        finally:
            subprocess.run(["bash", SLURM, "down", slurm_dir])
        print(f"fleet run --quick -N 4: {', '.join(f'{t:.1f}' for t in times)} s; median {statistics.median(times):.1f} s (target <= 60 s)")

        src = a.results
        if not src:
            fresh = os.path.join(work, "fresh")
            cmd = [BIN, "run", "-o", fresh] + (["--validate"] if a.validate else [])
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            src = os.path.join(fresh, "carm.yaml")
        text = open(src).read()
        fleet = os.path.join(work, "fleet1000")
        for n in range(1, 1001):
            d = os.path.join(fleet, "nodes", f"n{n:04d}")
            os.makedirs(d)
            with open(os.path.join(d, "carm.yaml"), "w") as f:
                f.write(text)
        reps = [timed([BIN, "fleet", "report", fleet]) for _ in range(a.reps)]
        size = os.path.getsize(src) / 1024
        print(f"fleet report over 1,000 node files of {size:.0f} KB: {', '.join(f'{t:.2f}' for t in reps)} s; median {statistics.median(reps):.2f} s (target <= 2 s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
