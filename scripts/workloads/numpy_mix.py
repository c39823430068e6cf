"""A numpy workload for the cost benchmarks (scripts/bench-emulation.py, scripts/bench-traffic.py):
matrix products on OpenBLAS, FFTs, element-wise arithmetic and a sort. Run by Debian's python3."""
import numpy as np

rng = np.random.default_rng(1)
a, b = rng.random((400, 400)), rng.random((400, 400))
for _ in range(2):
    c = a @ b
x = rng.random(1 << 19)
for _ in range(10):
    f = np.fft.rfft(x)
y = rng.random(2_000_000)
for _ in range(10):
    z = np.sqrt(y * 2.0 + 1.0)
s = np.sort(rng.random(1_000_000))
print(f"{c[0, 0] + f[1].real + z[5] + s[10]:.6f}")
