// Picks one of three kernels by the CPU's CPUID identity, as libraries tuned
// per microarchitecture do: `mine` when vendor, family and model are the
// ones given on the command line (the host's), `vendor` for another CPU of
// the same vendor, `other` otherwise. Each does its own work per element
// and repetition, in the same loop of N doubles R times:
//   mine:   a[i] = a[i] * s + t, then * u   3 flops
//   vendor: a[i] = a[i] * s + t              2 flops
//   other:  a[i] = a[i] + t                  1 flop
// By hand: W = (3, 2 or 1) N R flops; the set-up stores 8 N bytes.
// Usage: by_identity N R VENDOR FAMILY MODEL. Built with -O1: no vector
// code, no contraction (-ffp-contract=off), the loops as written.
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void mine(double *a, long n, long r) {
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = (a[i] * 0.5 + 0.25) * 1.5;
}
__attribute__((noinline)) void vendor(double *a, long n, long r) {
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = a[i] * 0.5 + 0.25;
}
__attribute__((noinline)) void other(double *a, long n, long r) {
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = a[i] + 0.25;
}

int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    unsigned a0, b, c, d, eax;
    char v[13] = {0};
    __cpuid(0, a0, b, c, d);
    memcpy(v, &b, 4), memcpy(v + 4, &d, 4), memcpy(v + 8, &c, 4);
    __cpuid(1, eax, b, c, d);
    unsigned fam = (eax >> 8) & 0xF, model = (eax >> 4) & 0xF;
    if (fam == 0xF) fam += (eax >> 20) & 0xFF;
    if (fam >= 6) model |= ((eax >> 16) & 0xF) << 4;
    double *x = malloc(n * sizeof *x);
    for (long i = 0; i < n; i++) x[i] = 1;
    const char *which;
    if (!strcmp(v, argv[3]) && fam == atol(argv[4]) && model == atol(argv[5]))
        mine(x, n, r), which = "mine";
    else if (!strcmp(v, argv[3]))
        vendor(x, n, r), which = "vendor";
    else
        other(x, n, r), which = "other";
    printf("kernel %s checksum %ld\n", which, (long)x[n / 2]);
    return 0;
}
