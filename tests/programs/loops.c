// Two loop nests in one function, and a triad in another:
//   compute(): an L1-resident FMA loop: for k < R1, for i < M: x[i] = x[i] * c + y[i]
//     (2 flops, 16 bytes loaded, 8 stored per element and repetition)
//   then a DRAM-sized triad: for k < R2, for i < N: a[i] = b[i] + 3 c[i]
//     (2 flops, 24 bytes per element and repetition).
// By hand: inner loop 1: W = 2 M R1, trips M per entry, R1 entries;
// inner loop 2: W = 2 N R2, trips N, R2 entries.
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) void compute(double *x, double *y, long m, long r1,
                                        double *a, double *b, double *c, long n, long r2) {
    for (long k = 0; k < r1; k++)
        for (long i = 0; i < m; i++) x[i] = x[i] * 0.999 + y[i];
    for (long k = 0; k < r2; k++)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
}
int main(int argc, char **argv) {
    long m = atol(argv[1]), r1 = atol(argv[2]), n = atol(argv[3]), r2 = atol(argv[4]);
    double *x = malloc(m * 8), *y = malloc(m * 8), *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8);
    for (long i = 0; i < m; i++) { x[i] = 1; y[i] = 2; }
    for (long i = 0; i < n; i++) { a[i] = 1; b[i] = 2; c[i] = 3; }
    compute(x, y, m, r1, a, b, c, n, r2);
    printf("checksum %ld\n", (long)(x[m / 2] + a[n / 2]));
    return 0;
}
