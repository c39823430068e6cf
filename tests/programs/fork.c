// Forks a child (no exec); the parent runs a triad of N doubles R times
// before the fork, the child 2R times after it, on arrays of its own.
// By hand: W = 2 N R (parent) + 4 N R (child) = 6 N R flops;
// Q = 24 N R + 24 N (parent) + 48 N R + 24 N (child) bytes.
// Nothing the parent counted before the fork may appear in the child's.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static double triad(long n, long r) {
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { a[i] = 1; b[i] = 2; c[i] = 3; }
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    double x = a[n / 2];
    free(a); free(b); free(c);
    return x;
}
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double before = triad(n, r);
    pid_t pid = fork();
    if (pid == 0) {
        printf("child %g\n", triad(n, 2 * r));
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("checksum %g %d\n", before, WEXITSTATUS(st));
    return 0;
}
