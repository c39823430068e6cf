// Reads doubles from standard input until its end; each value read costs
// R steps of s = 0.5 s + 3 y, a multiply and an add (or an FMA): 3 flops.
// By hand: W = 3 R V for V values read; Q is not checked.
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long r = atol(argv[1]);
    double x, s = 0;
    long v = 0;
    while (scanf("%lf", &x) == 1) {
        volatile double y = x;
        for (long k = 0; k < r; k++) s = s * 0.5 + y * 3.0;
        v++;
    }
    printf("values %ld checksum %ld\n", v, (long)s);
    return 0;
}
