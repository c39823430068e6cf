"""Matrix products, FFTs and sorts at n = 400 whose temporaries numpy frees and allocates again:
the simulated caches against cachegrind (tests/emulate/traffic.rs). A fixed seed."""
import numpy as np

rng = np.random.default_rng(7)
n = 400
a, b = rng.random((n, n)), rng.random((n, n))
acc = 0.0
for _ in range(4):
    c = a @ b
    acc += float(c.trace())
    f = np.fft.fft2(c)
    acc += float(np.abs(f[1, 1]))
    s = np.sort(c, axis=None)
    acc += float(s[n])
    a = c / c.max()
print(f"{acc:.6f}")
