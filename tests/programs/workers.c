// Two POSIX threads each run the triad a[i] = b[i] + 3 c[i] over their
// half of N doubles, R times, while the main thread only waits for them.
// By hand: W = 2 N R flops, on two busy threads. A third argument "init":
// the main thread first fills the arrays itself (a flop an element), then
// waits: it worked, but never beside the two.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static long n, r;
static double *a, *b, *c;
static void *half(void *p) {
    long lo = (long)p * (n / 2), hi = lo + n / 2;
    for (long i = lo; i < hi; i++) { a[i] = 1; b[i] = 2; c[i] = 3; }
    for (long k = 0; k < r; k++)
        for (long i = lo; i < hi; i++) a[i] = b[i] + 3.0 * c[i];
    return NULL;
}
int main(int argc, char **argv) {
    n = atol(argv[1]), r = atol(argv[2]);
    a = malloc(n * sizeof *a), b = malloc(n * sizeof *b), c = malloc(n * sizeof *c);
    if (argc > 3)
        for (long i = 0; i < n; i++) { a[i] = 0.5 * i; b[i] = 1.5 * i; c[i] = 3; }
    pthread_t t[2];
    for (long k = 0; k < 2; k++) pthread_create(&t[k], NULL, half, (void *)k);
    for (long k = 0; k < 2; k++) pthread_join(t[k], NULL);
    printf("checksum %ld\n", (long)a[n / 2]);
    return 0;
}
