#!/usr/bin/env python3
"""carmbench's accuracy and speed targets, measured in one run on this machine.

1. Runs the default plan (`carmbench run`) RUNS times and `--quick` once, timing
   each; prints every roof's median per-cycle value over the runs, its % of the
   theoretical limit, how much the runs disagree (CV across runs), and which
   L1 and L2 roofs carried `sizes_disagree`.
2. Every ISA's compute roofs and L1 2LD1ST roof, 1 thread, against their limits.
3. Validates the first run's roofs: per level, median |deviation| and verdicts.
4. The 1-thread L2 load roof (taken at its plateau) against the best of
   likwid-bench's load kernel of the same width at 512 and 640 kB (the L2
   plateau of a 1 MiB L2), alternately REPS times.
5. Runs carmbench's load kernel and likwid-bench's load kernel of the same width
   (Debian package `likwid`; load_avx512 with AVX-512, load_avx with AVX2) on the
   same core, at the same per-thread size, alternately, REPS times each, at the
   middle of each 1-thread load roof's plateau at L1, L2, L3 and DRAM, and FP64
   FMA against likwid's peakflops FMA kernel of that width; prints each pair and
   the ratio of medians. The width is the widest ISA of the run (the machine's
   best).

likwid-bench counts MByte/s as 10^6 bytes/s and sizes in kB as 1000 bytes, like
carmbench's GB/s; neither counts write-allocate traffic.

Usage: scripts/bench-vs-likwid.py [--runs N] [--reps N]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "carmbench")


def sh(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def cv(xs):
    return statistics.pstdev(xs) / statistics.mean(xs) if len(xs) > 1 else 0.0


def run_plan(extra):
    out = tempfile.mkdtemp(prefix="carmbench-bench-")
    t0 = time.monotonic()
    sh([BIN, "run", "--format", "json", "-o", out] + extra)
    dt = time.monotonic() - t0
    with open(os.path.join(out, "carm.json")) as f:
        doc = json.load(f)
    shutil.rmtree(out)
    return dt, doc


def key(r):
    what = r["mix"] or r["op"]
    return (r["threads"], r["level"] or "FP", what, r["isa"], r["precision"] or "")


def carm_kernel(name, size=None):
    cmd = [BIN, "kernel", name, "--samples", "7"]
    if size:
        cmd += ["--bytes", str(size)]
    out = sh(cmd)
    return float(re.search(r"value=([\d.]+)", out).group(1))


def likwid(test, size):
    kb = max(1, round(size / 1000))
    out = sh(["likwid-bench", "-t", test, "-w", f"S0:{kb}kB:1"])
    if "peakflops" in test:
        return float(re.search(r"MFlops/s:\s+([\d.]+)", out).group(1)) / 1e3
    return float(re.search(r"MByte/s:\s+([\d.]+)", out).group(1)) / 1e3


# The widest ISA first: carmbench's kernels and likwid-bench's tests of the same width.
LIKWID_PAIRS = [
    ("avx512", "avx512_load", "load_avx512", "avx512_dp_fma", "peakflops_avx512_fma"),
    ("avx2", "avx2_load", "load_avx", "avx2_dp_fma", "peakflops_avx_fma"),
    ("sse", "sse_load", "load_sse", "sse_dp_fma", "peakflops_sse"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    if not shutil.which("likwid-bench"):
        sys.exit("likwid-bench not found: apt-get install likwid")

    print(f"== default plan x{a.runs} and --quick x1 (carmbench run)")
    docs, times = [], []
    for _ in range(a.runs):
        dt, doc = run_plan([])
        docs.append(doc)
        times.append(dt)
    qdt, _ = run_plan(["--quick"])
    print(f"default plan: {', '.join(f'{t:.1f}' for t in times)} s (target <= 20 s); --quick: {qdt:.1f} s (target <= 8 s)")
    m = docs[0]["machine"]
    print(f"CPU {m['topology']['cpu_model']} ({m['microarchitecture']}), clock {m['clock']['measured']['ghz']['max']:.2f} GHz")
    rows = {}
    for d in docs:
        for r in d["roofs"]:
            rows.setdefault(key(r), []).append(r)
    print("CV across runs: of the GB/s or GFLOP/s values, and of the per-cycle values (the core clock of")
    print("this VM moves between runs with the host's load; per-cycle figures take it out)")
    print(f"{'threads level what isa prec':34} {'median/cycle':>12} {'% limit':>8} {'CV value':>9} {'CV/cycle':>9}")
    single = {}
    for k, rs in rows.items():
        pcs = [r["per_cycle"] for r in rs]
        vals = [r["gb_per_s"] or r["gflop_per_s"] for r in rs]
        pct = [r["percent_of_theoretical"] for r in rs if r["percent_of_theoretical"] is not None]
        med = statistics.median(pcs)
        if k[0] == 1:
            single[k[1:]] = statistics.median(vals)
        scale = ""
        if k[0] > 1 and k[1:] in single:
            scale = f"  x{statistics.median(vals) / single[k[1:]]:.2f} of 1 thread"
        print(
            f"{' '.join(map(str, k)):34} {med:12.2f} {(f'{statistics.median(pct):.1f}' if pct else '-'):>8} {100 * cv(vals):8.2f}% {100 * cv(pcs):8.2f}%{scale}"
        )
    flagged = [
        f"run {i + 1}: {r['level']} {r['mix']} {r['threads']} thr"
        for i, d in enumerate(docs)
        for r in d["roofs"]
        if r["level"] in ("L1", "L2") and "sizes_disagree" in r["flags"]
    ]
    print(f"sizes_disagree on L1 or L2: {len(flagged)} of {sum(1 for d in docs for r in d['roofs'] if r['level'] in ('L1', 'L2'))} roofs ({', '.join(flagged) or 'none'})")

    print("\n== every ISA, 1 thread: compute roofs and L1 2ld1st against their limits (carmbench run --isa all)")
    _, alld = run_plan(["--isa", "all", "--threads", "1", "--levels", "L1", "--mixes", "2ld1st"])
    print(f"{'roof':28} {'per cycle':>10} {'% limit':>8}")
    for r in alld["roofs"]:
        what = f"{r['isa']} {r['precision'] or ''} {r['op'] or (r['level'] + ' ' + r['mix'])}"
        pct = r["percent_of_theoretical"]
        print(f"{what:28} {r['per_cycle']:10.2f} {(f'{pct:.1f}' if pct is not None else '-'):>8}")

    print("\n== validation of the first run's roofs (carmbench validate), default mixes load and 2ld1st, op fma")
    out = tempfile.mkdtemp(prefix="carmbench-val-")
    f = os.path.join(out, "carm.json")
    with open(f, "w") as fh:
        json.dump(docs[0], fh)
    t0 = time.monotonic()
    vout = sh([BIN, "validate", f])
    vdt = time.monotonic() - t0
    with open(f) as fh:
        vdoc = json.load(fh)
    shutil.rmtree(out)
    print(f"validation time: {vdt:.1f} s (target <= 15 s)")
    groups = {}
    levels = ["L1", "L2", "L3", "L4", "DRAM"]
    for p in vdoc["validation"]:
        groups.setdefault((p["mix"], p["threads"], p["level"]), []).append(p)
    print(f"{'mix threads level':20} {'points':>6} {'median |dev|':>13} {'worst':>8} {'overlap':>8}")
    worst_median = 0.0
    for (m, t, lvl), ps in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1], levels.index(g[0][2]) if g[0][2] in levels else 9)):
        devs = [abs(p["deviation"]) for p in ps]
        worst_median = max(worst_median, statistics.median(devs))
        ov = [p["overlap"] for p in ps if p.get("overlap") is not None]
        ovs = f"{100 * statistics.median(ov):7.0f}%" if ov else "       -"
        print(f"{m:6} {t} {lvl:11} {len(ps):6d} {100 * statistics.median(devs):12.1f}% {100 * max(devs):7.1f}% {ovs}")
    # carmbench's own verdicts: the guard's note, and the cause given for each failing level.
    sweep = ""
    for line in vout.splitlines():
        if line.startswith("threads sharing a core"):
            print(line)
        elif line.startswith("validation:"):
            sweep = line.split(",")[0].replace("validation: ", "") + ", " + line.split(",")[1].strip()
        elif "FAILED" in line:
            print(f"{sweep}, {line.split()[0]}: {line.split('FAILED: ', 1)[1]}")
        elif line.startswith("core:"):
            print(line)
    failed = sum(1 for line in vout.splitlines() if "FAILED" in line)
    print(f"levels FAILED: {failed}; largest median |dev| of a level: {100 * worst_median:.1f}% (target: none FAILED, <= 5%)")

    sizes = {}
    for r in docs[0]["roofs"]:
        if r["threads"] == 1 and r["mix"] == "load" and r["sizes"]:
            # The middle of the plateau the roof came from.
            s = sorted(x["bytes_per_thread"] for x in r["sizes"])
            if r.get("plateau"):
                s = [x for x in s if r["plateau"][0] <= x <= r["plateau"][1]]
            sizes[r["level"]] = s[len(s) // 2]
    isas = {r["isa"] for r in docs[0]["roofs"]}
    isa, c_load, l_load, c_fma, l_fma = next(p for p in LIKWID_PAIRS if p[0] in isas)
    l2 = [r for d in docs for r in d["roofs"] if r["threads"] == 1 and r["level"] == "L2" and r["mix"] == "load"]
    if l2:
        roof = statistics.median(r["gb_per_s"] for r in l2)
        pc = statistics.median(r["per_cycle"] for r in l2)
        best = {}
        for kb in (512, 640):
            best[kb] = statistics.median(likwid(l_load, kb * 1000) for _ in range(a.reps))
        top = max(best.values())
        plateaus = ", ".join(f"{r['plateau'][0] >> 10}-{r['plateau'][1] >> 10} KiB" for r in l2 if r.get("plateau"))
        print(f"\n== 1-thread L2 load roof ({isa}, plateaus {plateaus or '-'}) vs likwid-bench {l_load} at 512 and 640 kB, medians of {a.reps}")
        print(f"roof {roof:.1f} GB/s ({pc:.2f} B/cycle); likwid-bench 512 kB {best[512]:.1f}, 640 kB {best[640]:.1f} GB/s; roof / best = {roof / top:.3f} (target >= 0.97)")
    print(f"\n== carmbench vs likwid-bench, same core, same per-thread size, {a.reps} alternating reps, medians")
    print(f"ISA {isa}: carmbench {c_load}, {c_fma}; likwid-bench {l_load}, {l_fma}")
    pairs = [(f"{lvl} load {sizes[lvl]} B", c_load, l_load, sizes[lvl]) for lvl in ("L1", "L2", "L3", "DRAM") if lvl in sizes]
    pairs.append(("FP64 FMA", c_fma, l_fma, 24000))
    print(f"{'what':28} {'carmbench':>12} {'likwid-bench':>13} {'ratio':>7}")
    for label, ck, lk, size in pairs:
        c, l = [], []
        for _ in range(a.reps):
            c.append(carm_kernel(ck, None if "FMA" in label else size))
            l.append(likwid(lk, size))
        unit = "GFLOP/s" if "FMA" in label else "GB/s"
        cm, lm = statistics.median(c), statistics.median(l)
        print(f"{label:28} {cm:8.1f} {unit:<4} {lm:8.1f} {unit:<4} {cm / lm:7.3f}")


if __name__ == "__main__":
    main()
