#!/usr/bin/env python3
"""Targets of the simulated caches (`carmbench profile --traffic`), measured on this machine.

1. Traffic: tests/programs/stream.c reading (and once writing) a working set of half this machine's
   L1, half its L2, half its L3 and three times its L3 (sizes from `carmbench topology`), each run R
   and 2R times; the difference over R is one repetition's traffic, printed per level as a share of
   the footprint, with every line simulated (sample 1) and one in 8 (the default): the sampling
   error is the largest difference between the two. The DRAM-sized stream's DRAM bytes against its
   footprint show what leaving the prefetchers out costs a stream (nothing: a stream reads each line
   once either way).
2. Cost: the triad of tests/programs/triad.c over 512 MiB of arrays, `profile --counts emulate` with
   and without --traffic (sample 8 and 1), RUNS times each: the emulated runs' medians and their
   ratio (target: <= 3x the plain emulated run).

Needs gcc and qemu-user (`bash scripts/setup.sh --tests`) and `cargo build --release --workspace`.
Usage: scripts/bench-traffic.py [--runs N]
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
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def caches():
    out = subprocess.run([BIN, "topology"], capture_output=True, text=True, check=True).stdout
    sizes = {}
    for m in re.finditer(r"^(L1d|L2|L3)\s+(\d+) (\S+)", out, re.M):
        sizes[m.group(1)] = int(m.group(2)) * UNITS[m.group(3)]
    return sizes["L1d"], sizes["L2"], sizes["L3"]


def profile(tmp, args, traffic=None):
    apps = os.path.join(tmp, "apps.yaml")
    if os.path.exists(apps):
        os.remove(apps)
    cmd = [BIN, "profile", "--counts", "emulate", "-o", apps]
    if traffic is not None:
        cmd += ["--traffic", "--traffic-sample", str(traffic)]
    p = subprocess.run(cmd + ["--", *map(str, args)], capture_output=True, text=True, check=True,
                       cwd=tmp)
    emulated = float(re.search(r"emulated run (\S+) s", p.stdout).group(1))
    point = yaml.safe_load(open(apps))["applications"][0]
    return emulated, point


def per_rep(tmp, mode, n, r, sample):
    def traffic(reps):
        t = profile(tmp, ["./stream", mode, 1, n, reps], sample)[1]["traffic"]
        return [t[lv][rw] for lv in ("L2", "L3", "DRAM") for rw in ("read", "write")]
    a, b = traffic(r), traffic(2 * r)
    return [(y - x) / (8 * n * r) for x, y in zip(a, b)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["gcc", "-O2", "-fopenmp", "-o", os.path.join(tmp, "stream"),
                        os.path.join(PROGRAMS, "stream.c")], check=True)
        subprocess.run(["gcc", "-O2", "-mfma", "-o", os.path.join(tmp, "triad"),
                        os.path.join(PROGRAMS, "triad.c")], check=True)
        l1, l2, l3 = caches()
        print(f"== traffic per repetition, share of the footprint (L1d {l1}, L2 {l2}, L3 {l3} bytes)")
        print(f"{'kernel':<22} {'sample':>6} " + " ".join(f"{h:>8}" for h in
              ("L2 rd", "L2 wr", "L3 rd", "L3 wr", "DRAM rd", "DRAM wr")))
        worst = 0.0
        for name, mode, size, r in [("read, fits L1", "read", l1 // 2, 400),
                                    ("read, fits L2", "read", l2 // 2, 40),
                                    ("read, fits L3", "read", max(l3 // 2, 2 * l2), 4),
                                    ("read, DRAM", "read", 3 * l3, 2),
                                    ("write, fits L3", "write", max(l3 // 2, 2 * l2), 4)]:
            rows = {k: per_rep(tmp, mode, size // 8, r, k) for k in (1, 8)}
            for k, t in rows.items():
                print(f"{name:<22} {k:>6} " + " ".join(f"{x:8.3f}" for x in t))
            worst = max(worst, max(abs(x - y) for x, y in zip(rows[1], rows[8])))
            if name == "read, DRAM":
                print(f"   DRAM bytes read per repetition / footprint: {rows[1][4]:.3f} (every line), "
                      f"{rows[8][4]:.3f} (one in 8)")
        print(f"sampling error (one line in 8 against every line): at most {100 * worst:.2f} % "
              "of the footprint per repetition")
        n = (512 << 20) // 24
        print(f"== cost: triad over 512 MiB of arrays ({n} doubles each), 2 repetitions, {a.runs} runs")
        times = {}
        for label, t in [("plain", None), ("--traffic (1 in 8)", 8), ("--traffic (every line)", 1)]:
            times[label] = statistics.median(profile(tmp, ["./triad", n, 2], t)[0] for _ in range(a.runs))
        for label, s in times.items():
            print(f"{label:<24} emulated run {s:7.2f} s  ({s / times['plain']:.2f}x the plain one)")


if __name__ == "__main__":
    main()
