// An integer hash of 2^24 words, 32 rounds of x ^= x >> 15; x *= K; x += i
// (a shift, a xor, a multiply and an add a round), each word read and written
// once.
#include "common.cuh"

__global__ void hash(unsigned* out, const unsigned* in, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned x = in[i];
#pragma unroll
        for (int r = 0; r < 32; r++) {
            x ^= x >> 15;
            x *= 0x2c1b3c6du;
            x += (unsigned)i;
        }
        out[i] = x;
    }
}

int main() {
    const size_t n = size_t(1) << 24;
    unsigned *a, *b;
    CHECK(cudaMalloc(&a, n * 4));
    CHECK(cudaMalloc(&b, n * 4));
    CHECK(cudaMemset(a, 0, n * 4));
    timed("hash", 5, [&] { hash<<<2048, 256>>>(b, a, n); });
    printf("words %zu rounds 32 bytes %zu\n", n, 8 * n);
    return 0;
}
