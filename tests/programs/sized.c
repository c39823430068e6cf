// daxpy, y = a x + y, in a sized region at three sizes, CALLS calls each:
// by hand, per call, W = 2 n flops, 16 n bytes read and 8 n written. The
// name is passed from another address at the end, as a Fortran or C++
// wrapper would: the region is still ended by its name.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carmbench.h"
int main(int argc, char **argv) {
    long calls = atol(argv[1]);
    long sizes[] = {1000, 10000, 100000};
    char name[8];
    strcpy(name, "daxpy");
    double *x = malloc(100000 * sizeof *x), *y = malloc(100000 * sizeof *y);
    for (long i = 0; i < 100000; i++) { x[i] = 1; y[i] = 2; }
    for (int s = 0; s < 3; s++) {
        long n = sizes[s];
        for (long k = 0; k < calls; k++) {
            carmbench_region_begin_n("daxpy", (double)n);
            for (long i = 0; i < n; i++) y[i] = 0.5 * x[i] + y[i];
            carmbench_region_end(s == 2 ? name : "daxpy");
        }
    }
    printf("checksum %ld\n", (long)y[0]);
    return 0;
}
