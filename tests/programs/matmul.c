// A blocked matrix product C += A B of n x n doubles in blocks of BS:
// by hand, W = 2 n^3 flops in the innermost loop (its vector body and
// remainder together), whatever the compiler makes of it.
#include <stdio.h>
#include <stdlib.h>
#define BS 32
__attribute__((noinline)) void product(long n, const double *a, const double *b, double *c) {
    for (long ii = 0; ii < n; ii += BS)
        for (long kk = 0; kk < n; kk += BS)
            for (long i = ii; i < ii + BS && i < n; i++)
                for (long k = kk; k < kk + BS && k < n; k++) {
                    double x = a[i * n + k];
                    for (long j = 0; j < n; j++) c[i * n + j] += x * b[k * n + j];
                }
}
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double *a = malloc(n * n * 8), *b = malloc(n * n * 8), *c = calloc(n * n, 8);
    for (long i = 0; i < n * n; i++) { a[i] = 1; b[i] = 2; }
    product(n, a, b, c);
    printf("checksum %ld\n", (long)c[n / 2]);
    return 0;
}
