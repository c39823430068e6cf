/* Buffers freed and allocated again, as numpy's temporaries are: R rounds
 * of a buffer of N doubles, written, read twice, let go. Natively the
 * kernel gives each round the hole the round before left, so from the
 * second round on the buffer's lines are the warm ones it left. How each
 * round gets its buffer (the third argument):
 *   malloc  malloc and free (each from mmap: M_MMAP_THRESHOLD fixed at
 *           128 KiB);
 *   file    a file's N doubles mapped (MAP_SHARED) and unmapped;
 *   memfd   the same of a memfd;
 *   mremap  one mapping moved each round by mremap (MREMAP_MAYMOVE |
 *           MREMAP_FIXED) between two reserved places: its pages move with
 *           it, warm.
 * Prints the sum and how many rounds got the first round's address. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
    long n = argc > 2 ? atol(argv[1]) : 1 << 17, r = argc > 2 ? atol(argv[2]) : 8;
    const char *how = argc > 3 ? argv[3] : "malloc";
    size_t bytes = n * sizeof(double);
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    int fd = -1;
    if (strcmp(how, "file") == 0) {
        char name[] = "/tmp/reuse-XXXXXX";
        fd = mkstemp(name);
        unlink(name);
    } else if (strcmp(how, "memfd") == 0) {
        fd = memfd_create("reuse", 0);
    }
    if (fd >= 0 && ftruncate(fd, bytes) != 0)
        return 1;
    /* mremap: two places reserved, the buffer moved from one to the other. */
    char *places[2] = {0, 0};
    double *moving = 0;
    if (strcmp(how, "mremap") == 0) {
        places[0] = mmap(0, 2 * bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        places[1] = places[0] + bytes;
        munmap(places[1], bytes);
        moving = mmap(places[0], bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    }
    double s = 0, *first = 0;
    long same = 0;
    for (long k = 0; k < r; k++) {
        double *a;
        if (moving) {
            if (k > 0)
                moving = mremap(moving, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED,
                                places[k % 2]);
            a = moving;
        } else if (fd >= 0) {
            a = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        } else {
            a = malloc(bytes);
        }
        first = k ? first : a;
        same += a == first;
        for (long i = 0; i < n; i++)
            a[i] = (double)(i + k);
        for (int pass = 0; pass < 2; pass++)
            for (long i = 0; i < n; i++)
                s += a[i];
        if (fd >= 0)
            munmap(a, bytes);
        else if (!moving)
            free(a);
    }
    printf("%g same address %ld of %ld\n", s, same, r);
    return 0;
}
