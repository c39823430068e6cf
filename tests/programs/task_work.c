// A job of tasks that do not talk to each other (no MPI): task r, from
// Slurm's SLURM_PROCID, runs a triad over N doubles R(r+1) times in the
// region "triad". By hand, per task: W = 2 N R (r+1) flops.
#include <stdio.h>
#include <stdlib.h>
#include "carmbench.h"
int main(int argc, char **argv) {
    const char *id = getenv("SLURM_PROCID");
    long rank = id ? atol(id) : 0;
    long n = atol(argv[1]), r = atol(argv[2]) * (rank + 1);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { a[i] = 0; b[i] = 1; c[i] = 2; }
    carmbench_region_begin("triad");
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    carmbench_region_end("triad");
    printf("task %ld: %ld\n", rank, (long)a[n / 2] * r);
    return 0;
}
