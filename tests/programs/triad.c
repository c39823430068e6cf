// STREAM-like triad a[i] = b[i] + 3 c[i] over N doubles, R times.
// By hand: W = 2 N R flops; Q = 24 N R bytes (two loads, one store of 8)
// and 24 N for setting the three arrays.
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { a[i] = 1; b[i] = 2; c[i] = 3; }
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    printf("checksum %ld\n", (long)a[n / 2]);
    return 0;
}
