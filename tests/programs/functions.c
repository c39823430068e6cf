// Three functions of known W and Q, one of them (triad) in the shared library
// built from functions_lib.c, each called R times over N doubles, and each timed
// here: their seconds go to stderr ("seconds compute S triad S copy S") for the
// test to compare with the time the samples give them.
// By hand, per call: compute (N/16 elements, 32 dependent multiply-adds each):
// W = 64 (N/16) flops, Q = 16 (N/16) bytes; triad: W = 2 N, Q = 24 N; copy:
// W = 0, Q = 16 N. Setting the arrays in main: 32 N bytes, no flops.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void triad(double *a, const double *b, const double *c, long n);

__attribute__((noinline)) void compute(double *y, const double *x, long n) {
    for (long i = 0; i < n; i++) {
        double v = x[i];
        for (int k = 0; k < 32; k++) v = v * 0.999 + 0.001;
        y[i] = v;
    }
}

// Kept a loop (not turned into a call of memcpy), so its bytes are its own.
__attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))
void copy(double *dst, const double *src, long n) {
    for (long i = 0; i < n; i++) dst[i] = src[i];
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { b[i] = 2; c[i] = 3; }
    for (long i = 0; i < n; i++) a[i] = 1;
    double t[3] = {0, 0, 0};
    for (long k = 0; k < r; k++) {
        double t0 = now();
        compute(a, b, n / 16);
        double t1 = now();
        triad(a, b, c, n);
        double t2 = now();
        copy(c, b, n);
        double t3 = now();
        t[0] += t1 - t0; t[1] += t2 - t1; t[2] += t3 - t2;
    }
    printf("checksum %ld\n", (long)(a[n / 2] + c[n / 3]));
    fprintf(stderr, "seconds compute %.6f triad %.6f copy %.6f\n", t[0], t[1], t[2]);
    return 0;
}
