// The triad split over two OpenMP threads.
// By hand: W = 2 N R flops; Q = 24 N R + 24 N bytes, summed over threads.
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { a[i] = 1; b[i] = 2; c[i] = 3; }
    for (long k = 0; k < r; k++) {
        #pragma omp parallel for num_threads(2) schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    }
    printf("checksum %ld\n", (long)a[n / 2]);
    return 0;
}
