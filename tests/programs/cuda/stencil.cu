// A 5-point Jacobi step on a 4096 x 4096 float grid: 4 FADD and 1 FMUL (5
// flops) an inner point; each point read once from device memory and written
// once (8 bytes), the neighbours' rereads served by the caches.
#include "common.cuh"

__global__ void stencil(float* out, const float* in, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
    size_t i = (size_t)y * n + x;
    out[i] = 0.2f * (((in[i] + in[i - 1]) + (in[i + 1] + in[i - n])) + in[i + n]);
}

int main() {
    const int n = 4096;
    float *a, *b;
    CHECK(cudaMalloc(&a, (size_t)n * n * 4));
    CHECK(cudaMalloc(&b, (size_t)n * n * 4));
    CHECK(cudaMemset(a, 0, (size_t)n * n * 4));
    dim3 block(32, 8), grid(n / 32, n / 8);
    timed("stencil", 5, [&] { stencil<<<grid, block>>>(b, a, n); });
    size_t inner = (size_t)(n - 2) * (n - 2);
    printf("points %zu flops %zu bytes %zu\n", inner, 5 * inner, (size_t)8 * n * n);
    return 0;
}
