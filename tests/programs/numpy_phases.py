"""Three steps in turn, each timed: matrix products, then sorts, then element-wise work; its
standard error gets "steps S S S S", the seconds since the process was made at which each step
began, and the end (profile --timeline's phases against them: tests/emulate/timeline.rs). A
fixed seed; one BLAS thread."""
import os
import sys
import time


def since_made():
    """Seconds since this process was made (forked): the interpreter's start-up is no part of
    the steps, yet is of the run, and takes long on a busy machine. Within a clock tick."""
    with open("/proc/self/stat") as f:
        made = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
    return time.clock_gettime(time.CLOCK_BOOTTIME) - made


origin = time.monotonic() - since_made()
import numpy as np

scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
rng = np.random.default_rng(11)
a, b = rng.random((400, 400)), rng.random((400, 400))
x = rng.random(1_000_000)
t1 = time.monotonic()
acc = 0.0
for _ in range(int(15 * scale)):
    acc += float((a @ b).trace())
t2 = time.monotonic()
for _ in range(int(1 * scale)):
    acc += float(np.sort(x)[1000])
t3 = time.monotonic()
for _ in range(int(60 * scale)):
    y = x * 1.5 + 0.25
    y *= x
    acc += float(y[7])
t4 = time.monotonic()
print(f"{acc:.3f}")
print("steps " + " ".join(f"{t - origin:.6f}" for t in (t1, t2, t3, t4)), file=sys.stderr)
