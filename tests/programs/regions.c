// The two kernels of the report "Roofline of a Haswell i5 with STREAM":
// a[i] = a[i] * a[i] (1 flop, 16 bytes: AI 1/16) and a[i] to the 129th
// power (128 flops, 16 bytes: AI 8), and a triad, each in a region.
// By hand, per region: W = N R, 128 N R, 2 N R flops; Q = 16 N R, 16 N R,
// 24 N R bytes.
#include <stdio.h>
#include <stdlib.h>
#include "carmbench.h"
#define R4(X) X X X X
#define R16(X) R4(R4(X))
#define R128(X) R16(R4(X X))
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { a[i] = 1; b[i] = 2; c[i] = 3; }
    for (long k = 0; k < r; k++) {
        carmbench_region_begin("ai_1_16");
        for (long i = 0; i < n; i++) a[i] = a[i] * a[i];
        carmbench_region_end("ai_1_16");
        carmbench_region_begin("ai_8");
        for (long i = 0; i < n; i++) { double x = a[i]; a[i] = R128(x *) x; }
        carmbench_region_end("ai_8");
        carmbench_region_begin("triad");
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
        carmbench_region_end("triad");
    }
    printf("checksum %ld\n", (long)a[n / 2]);
    return 0;
}
