// INT8 dot products of two N-byte vectors, R times: a multiply and an add per
// element pair. By hand: W = 2 N R integer ops, Q = 2 N R bytes (both vectors read).
// With AVX512_VNNI (VPDPBUSD, 64 pairs an instruction) where the CPU has it, else the
// same arithmetic in plain C: the counts are the same either way.
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((target("avx512f,avx512vnni"), noinline))
static int64_t dot_vnni(const uint8_t *a, const int8_t *b, long n) {
    __m512i acc = _mm512_setzero_si512();
    for (long i = 0; i < n; i += 64)
        acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i));
    return _mm512_reduce_add_epi32(acc);
}

__attribute__((noinline)) static int64_t dot_plain(const uint8_t *a, const int8_t *b, long n) {
    int64_t s = 0;
    for (long i = 0; i < n; i++) s += (int32_t)a[i] * b[i];
    return s;
}

int main(int argc, char **argv) {
    long n = atol(argv[1]) / 64 * 64, r = atol(argv[2]);
    uint8_t *a = malloc(n);
    int8_t *b = malloc(n);
    for (long i = 0; i < n; i++) { a[i] = 1; b[i] = 1; }
    int vnni = __builtin_cpu_supports("avx512vnni");
    int64_t s = 0;
    for (long k = 0; k < r; k++) s += vnni ? dot_vnni(a, b, n) : dot_plain(a, b, n);
    printf("checksum %lld (%s)\n", (long long)s, vnni ? "vnni" : "plain");
    return s == (int64_t)n * r ? 0 : 1;
}
