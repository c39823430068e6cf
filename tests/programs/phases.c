// Three phases, each timed here: an FMA-bound loop that sets two arrays,
// a triad over them, and the FMA-bound loop again over one of them. Its
// stderr gets "phases S S S S": the seconds since main began at which each
// phase began, and the end ("phases@R S S S S" as rank R of an Open MPI
// job).
// By hand, n elements, r triad passes:
// phase 1: per element 2 flops for its start value, 32 dependent
//   multiply-adds (64 flops) and one subtraction: W = 67 n; two stores:
//   Q = 16 n.
// phase 2: a = b + s c, r times: W = 2 n r, Q = 24 n r.
// phase 3: per element 64 multiply-adds: W = 128 n; a load and a store:
//   Q = 16 n.
// A third argument S sleeps S seconds between the triad and the last phase
// (the last phase's stamp is then when it began, after the sleep).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

__attribute__((noinline)) void set(double *b, double *c, long n) {
    for (long i = 0; i < n; i++) {
        double v = 1.0 + 1e-9 * (double)i;
        for (int k = 0; k < 32; k++) v = v * 0.999 + 0.001;
        b[i] = v;
        c[i] = 2.0 - v;
    }
}

// Four elements an instruction (AVX2), where the two loops around it do one:
// its native time per instruction is theirs many times over, so a phase's
// time cannot follow its instructions.
__attribute__((noinline, target("avx2"), optimize("tree-vectorize")))
void triad(double *a, const double *b, const double *c, long n) {
    for (long i = 0; i < n; i++) a[i] = b[i] + 0.5 * c[i];
}

__attribute__((noinline)) void again(double *b, long n) {
    for (long i = 0; i < n; i++) {
        double v = b[i];
        for (int k = 0; k < 64; k++) v = v * 0.999 + 0.001;
        b[i] = v;
    }
}

int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double t0 = now();
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    set(b, c, n);
    double t1 = now();
    for (long k = 0; k < r; k++) triad(a, b, c, n);
    if (argc > 3) {
        double s = atof(argv[3]);
        struct timespec d = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
        nanosleep(&d, 0);
    }
    double t2 = now();
    again(b, n);
    double t3 = now();
    printf("checksum %ld\n", (long)(a[n / 2] + b[n / 3]));
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    fprintf(stderr, "phases%s%s %.6f %.6f %.6f %.6f\n", rank ? "@" : "", rank ? rank : "", 0.0,
            t1 - t0, t2 - t0, t3 - t0);
    return 0;
}
