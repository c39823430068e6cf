"""What the cost benchmarks (scripts/bench-emulation.py, scripts/bench-traffic.py) run and time:
the same workloads, timed the same way (medians of wall-clock runs)."""
import base64
import os
import random
import shutil
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEBIAN_PYTHON = "/usr/bin/python3"


def median_time(cmd, runs, env=None):
    """The median wall-clock seconds of `runs` runs of `cmd`."""
    times = []
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.monotonic() - t0)
    return statistics.median(times)


def cost_workloads(tmp):
    """(name, command) of the workloads whose cost is compared, built or written in `tmp`: numpy on
    OpenBLAS (skipped, with a line saying so, when Debian's numpy is missing), gzip of 30 MB of text,
    a triad over 120 MB of arrays, and the same triad's OpenMP form on two threads."""
    out = []
    has_numpy = subprocess.run([DEBIAN_PYTHON, "-c", "import numpy"], capture_output=True).returncode == 0
    if has_numpy:
        out.append(("numpy mix", [DEBIAN_PYTHON, os.path.join(HERE, "numpy_mix.py")]))
    else:
        print("numpy mix: skipped, Debian's numpy is missing (apt-get install python3-numpy)")
    big = os.path.join(tmp, "big.txt")
    with open(big, "wb") as f:
        f.write(base64.b64encode(random.Random(1).randbytes(22_000_000)))
    out.append(("gzip 30 MB", [shutil.which("gzip"), "-c", big]))
    programs = os.path.join(ROOT, "tests", "programs")
    for name, src, flags, args in [("triad 120 MB", "triad.c", ["-O2", "-mfma"], ["5000000", "10"]),
                                   ("OpenMP triad x2", "omp_triad.c", ["-O2", "-mfma", "-fopenmp"],
                                    ["5000000", "10"])]:
        exe = os.path.join(tmp, src[:-2])
        subprocess.run(["gcc", *flags, "-o", exe, os.path.join(programs, src), "-lm"], check=True)
        out.append((name, [exe, *args]))
    return out
