// Three integer kernels, their loops written in assembly so that the
// instructions are the ones counted: by hand, per element (the test reads
// the same counts back from the disassembly, prologue and epilogue too):
//   hash:      xor, imul, inc (3 ops of 64 bits) and a cmp: FNV-1a's
//              multiplicative hash over a byte buffer, 1 byte loaded;
//   histogram: inc of a 32-bit counter in memory and inc of the index
//              (2 ops) and a cmp; 1 byte loaded, 4 loaded and 4 stored;
//   xorshift:  shl, xor, shr, xor, shl, xor and the loop's dec (7 ops of 64
//              bits), no compare, no memory.
// Usage: integer N R: each kernel R times over N elements.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) uint64_t hash(const uint8_t *buf, long n) {
    uint64_t h = 0xcbf29ce484222325ull;
    __asm__ volatile(
        "xor %%rcx, %%rcx\n"
        "1:\n"
        "movzbl (%[buf],%%rcx), %%eax\n"
        "xor %%rax, %[h]\n"
        "imul %[prime], %[h]\n"
        "inc %%rcx\n"
        "cmp %[n], %%rcx\n"
        "jb 1b\n"
        : [h] "+r"(h)
        : [buf] "r"(buf), [n] "r"(n), [prime] "r"(0x100000001b3ull)
        : "rax", "rcx", "cc", "memory");
    return h;
}

__attribute__((noinline)) void histogram(const uint8_t *buf, long n, uint32_t *h) {
    __asm__ volatile(
        "xor %%rcx, %%rcx\n"
        "1:\n"
        "movzbl (%[buf],%%rcx), %%eax\n"
        "incl (%[h],%%rax,4)\n"
        "inc %%rcx\n"
        "cmp %[n], %%rcx\n"
        "jb 1b\n"
        :
        : [buf] "r"(buf), [n] "r"(n), [h] "r"(h)
        : "rax", "rcx", "cc", "memory");
}

__attribute__((noinline)) uint64_t xorshift(uint64_t x, long n) {
    __asm__ volatile(
        "mov %[n], %%rcx\n"
        "1:\n"
        "mov %[x], %%rdx\n"
        "shl $13, %%rdx\n"
        "xor %%rdx, %[x]\n"
        "mov %[x], %%rdx\n"
        "shr $7, %%rdx\n"
        "xor %%rdx, %[x]\n"
        "mov %[x], %%rdx\n"
        "shl $17, %%rdx\n"
        "xor %%rdx, %[x]\n"
        "dec %%rcx\n"
        "jnz 1b\n"
        : [x] "+r"(x)
        : [n] "r"(n)
        : "rcx", "rdx", "cc");
    return x;
}

int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    uint8_t *buf = malloc(n);
    for (long i = 0; i < n; i++) buf[i] = (uint8_t)(i * 131 + 7);
    static uint32_t h[256];
    uint64_t s = 0;
    for (long k = 0; k < r; k++) {
        s += hash(buf, n);
        histogram(buf, n, h);
        s += xorshift(s | 1, n);
    }
    printf("checksum %llu %u\n", (unsigned long long)s, h[7]);
    return 0;
}
