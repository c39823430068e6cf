// Picks its kernel by the CPU's features, as function multiversioning and
// libraries with per-ISA kernels do: `k_avx512` where the CPU has AVX-512F,
// else `k_avx2` with AVX2 and FMA, else `k_sse2`. All three do the same
// work, a[i] = a[i] * s + t over N doubles R times, vectorized at their
// width: by hand W = 2 N R flops; the set-up stores 8 N bytes.
#include <stdio.h>
#include <stdlib.h>

#define KERNEL(name, isa)                                                    \
    __attribute__((noinline, target(isa))) void name(double *a, long n,     \
                                                        long r) {           \
        for (long k = 0; k < r; k++)                                         \
            for (long i = 0; i < n; i++) a[i] = a[i] * 0.5 + 0.25;           \
    }
KERNEL(k_avx512, "avx512f,avx512vl,fma")
KERNEL(k_avx2, "avx2,fma")
KERNEL(k_sse2, "sse2")

int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double *x = malloc(n * sizeof *x);
    for (long i = 0; i < n; i++) x[i] = 1;
    __builtin_cpu_init();
    const char *which;
    if (__builtin_cpu_supports("avx512f"))
        k_avx512(x, n, r), which = "avx512";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        k_avx2(x, n, r), which = "avx2";
    else
        k_sse2(x, n, r), which = "sse2";
    printf("kernel %s checksum %ld\n", which, (long)x[n / 2]);
    return 0;
}
