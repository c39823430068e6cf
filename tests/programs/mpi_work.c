// An MPI program whose ranks do different work: rank r runs a triad over N
// doubles R(r+1) times, in the region "triad". By hand, per rank: W =
// 2 N R (r+1) flops, Q = 24 N R (r+1) bytes in the region (the set-up
// stores 24 N bytes more). The ranks exchange integers only: MPI does no
// flop of its own. With a third argument "crash", rank 1 stops itself with
// SIGSEGV a second after MPI_Finalize, when the others have ended; with
// "crash-early", before the ranks exchange their sums, while rank 0 waits.
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "carmbench.h"
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = atol(argv[1]), r = atol(argv[2]) * (rank + 1);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (long i = 0; i < n; i++) { a[i] = 0; b[i] = 1; c[i] = 2; }
    carmbench_region_begin("triad");
    for (long k = 0; k < r; k++)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    carmbench_region_end("triad");
    if (argc > 3 && strcmp(argv[3], "crash-early") == 0 && rank == 1) raise(SIGSEGV);
    long mine = (long)a[n / 2] * r, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("checksum %ld over %d ranks\n", all, size);
    MPI_Finalize();
    if (argc > 3 && strcmp(argv[3], "crash") == 0 && rank == 1) {
        sleep(1);
        raise(SIGSEGV);
    }
    return 0;
}
