// A tiled SGEMM, C = A B, 2048 x 2048 floats, 32 x 32 tiles in shared memory:
// 2 N^3 flops as N^3 FFMAs.
#include "common.cuh"

#define T 32
__global__ void sgemm(float* c, const float* a, const float* b, int n) {
    __shared__ float sa[T][T], sb[T][T];
    int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k = 0; k < n; k += T) {
        sa[ty][tx] = a[(size_t)row * n + k + tx];
        sb[ty][tx] = b[(size_t)(k + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int j = 0; j < T; j++) acc = fmaf(sa[ty][j], sb[j][tx], acc);
        __syncthreads();
    }
    c[(size_t)row * n + col] = acc;
}

int main() {
    const int n = 2048;
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, (size_t)n * n * 4));
    CHECK(cudaMalloc(&b, (size_t)n * n * 4));
    CHECK(cudaMalloc(&c, (size_t)n * n * 4));
    CHECK(cudaMemset(a, 0, (size_t)n * n * 4));
    CHECK(cudaMemset(b, 0, (size_t)n * n * 4));
    timed("sgemm", 5, [&] { sgemm<<<dim3(n / T, n / T), dim3(T, T)>>>(c, a, b, n); });
    printf("n %d flops %zu\n", n, (size_t)2 * n * n * n);
    return 0;
}
