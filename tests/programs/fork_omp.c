// Forks two children (no exec); each runs the OpenMP triad of N doubles R
// times on its threads (OMP_NUM_THREADS), the parent only waits.
// By hand: W = 2 x 2 N R flops; Q = 2 x (24 N R + 24 N) bytes.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static double triad(long n, long r) {
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
#pragma omp parallel for
    for (long i = 0; i < n; i++) { a[i] = 1; b[i] = 2; c[i] = 3; }
    for (long k = 0; k < r; k++) {
#pragma omp parallel for
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    }
    return a[n / 2];
}
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    for (int k = 0; k < 2; k++)
        if (fork() == 0) {
            printf("child %g\n", triad(n, r));
            fflush(stdout);
            _exit(0);
        }
    int st, ok = 0;
    while (wait(&st) > 0) ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    printf("checksum %d\n", ok);
    return ok == 2 ? 0 : 1;
}
