/* Buffers freed and allocated again, as numpy's temporaries are: R rounds
 * of malloc(N doubles) (each from mmap: M_MMAP_THRESHOLD fixed at 128 KiB),
 * written, read twice, freed. Natively the kernel gives each round the
 * hole the round before left, so from the second round on the buffer's
 * lines are the warm ones it left. Prints the sum and how many rounds got
 * the first round's address. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 2 ? atol(argv[1]) : 1 << 17, r = argc > 2 ? atol(argv[2]) : 8;
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    double s = 0, *first = 0;
    long same = 0;
    for (long k = 0; k < r; k++) {
        double *a = malloc(n * sizeof *a);
        first = k ? first : a;
        same += a == first;
        for (long i = 0; i < n; i++)
            a[i] = (double)(i + k);
        for (int pass = 0; pass < 2; pass++)
            for (long i = 0; i < n; i++)
                s += a[i];
        free(a);
    }
    printf("%g same address %ld of %ld\n", s, same, r);
    return 0;
}
