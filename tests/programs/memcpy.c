// memcpy of N bytes, R times (glibc's copy, rep movsb for large sizes).
// By hand: W = 0; Q = 2 N R bytes, and N for setting the source.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    char *a = malloc(n), *b = malloc(n);
    memset(a, 1, n);
    for (long k = 0; k < r; k++) { memcpy(b, a, n); __asm__ volatile("" ::: "memory"); }
    printf("checksum %d\n", b[n / 2]);
    return 0;
}
