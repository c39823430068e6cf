// The shared library of functions.c: a STREAM-like triad, W = 2 N, Q = 24 N.
void triad(double *a, const double *b, const double *c, long n) {
    for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
}
