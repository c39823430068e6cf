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

/* End the region NAME on the calling thread; a region not begun is ignored. */
void carmbench_region_end(const char *name);

/* Write the regions measured so far; also done when the program exits. */
void carmbench_regions_flush(void);

#ifdef __cplusplus
}
#endif

#endif /* CARMBENCH_H */
