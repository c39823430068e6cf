// Opens a library (argv[1]) at run time, runs its triad (functions_lib.c,
// W = 2 N per call) R times over N elements, and closes it before exiting,
// as MPI runtimes close their components: by hand, the library's W is
// 2 N R. With a fourth argument, opens another library where the first was
// (argv[4], whose code runs no flop) and runs nothing of it.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[2]), r = atol(argv[3]);
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c);
    for (long i = 0; i < n; i++) { b[i] = 1; c[i] = 2; }
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    void (*triad)(double *, const double *, const double *, long) = dlsym(lib, "triad");
    for (long k = 0; k < r; k++) triad(a, b, c, n);
    dlclose(lib);
    if (argc > 4 && !dlopen(argv[4], RTLD_NOW)) return 1;
    printf("checksum %ld\n", (long)a[n / 2]);
    return 0;
}
