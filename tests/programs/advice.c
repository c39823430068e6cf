// What profile's advice is tested on (tests/emulate/advice.rs). "poly N R": a polynomial of
// degree 8 applied 16 times to each of N doubles, R times: 256 flops (128 multiplies, 128 adds)
// per element against 16 bytes (a load and a store), AI 16, compute-bound whichever level
// serves it. "triad N R": a[i] = b[i] + s * c[i], 2 flops against 24 bytes, from DRAM when N is
// large. "x87 N R": the polynomial in long double (x87 on x86-64): the same 256 flops per
// element, each an x87 instruction, against the double loaded and stored.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void poly(double *restrict out, const double *restrict x, long n) {
    for (long i = 0; i < n; i++) {
        double v = x[i], p = 0.5;
        for (int k = 0; k < 16; k++) {
            p = p * v + 0.25;
            p = p * v + 0.125;
            p = p * v - 0.5;
            p = p * v + 1.5;
            p = p * v - 0.75;
            p = p * v + 0.375;
            p = p * v + 2.0;
            p = p * v - 1.0;
        }
        out[i] = p;
    }
}

static void poly_x87(double *restrict out, const double *restrict x, long n) {
    for (long i = 0; i < n; i++) {
        long double v = x[i], p = 0.5L;
        for (int k = 0; k < 16; k++) {
            p = p * v + 0.25L;
            p = p * v + 0.125L;
            p = p * v - 0.5L;
            p = p * v + 1.5L;
            p = p * v - 0.75L;
            p = p * v + 0.375L;
            p = p * v + 2.0L;
            p = p * v - 1.0L;
        }
        out[i] = (double)p;
    }
}

static void triad(double *restrict a, const double *restrict b, const double *restrict c,
                  double s, long n) {
    for (long i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: advice poly|x87|triad N R\n");
        return 2;
    }
    long n = atol(argv[2]), r = atol(argv[3]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 1.0 / (i + 1);
        c[i] = 0.5 + 1e-9 * i;
    }
    for (long k = 0; k < r; k++) {
        if (strcmp(argv[1], "poly") == 0)
            poly(a, b, n);
        else if (strcmp(argv[1], "x87") == 0)
            poly_x87(a, b, n);
        else
            triad(a, b, c, 1.0 + 1e-9 * k, n);
    }
    printf("%f\n", a[n / 2]);
    return 0;
}
