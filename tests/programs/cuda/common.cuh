// What every CUDA test program shares: a check of each CUDA call, and the
// median time of a kernel's launches by CUDA events, printed as
// "time NAME MS" (the time carmbench's point must agree with).
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

// Launch `run` `reps` times, each timed by events; print the median.
template <typename F> void timed(const char* name, int reps, F run) {
    std::vector<float> ms(reps);
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int r = 0; r < reps; r++) {
        CHECK(cudaEventRecord(a));
        run();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&ms[r], a, b));
    }
    std::sort(ms.begin(), ms.end());
    printf("time %s %.6f\n", name, ms[reps / 2]);
}
