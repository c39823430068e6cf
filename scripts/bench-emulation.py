#!/usr/bin/env python3
"""Targets of counting by emulation (`carmbench profile --counts emulate`), measured on this machine.

1. Cost: a DRAM-sized triad (tests/programs/triad.c, 480 MB of arrays) whose native run lasts about
   a second is profiled RUNS times; prints the native and emulated times carmbench reports, the
   ratio (target: emulated <= 25x native), the whole `profile` command's time (target < 30 s),
   and QEMU alone without the plugin (the counting's own cost).
2. Exactness: every test program (tests/programs/*.c) counted once; W against its hand count
   (target: exact) and Q against its hand count (target: within 0.1 % once the start-up's bytes,
   those of an empty program, are taken off); the two kernels of the STREAM report at their
   analytic intensity (1/16 and 8 flop/byte).
3. What users launch: a bash script running two triads, `sh -c`, a program that forks, Python's
   subprocess, numpy's a@b through python3 (when numpy imports): W and Q against the hand counts
   (targets: W within 0.5 %, Q within 2 %), the emulated / native ratio, and the cost of
   following, against the same programs counted one by one (target: no more than one QEMU start
   per process; QEMU's start with the plugin is timed on /bin/true).
4. Function points (`profile --functions`, tests/programs/functions.c and its library): each
   function's W and Q against its hand count (targets: W within 0.5 %, Q within 2 %), its time share
   from the samples against the program's own clock (target: within 10 points), and the cost of
   sampling: the native run's time with and without it, alternated (target: <= 5 %).

5. Cost across workloads, in one run (scripts/workloads: numpy on OpenBLAS, gzip, a triad on one
   thread and two): native, QEMU alone and QEMU with the counting plugin (and with another build of
   it, --compare PLUGIN), medians of RUNS runs: the plugin's run over the native one (target: at most
   12x on the numpy workload) and over QEMU alone.

Needs gcc and qemu-user (`bash scripts/setup.sh --tests`) and `cargo build --release --workspace`.
Usage: scripts/bench-emulation.py [--runs N] [--only functions|cost] [--compare PLUGIN]
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import cost_workloads, median_time  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "carmbench")
PLUGIN = os.path.join(ROOT, "target", "release", "libcarmbench_qemu_plugin.so")
REGIONS_LIB = os.path.join(ROOT, "target", "release", "libcarmbench_regions.a")
PROGRAMS = os.path.join(ROOT, "tests", "programs")


def gcc(out, src, flags, libs=()):
    subprocess.run(["gcc", *flags, "-I", os.path.join(ROOT, "include"), "-o", out,
                    os.path.join(PROGRAMS, src), *libs, "-lm"], check=True)
    return out


def profile(tmp, exe, args, env=None):
    apps = os.path.join(tmp, "apps.yaml")
    if os.path.exists(apps):
        os.remove(apps)
    t0 = time.monotonic()
    p = subprocess.run([BIN, "profile", "--counts", "emulate", "-o", apps, "--", exe, *map(str, args)],
                       capture_output=True, text=True, check=True, env=env)
    wall = time.monotonic() - t0
    return wall, p.stdout, apps


def apps_points(path):
    """name -> {flops, bytes, and the mix's dp_flops and sp_flops} from an apps file, read without a
    YAML library."""
    pts, name = {}, None
    for line in open(path):
        m = re.match(r"\s*- name: (.*)", line)
        if m:
            name = m.group(1).strip()
            pts[name] = {}
            continue
        m = re.match(r"\s{2}(flops|bytes): ([\d.e+]+)", line) or re.match(r"\s{4}(dp_flops|sp_flops): ([\d.e+]+)", line)
        if m and name:
            pts[name][m.group(1)] = float(m.group(2))
    return pts


def plugin_counts(tmp, exe, args, env=None):
    """W and Q of one program under QEMU with the plugin alone (no preload: its children are not
    followed), from the plugin's one file per process in a fresh folder."""
    out = tempfile.mkdtemp(dir=tmp)
    e = dict(os.environ, **(env or {}))
    subprocess.run(["qemu-x86_64", "-plugin", f"file={PLUGIN},out={out}", exe, *map(str, args)],
                   check=True, stdout=subprocess.DEVNULL, env=e)
    import json
    w = q = 0
    for f in os.listdir(out):
        # Counters that are zero are left out of the file.
        t = json.load(open(os.path.join(out, f)))["total"]
        w += sum(t.get(k, 0) for k in ("dp_fma_flops", "dp_other_flops", "sp_fma_flops", "sp_other_flops"))
        q += t.get("bytes_loaded", 0) + t.get("bytes_stored", 0)
    shutil.rmtree(out)
    return w, q


def profile_cmd(tmp, cmd, runs):
    """`carmbench profile` of a command: medians of (native s, emulated s, W, Q, processes, Q of the
    processes that did FP work)."""
    apps = os.path.join(tmp, "launch.yaml")
    rows = []
    for _ in range(runs):
        if os.path.exists(apps):
            os.remove(apps)
        p = subprocess.run([BIN, "profile", "--counts", "emulate", "-o", apps, "--name", "x", "--", *cmd],
                           capture_output=True, text=True, check=True, cwd=tmp)
        m = re.search(r"(\d+) process\(es\).*native run ([\d.]+) s, emulated run ([\d.]+) s", p.stdout)
        pt = apps_points(apps)["x"]
        # The listed processes (those that did FP work): their bytes without the launchers'.
        working = sum(float(x) for x in re.findall(r"^    bytes: ([\d.e+]+)", open(apps).read(), re.M))
        rows.append((float(m.group(2)), float(m.group(3)), pt["flops"], pt["bytes"], int(m.group(1)),
                     working or pt["bytes"]))
    return [statistics.median(c) for c in zip(*rows)]


def launched(tmp, runs):
    print(f"\n== what users launch (medians of {runs} runs; hand counts from tests/programs)")
    N, R = 4_000_000, 10
    triad = gcc(os.path.join(tmp, "triad"), "triad.c", ["-O2", "-mfma"])
    fork = gcc(os.path.join(tmp, "fork"), "fork.c", ["-O2", "-mfma"])
    script = os.path.join(tmp, "two.sh")
    open(script, "w").write(f"#!/bin/bash\n./triad {N} {R}\n./triad {N} {R}\n")
    os.chmod(script, 0o755)
    t0 = time.monotonic()
    for _ in range(5):
        subprocess.run(["qemu-x86_64", "-plugin", f"file={PLUGIN},out={tempfile.mkdtemp(dir=tmp)}", "/bin/true"],
                       check=True)
    start = (time.monotonic() - t0) / 5
    print(f"QEMU's start with the plugin (/bin/true): {start * 1000:.0f} ms")
    one = profile_cmd(tmp, ["./triad", str(N), str(R)], runs)
    print(f"one triad alone: native {one[0]:.3f} s, emulated {one[1]:.3f} s ({one[1] / one[0]:.1f}x)")
    w_tr, q_tr = 2 * N * R, 24 * N * R + 24 * N
    cases = [
        ("bash script, two triads", ["./two.sh"], 2 * w_tr, 2 * q_tr, 2 * one[1]),
        ("sh -c, two triads", ["sh", "-c", f"./triad {N} {R}; ./triad {N} {R}"], 2 * w_tr, 2 * q_tr, 2 * one[1]),
        ("fork (R, then 2R in the child)", ["./fork", str(N), str(R)], 3 * w_tr, 72 * N * R + 48 * N, None),
        ("python3 subprocess, one triad",
         [sys.executable, "-c", f"import subprocess; subprocess.run(['./triad', '{N}', '{R}'])"], w_tr, q_tr,
         None),
    ]
    print("Q error: the whole command (launchers' own bytes in it), then the processes that did FP work")
    print(f"{'command':34} {'procs':>5} {'W error':>9} {'Q error':>9} {'workers':>9} {'native s':>9} "
          f"{'emulated s':>10} {'ratio':>6} {'following costs':>16}")
    for label, cmd, w_hand, q_hand, alone in cases:
        nat, emu, w, q, procs, qw = profile_cmd(tmp, cmd, runs)
        extra = f"{emu - alone:+.2f} s" if alone else ""
        print(f"{label:34} {procs:5.0f} {100 * (w / w_hand - 1):8.3f}% {100 * (q / q_hand - 1):8.3f}% "
              f"{100 * (qw / q_hand - 1):8.3f}% {nat:9.3f} {emu:10.3f} {emu / nat:6.1f} {extra:>16}")
    has_numpy = subprocess.run([sys.executable, "-c", "import numpy"], capture_output=True).returncode == 0
    if not has_numpy:
        print(f"numpy: not importable by {sys.executable} (pip install numpy): skipped")
        return
    n = 500
    code = f"import numpy as np; a = np.ones(({n}, {n})); b = np.ones(({n}, {n})); [a @ b for _ in range(4)]"
    nat, emu, w, q, procs, _ = profile_cmd(tmp, [sys.executable, "-c", code], runs)
    print(f"numpy a@b, n={n}, 4 products through python3: W / (4 x 2n^3) = {w / (4 * 2 * n ** 3):.4f}, "
          f"native {nat:.3f} s, emulated {emu:.3f} s ({emu / nat:.1f}x), {procs:.0f} process(es)")


def functions(tmp, runs):
    print(f"\n== function points (medians of {runs} runs, alternated with plain profiles)")
    lib = os.path.join(tmp, "libcarmfn.so")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", lib, os.path.join(PROGRAMS, "functions_lib.c")],
                   check=True)
    exe = gcc(os.path.join(tmp, "functions"), "functions.c", ["-O2"], [f"-L{tmp}", "-lcarmfn", f"-Wl,-rpath,{tmp}"])
    n, r = 4_000_000, 40
    hand = {"compute": (64 * n // 16 * r, 16 * n // 16 * r), "triad": (2 * n * r, 24 * n * r), "copy": (0, 16 * n * r)}
    apps = os.path.join(tmp, "fn.yaml")
    plain, sampled, rows = [], [], []
    for _ in range(runs):
        for with_functions in (False, True):
            if os.path.exists(apps):
                os.remove(apps)
            more = ["--functions"] if with_functions else []
            p = subprocess.run([BIN, "profile", "--counts", "emulate", *more, "-o", apps, "--name", "fn", "--",
                                exe, str(n), str(r)], capture_output=True, text=True, check=True)
            native = float(re.search(r"native run ([\d.]+) s", p.stdout).group(1))
            (sampled if with_functions else plain).append(native)
            if not with_functions:
                continue
            own = [float(x) for x in re.search(r"seconds compute (\S+) triad (\S+) copy (\S+)", p.stderr).groups()]
            pts = apps_points(apps)
            secs = {}
            for name in hand:
                m = re.search(rf"- name: {name}\n(?:  .*\n)*?  seconds: ([\d.e+-]+)", open(apps).read())
                secs[name] = float(m.group(1))
            samples = int(re.search(r"T: (\d+) samples", p.stdout).group(1))
            rows.append((pts, secs, own, samples))
    cost = statistics.median(sampled) / statistics.median(plain) - 1
    print(f"native run: {statistics.median(plain):.3f} s plain, {statistics.median(sampled):.3f} s sampled "
          f"at 1 kHz: sampling costs {100 * cost:+.1f} % (target <= 5 %); {statistics.median(r[3] for r in rows):.0f} samples")
    print(f"{'function':10} {'W error':>9} {'Q error':>9} {'share sampled':>14} {'share timed':>12} {'points apart':>13}")
    for k, name in enumerate(hand):
        w_hand, q_hand = hand[name]
        # FP flops (a point typed by its integer work has its ops as W).
        fp = lambda p: p.get("dp_flops", 0) + p.get("sp_flops", 0) if "dp_flops" in p else p.get("flops", 0)
        werr = statistics.median((fp(r[0][name]) - w_hand) / max(w_hand, 1) for r in rows)
        qerr = statistics.median((r[0][name]["bytes"] - q_hand) / q_hand for r in rows)
        a = statistics.median(r[1][name] / sum(r[1].values()) for r in rows)
        b = statistics.median(r[2][k] / sum(r[2]) for r in rows)
        print(f"{name:10} {100 * werr:8.3f}% {100 * qerr:8.3f}% {100 * a:13.1f}% {100 * b:11.1f}% {100 * (a - b):+12.1f}")


def cost(tmp, runs, compare):
    """Native, QEMU alone and with the plugin (and with `compare`, another build of it): medians."""
    plugins = [("plugin", PLUGIN)] + ([("compared", os.path.abspath(compare))] if compare else [])
    print(f"== cost across workloads, {runs} runs each, medians; plugin {PLUGIN}"
          + (f", compared {plugins[1][1]}" if compare else ""))
    head = f"{'workload':16} {'native':>7} {'QEMU':>7}" + "".join(f" {n:>9} {'/native':>8} {'/QEMU':>6}"
                                                                  for n, _ in plugins)
    print(head)
    for name, cmd in cost_workloads(tmp):
        native, alone = median_time(cmd, runs), median_time(["qemu-x86_64"] + cmd, runs)
        row = f"{name:16} {native:7.2f} {alone:7.2f}"
        for _, plugin in plugins:
            out = tempfile.mkdtemp(dir=tmp)
            t = median_time(["qemu-x86_64", "-plugin", f"file={plugin},out={out}"] + cmd, runs)
            row += f" {t:9.2f} {t / native:7.1f}x {t / alone:5.2f}x"
            shutil.rmtree(out)
        print(row)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=["functions", "cost"])
    ap.add_argument("--compare", help="another build of the plugin to time beside this one (section 5)")
    a = ap.parse_args()
    for f, what in [(BIN, "cargo build --release --workspace"), (PLUGIN, "cargo build --release --workspace")]:
        if not os.path.exists(f):
            sys.exit(f"{f} missing: {what}")
    if not shutil.which("qemu-x86_64"):
        sys.exit("qemu-x86_64 not found: apt-get install qemu-user")
    tmp = tempfile.mkdtemp(prefix="carmbench-bench-emu-")
    if a.only:
        try:
            {"functions": lambda: functions(tmp, a.runs), "cost": lambda: cost(tmp, a.runs, a.compare)}[a.only]()
        finally:
            shutil.rmtree(tmp)
        return
    try:
        triad = gcc(os.path.join(tmp, "triad"), "triad.c", ["-O2", "-mfma"])
        n = 20_000_000
        t0 = time.monotonic()
        subprocess.run([triad, str(n), "10"], check=True, stdout=subprocess.DEVNULL)
        r = max(1, round(10 / (time.monotonic() - t0)))
        print(f"== cost: DRAM triad, {n} doubles per array (480 MB), {r} repetitions, {a.runs} runs")
        ratios, walls, natives = [], [], []
        for _ in range(a.runs):
            wall, out, _ = profile(tmp, triad, [n, r])
            m = re.search(r"native run ([\d.]+) s, emulated run ([\d.]+) s \(([\d.]+)x\)", out)
            natives.append(float(m.group(1)))
            ratios.append(float(m.group(2)) / float(m.group(1)))
            walls.append(wall)
        t0 = time.monotonic()
        subprocess.run(["qemu-x86_64", triad, str(n), str(r)], check=True, stdout=subprocess.DEVNULL)
        plain = time.monotonic() - t0
        t0 = time.monotonic()
        plugin_counts(tmp, triad, [n, r])
        counted = time.monotonic() - t0
        print(f"native run: median {statistics.median(natives):.2f} s")
        print(f"emulated / native: median {statistics.median(ratios):.1f}x (runs {', '.join(f'{x:.1f}' for x in ratios)}; target <= 25x)")
        print(f"whole `carmbench profile`: median {statistics.median(walls):.1f} s (target < 30 s)")
        print(f"QEMU alone {plain:.2f} s, with the counting plugin {counted:.2f} s: counting adds {100 * (counted / plain - 1):.0f} %")

        print("\n== exactness: W by hand (exact), Q by hand (within 0.1 % after start-up)")
        empty = os.path.join(tmp, "empty.c")
        open(empty, "w").write('#include <stdio.h>\nint main(void) { printf("checksum 0\\n"); return 0; }\n')
        subprocess.run(["gcc", "-O2", "-o", empty[:-2], empty], check=True)
        w0, q0 = plugin_counts(tmp, empty[:-2], [])
        print(f"start-up of an empty program: W {w0}, Q {q0} bytes")
        N, R = 1_000_000, 10
        cases = [
            ("triad -O2 (scalar FMA)", "triad.c", ["-O2", "-mfma"], 2 * N * R, 24 * N * R + 24 * N, {}),
            ("triad -O3 AVX2 FMA", "triad.c", ["-O3", "-mavx2", "-mfma"], 2 * N * R, 24 * N * R + 24 * N, {}),
            ("scalar double adds", "adds.c", ["-O2"], N * R, 8 * N * R + 8 * N, {}),
            ("single precision AVX2 FMA", "sp_triad.c", ["-O3", "-mavx2", "-mfma"], 2 * N * R, 12 * N * R + 12 * N, {}),
            ("memcpy", "memcpy.c", ["-O2"], 0, 2 * N * R + N, {}),
            ("two-thread OpenMP triad", "omp_triad.c", ["-O2", "-mfma", "-fopenmp"], 2 * N * R, 24 * N * R + 24 * N,
             {"OMP_WAIT_POLICY": "passive"}),
        ]
        print(f"{'program':30} {'W':>12} {'W by hand':>12} {'Q - start-up':>14} {'Q by hand':>12} {'Q error':>9}")
        for label, src, flags, w_hand, q_hand, env in cases:
            exe = gcc(os.path.join(tmp, src[:-2]), src, flags)
            w, q = plugin_counts(tmp, exe, [N, R], env)
            err = (q - q0 - q_hand) / q_hand
            print(f"{label:30} {w:12d} {w_hand:12d} {q - q0:14d} {q_hand:12d} {100 * err:8.3f}%  {'exact' if w == w_hand else 'W DIFFERS'}")

        print("\n== the STREAM report's kernels, in regions (tests/programs/regions.c)")
        exe = gcc(os.path.join(tmp, "regions"), "regions.c", ["-O2", "-mfma"], [REGIONS_LIB, "-lpthread", "-ldl"])
        N, R = 500_000, 4
        _, _, apps = profile(tmp, exe, [N, R])
        pts = apps_points(apps)
        for name, w_hand, q_hand, ai in [("ai_1_16", N * R, 16 * N * R, 1 / 16), ("ai_8", 128 * N * R, 16 * N * R, 8.0),
                                          ("triad", 2 * N * R, 24 * N * R, 1 / 12)]:
            p = pts[f"regions/{name}"]
            print(f"{name:8} W {p['flops']:.0f} (by hand {w_hand}), Q {p['bytes']:.0f} (by hand {q_hand}, "
                  f"{100 * (p['bytes'] / q_hand - 1):.3f} %), AI {p['flops'] / p['bytes']:.5f} (analytic {ai:.5f})")
        launched(tmp, a.runs)
        functions(tmp, a.runs)
        cost(tmp, a.runs, a.compare)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
