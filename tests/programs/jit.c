/* A JIT's code: a loop copied into anonymous memory (mmap, then mprotect
 * to read and execute) and called there. jitted(N): 2 scalar double adds
 * per trip (vaddsd), N trips; called R times: 2 N R flops. Prints the sum
 * (of registers never set: not a number, as nothing depends on it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* 1: vaddsd %xmm1,%xmm0,%xmm0; vaddsd %xmm1,%xmm2,%xmm2; dec %rdi; jne 1b; ret */
static const unsigned char code[] = {0xc5, 0xfb, 0x58, 0xc1, 0xc5, 0xeb, 0x58, 0xd1,
                                     0x48, 0xff, 0xcf, 0x75, 0xf3, 0xc3};

int main(int argc, char **argv) {
    long n = argc > 2 ? atol(argv[1]) : 1000, r = argc > 2 ? atol(argv[2]) : 1;
    unsigned char *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    memcpy(p, code, sizeof code);
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
        return 1;
    double (*jitted)(long) = (double (*)(long))p;
    double s = 0;
    for (long i = 0; i < r; i++)
        s += jitted(n);
    printf("%g\n", s);
    return 0;
}
