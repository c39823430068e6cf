#!/usr/bin/env python3
"""Targets of the simulated caches (`carmbench profile --traffic`), measured on this machine.

1. Traffic: tests/programs/stream.c reading (and once writing) a working set of half this machine's
   L1, half its L2, half its L3 and three times its L3 (sizes from `carmbench topology`), each run R
   and 2R times; the difference over R is one repetition's traffic, printed per level as a share of
   the footprint, with every line simulated (sample 1) and one in 8 (the default): the sampling
   error is the largest difference between the two. The DRAM-sized stream's DRAM bytes against its
   footprint show what leaving the prefetchers out costs a stream (nothing: a stream reads each line
   once either way).
2. Cost, in one run: the workloads of scripts/workloads (numpy_mix.py on Debian's numpy, gzip of
   30 MB, a triad over 120 MB of arrays, on one thread and on two) under QEMU with the counting
   plugin, plain, with the caches simulated one line in 8 (`--traffic`'s default) and every line,
   and under Valgrind's cachegrind simulating every access with the same L1 and last level; RUNS
   times each, medians. Targets: one line in 8 at most 1.5x the plain run; every line no slower
   than cachegrind. Cachegrind's last level has a power-of-two number of sets: the L3's, rounded
   down.
3. With `--against PATH` (another build of the plugin) instead: the same workloads, one line in 8
   and every line, under each plugin in turn, RUNS times each, medians and their ratio.

Needs gcc, qemu-user and valgrind (`bash scripts/setup.sh --tests`) and `cargo build --release
--workspace`.
Usage: scripts/bench-traffic.py [--runs N] [--only cost] [--plugin PATH] [--against PATH]
"""

import argparse
import os
import shutil
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import cost_workloads, median_time  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "carmbench")
PROGRAMS = os.path.join(ROOT, "tests", "programs")
PLUGIN = os.path.join(ROOT, "target", "release", "libcarmbench_qemu_plugin.so")
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def geometry():
    """{level: (size in bytes, ways)} of L1d, L2 and L3, from `carmbench topology`."""
    out = subprocess.run([BIN, "topology"], capture_output=True, text=True, check=True).stdout
    found = {}
    for m in re.finditer(r"^(L1d|L2|L3)\s+(\d+) (\S+)\s+\d+ B\s+(\d+)-way", out, re.M):
        found[m.group(1)] = (int(m.group(2)) * UNITS[m.group(3)], int(m.group(4)))
    return found


def caches():
    g = geometry()
    return g["L1d"][0], g["L2"][0], g["L3"][0]


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


def traffic(tmp):
    """Each level's traffic per repetition of streams sized to fit it, every line and one in 8."""
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


def cost(tmp, runs, plugin):
    """Plain, one line in 8, every line, and cachegrind on three workloads: medians and ratios."""
    # The caches `profile --traffic` simulates, as carmbench decides them (`carmbench topology`).
    out = subprocess.run([BIN, "topology"], capture_output=True, text=True, check=True).stdout
    default = re.search(r"\(plugin spec (\S+)\)", out).group(1)
    spec = lambda sample: default.rsplit(":", 1)[0] + f":{sample}"
    g = geometry()
    (l1, w1), (l3, w3) = g["L1d"], g["L3"]
    sets = l3 // (w3 * 64)
    l3 = (1 << (sets.bit_length() - 1)) * w3 * 64
    workloads = cost_workloads(tmp)
    print(f"== cost, {runs} runs each, medians (caches {spec(8)}; cachegrind --D1={l1},{w1},64 "
          f"--LL={l3},{w3},64; plugin {plugin})")
    print(f"{'workload':16} {'native':>7} {'QEMU':>7} {'plain':>7} {'1 in 8':>7} {'every':>7} {'cachegr.':>8}"
          f"  {'plain/nat':>9} {'8/plain':>7} {'every/cg':>8}")
    for name, cmd in workloads:
        out = tempfile.mkdtemp(dir=tmp)
        emu = ["qemu-x86_64", "-plugin", f"file={plugin},out={out}"] + cmd
        env = lambda sample: dict(os.environ, CARMBENCH_CACHE=spec(sample)) if sample else None
        t = {"native": median_time(cmd, runs), "qemu": median_time(["qemu-x86_64"] + cmd, runs),
             "plain": median_time(emu, runs), "8": median_time(emu, runs, env(8)),
             "1": median_time(emu, runs, env(1)),
             "cg": median_time(["valgrind", "--tool=cachegrind", "--cache-sim=yes",
                                "--cachegrind-out-file=/dev/null", f"--D1={l1},{w1},64",
                                f"--LL={l3},{w3},64"] + cmd, runs)}
        print(f"{name:16} {t['native']:7.2f} {t['qemu']:7.2f} {t['plain']:7.2f} {t['8']:7.2f} {t['1']:7.2f} "
              f"{t['cg']:8.2f}  {t['plain'] / t['native']:8.1f}x {t['8'] / t['plain']:6.2f}x "
              f"{t['1'] / t['cg']:7.2f}x")
        shutil.rmtree(out)


def against(tmp, runs, plugin, other):
    """One line in 8 and every line under `plugin` and `other`, in turn: medians and ratios."""
    out = subprocess.run([BIN, "topology"], capture_output=True, text=True, check=True).stdout
    default = re.search(r"\(plugin spec (\S+)\)", out).group(1)
    print(f"== cost, {runs} runs each, medians: {plugin} against {other}")
    print(f"{'workload':16} {'sample':>6} {'this':>7} {'other':>7} {'ratio':>6}")
    for name, cmd in cost_workloads(tmp):
        for sample in (8, 1):
            env = dict(os.environ, CARMBENCH_CACHE=default.rsplit(":", 1)[0] + f":{sample}")
            t = {}
            for k, p in (("this", plugin), ("other", other)):
                out = tempfile.mkdtemp(dir=tmp)
                t[k] = median_time(["qemu-x86_64", "-plugin", f"file={p},out={out}"] + cmd, runs, env)
                shutil.rmtree(out)
            print(f"{name:16} {sample:>6} {t['this']:7.2f} {t['other']:7.2f} {t['this'] / t['other']:6.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=["cost"])
    ap.add_argument("--plugin", default=PLUGIN, help="the counting plugin to time (another build, to compare)")
    ap.add_argument("--against", help="another build of the plugin to time beside --plugin")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["gcc", "-O2", "-fopenmp", "-o", os.path.join(tmp, "stream"),
                        os.path.join(PROGRAMS, "stream.c")], check=True)
        subprocess.run(["gcc", "-O2", "-mfma", "-o", os.path.join(tmp, "triad"),
                        os.path.join(PROGRAMS, "triad.c")], check=True)
        if a.against:
            return against(tmp, a.runs, os.path.abspath(a.plugin), os.path.abspath(a.against))
        if a.only != "cost":
            traffic(tmp)
        cost(tmp, a.runs, os.path.abspath(a.plugin))


if __name__ == "__main__":
    main()
