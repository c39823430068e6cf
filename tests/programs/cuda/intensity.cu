// Konstantinidis's micro-benchmark: each thread loads floats and does K dependent
// FMAs on each, at K = 1, 8, 64 (intensities 0.5, 4 and 32 flop/B).
#include "common.cuh"

template <int K> __global__ void intensity(float* out, const float* in, size_t n) {
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float v = in[i];
#pragma unroll
        for (int k = 0; k < K; k++) v = fmaf(v, 0.999f, 0.001f);
        acc += v;
    }
    if (acc == 12345.0f) out[0] = acc;
}

int main() {
    const size_t n = size_t(1) << 26;
    float *a, *o;
    CHECK(cudaMalloc(&a, n * 4));
    CHECK(cudaMalloc(&o, 4));
    CHECK(cudaMemset(a, 0, n * 4));
    timed("intensity<1>", 5, [&] { intensity<1><<<4096, 256>>>(o, a, n); });
    timed("intensity<8>", 5, [&] { intensity<8><<<4096, 256>>>(o, a, n); });
    timed("intensity<64>", 5, [&] { intensity<64><<<4096, 256>>>(o, a, n); });
    printf("elements %zu bytes %zu\n", n, 4 * n);
    return 0;
}
