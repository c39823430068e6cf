/* Keeps one thread busy for S seconds of wall time (its argument), then
 * prints what it summed: a single-threaded process whose time does not
 * depend on the machine's speed. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    double s = argc > 1 ? atof(argv[1]) : 0.5, end = now() + s, x = 0;
    while (now() < end)
        for (int i = 0; i < 100000; i++)
            x += i * 1e-9;
    printf("%g\n", x);
    return 0;
}
