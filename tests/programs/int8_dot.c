// INT8 dot products of two N-byte vectors, R times: a multiply and an add per
// element pair, 2 N R integer ops in the arithmetic's own terms; Q = 2 N R bytes
// (both vectors read). The instructions do more or fewer ops by the plugin's rule (one
// per multiply and one per add of each instruction), by the path the CPU takes:
// - AVX512_VNNI (VPDPBUSD, 64 pairs an instruction): 2 N R;
// - AVX2 without VNNI, as QEMU runs it: per 32 pairs VPMADDUBSW (32 products, 16 sums:
//   48 INT8 ops), VPMADDWD by ones (16 + 8: 24 INT16 ops), VPADDD (8 INT32 ops): 2.5 N R,
//   plus 12 INT32 ops a call to sum the accumulator;
// - plain C otherwise.
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

__attribute__((target("avx2"), noinline))
static int64_t dot_avx2(const uint8_t *a, const int8_t *b, long n) {
    __m256i acc = _mm256_setzero_si256(), ones = _mm256_set1_epi16(1);
    for (long i = 0; i < n; i += 32) {
        __m256i p = _mm256_maddubs_epi16(_mm256_loadu_si256((const void *)(a + i)),
                                         _mm256_loadu_si256((const void *)(b + i)));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
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
    int vnni = __builtin_cpu_supports("avx512vnni"), avx2 = __builtin_cpu_supports("avx2");
    int64_t s = 0;
    for (long k = 0; k < r; k++)
        s += vnni ? dot_vnni(a, b, n) : avx2 ? dot_avx2(a, b, n) : dot_plain(a, b, n);
    printf("checksum %lld (%s)\n", (long long)s, vnni ? "vnni" : avx2 ? "avx2" : "plain");
    return s == (int64_t)n * r ? 0 : 1;
}
