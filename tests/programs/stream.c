// Streaming kernels for the simulated caches: each of T threads (OpenMP) reads
// ("read") or writes ("write") its own array of N doubles, R times. Footprint
// 8 N bytes a thread; the repeated bytes 8 N R a thread, plus 8 N to set the
// array up.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int write = strcmp(argv[1], "write") == 0;
    int t = atoi(argv[2]);
    long n = atol(argv[3]), r = atol(argv[4]);
    double total = 0;
#pragma omp parallel num_threads(t) reduction(+ : total)
    {
        double *a = malloc(n * sizeof *a);
        for (long i = 0; i < n; i++) a[i] = 1;
        double s = 0;
        for (long k = 0; k < r; k++) {
            if (write) {
                for (long i = 0; i < n; i++) a[i] = (double)k;
            } else {
                for (long i = 0; i < n; i++) s += a[i];
            }
            __asm__ volatile("" ::: "memory");
        }
        total += s + a[n / 2];
        free(a);
    }
    printf("checksum %g\n", total);
    return 0;
}
