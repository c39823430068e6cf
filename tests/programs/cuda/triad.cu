// A stream triad, a = b + s * c, over 2^26 floats: one FFMA (2 flops) and 12
// bytes of device memory an element.
#include "common.cuh"

__global__ void triad(float* a, const float* b, const float* c, float s, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
}

int main() {
    const size_t n = size_t(1) << 26;
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, n * 4));
    CHECK(cudaMalloc(&b, n * 4));
    CHECK(cudaMalloc(&c, n * 4));
    CHECK(cudaMemset(b, 0, n * 4));
    CHECK(cudaMemset(c, 0, n * 4));
    timed("triad", 5, [&] { triad<<<4096, 256>>>(a, b, c, 3.0f, n); });
    printf("elements %zu flops %zu bytes %zu\n", n, 2 * n, 12 * n);
    return 0;
}
