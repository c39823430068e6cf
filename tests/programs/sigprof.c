/* A loop nest interrupted by a signal every millisecond of CPU time (a
 * profiler's ITIMER_PROF): its loops are the nest's, neither more nor
 * irreducible. nest(N, R): R entries of an inner loop of N trips, one
 * scalar multiply and add each: 2 N R flops. The handler is called once
 * before it is installed (its code translated before QEMU knows it for
 * one). Prints the sum and whether a signal came. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

static volatile long ticks;

__attribute__((noinline)) static void on_prof(int s) {
    (void)s;
    ticks++;
}

__attribute__((noinline)) static double nest(const double *a, long n, long r) {
    double s = 0;
    for (long j = 0; j < r; j++)
        for (long i = 0; i < n; i++)
            s += a[i] * 1.5;
    return s;
}

int main(int argc, char **argv) {
    long n = argc > 2 ? atol(argv[1]) : 1000, r = argc > 2 ? atol(argv[2]) : 10;
    double *a = calloc(n, sizeof *a);
    on_prof(0);
    ticks = 0;
    struct sigaction sa = {0};
    sa.sa_handler = on_prof;
    sigaction(SIGPROF, &sa, 0);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_PROF, &it, 0);
    double s = nest(a, n, r);
    printf("%g signals: %s\n", s, ticks > 0 ? "yes" : "no");
    free(a);
    return 0;
}
