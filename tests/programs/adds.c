// A sum of doubles: one scalar add per element (no reassociation without
// -ffast-math, so no vectorization).
// By hand: W = N R flops; Q = 8 N R + 8 N bytes.
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double *a = malloc(n * sizeof *a), s = 0;
    for (long i = 0; i < n; i++) a[i] = 1;
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) s += a[i];
    printf("checksum %ld\n", (long)s);
    return 0;
}
