/* A loop whose second instruction crosses a 4 KiB page, and 6,000 lines
 * of straight-line code: neither holds any loop but the first.
 * cross(N): 2 scalar double adds per trip (vaddsd at 0x...ff9 and the one
 * spanning 0x...ffd-0x...000), N trips; called R times: 2 N R flops.
 * straight(): 6,000 multiply-adds on a volatile, no loop; called once.
 * Prints the sum. */
#include <stdio.h>
#include <stdlib.h>

double cross(long n);
asm(".section .text.cross,\"ax\",@progbits\n"
    ".p2align 12\n"
    ".skip 4089, 0xcc\n"
    ".globl cross\n"
    ".type cross,@function\n"
    "cross:\n"
    "1: vaddsd %xmm1, %xmm0, %xmm0\n"
    "vaddsd %xmm1, %xmm2, %xmm2\n"
    "dec %rdi\n"
    "jne 1b\n"
    "ret\n"
    ".size cross, .-cross\n"
    ".text\n");

static volatile double v = 1.0;
#define S v = v * 0.999 + 0.001;
#define S10 S S S S S S S S S S
#define S1000 S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10 \
              S10 S10 S10 S10 S10 S10 S10 S10 S10 S10

__attribute__((noinline)) static void straight(void) {
    S1000 S1000 S1000 S1000 S1000 S1000
}

int main(int argc, char **argv) {
    long n = argc > 2 ? atol(argv[1]) : 1000, r = argc > 2 ? atol(argv[2]) : 1;
    double s = 0;
    for (long i = 0; i < r; i++)
        s += cross(n);
    straight();
    printf("%g\n", s + v);
    return 0;
}
