// Runs itself again through /proc/self/exe, as some launchers do: the
// first run does no FP work and re-executes with "child"; the second runs
// the triad a[i] = b[i] + 3 c[i] over N doubles, R times. By hand: W = 2 N R.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    if (argc == 3) {
        char *again[] = {argv[0], argv[1], argv[2], "child", NULL};
        execv("/proc/self/exe", again);
        perror("execv /proc/self/exe");
        return 1;
    }
    long n = atol(argv[1]), r = atol(argv[2]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { a[i] = 1; b[i] = 2; c[i] = 3; }
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    printf("checksum %ld\n", (long)a[n / 2]);
    return 0;
}
