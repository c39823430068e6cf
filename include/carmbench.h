/* carmbench regions: mark the parts of a C, C++ or Fortran program that
 * `carmbench profile -- PROGRAM` should place on the CARM chart, one point per
 * region name. Link with the library built from regions/ (libcarmbench_regions.a
 * or .so; with the static library also -lpthread -ldl -lm). Outside
 * `carmbench profile` the calls do nothing. Regions are per thread; calls to
 * the same name are summed over calls and threads. */
#ifndef CARMBENCH_H
#define CARMBENCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* Begin the region NAME (a NUL-terminated string) on the calling thread. */
void carmbench_region_begin(const char *name);

/* Begin the region NAME at size N (the problem size: elements, a matrix's
 * order) on the calling thread: calls of one name at one size are one point,
 * the sizes of one name a series (Ofenbeck et al.'s line per kernel). End it
 * with carmbench_region_end(NAME). */
void carmbench_region_begin_n(const char *name, double n);

/* End the region NAME on the calling thread (the innermost sized region of
 * that name when one is open); a region not begun is ignored. */
void carmbench_region_end(const char *name);

/* Write the regions measured so far; also done when the program exits. */
void carmbench_regions_flush(void);

#ifdef __cplusplus
}
#endif

#endif /* CARMBENCH_H */
