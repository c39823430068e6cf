// A function whose symbol is not valid UTF-8 (the byte 0xff in "w\377rk"), called R
// times over N doubles: W = 2 N R in it (a multiply and an add per element), Q = 8 N R.
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) double work(const double *x, long n) __asm__("\"w\377rk\"");
double work(const double *x, long n) {
    double s = 0;
    for (long i = 0; i < n; i++) s += x[i] * 1.5;
    return s;
}
int main(int argc, char **argv) {
    long n = atol(argv[1]), r = atol(argv[2]);
    double *x = malloc(n * sizeof *x), s = 0;
    for (long i = 0; i < n; i++) x[i] = 1;
    // Changed each time, so that the calls are not merged into one.
    for (long k = 0; k < r; k++) { x[k % n] += 1; s += work(x, n); }
    printf("checksum %ld\n", (long)s);
    return 0;
}
