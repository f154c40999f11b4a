// A small "application" for `roofline diff`: six kernels of different kinds, run once each, in one
// program that is built twice. -DFIXED=0 is the "before" build; -DFIXED=1 changes one kernel (the
// transpose goes through a shared-memory tile) and nothing else, as a real fix would. Profiling the
// before build twice gives ncu's run-to-run spread on the same binary (the noise floor of a diff).
//
//   nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -DFIXED=0 diff_demo.cu -o diff_before
//   nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -DFIXED=1 diff_demo.cu -o diff_after
//
// Expected before profiling (written from the source, before any capture was looked at):
//   transpose (before): DRAM-bound side, but every warp's store touches 32 rows: 32 sectors per
//     request instead of 4, so L2<->DRAM write traffic is amplified and achieved DRAM bandwidth is
//     far under the roof; first finding uncoalesced-global. After: both sides coalesced through a
//     33-wide tile (no bank conflicts), DRAM-bound near the roof; expect 3-6x faster.
//   scale_add: y = a*x + y on 2^26 floats, 12 bytes per 2 FLOPs: DRAM-bound near the roof.
//   row_sum: one warp per 4096-float row, shuffle reduction: DRAM-bound (reads 256 MiB once).
//   fma_chain: 1024 dependent-free FMAs per thread on registers: FP32-pipe bound.
//   small_step: one block of 32 threads: launch/latency-bound (no roof is near).
//   histogram: shared-memory atomics on 256 bins from 2^26 bytes: bound by shared atomics (MIO),
//     not by DRAM.
// Identical in both builds except transpose, so a diff must call those five "within noise".
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#ifndef FIXED
#define FIXED 0
#endif

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                                    \
        }                                                                                    \
    } while (0)

constexpr int tile = 32;

// out = in^T for an n x n matrix.
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int n) {
#if FIXED
    __shared__ float t[tile][tile + 1];  // +1: a column of the tile spans 32 banks
    const int x = blockIdx.x * tile + threadIdx.x;
    for (int r = threadIdx.y; r < tile; r += blockDim.y) {
        const int y = blockIdx.y * tile + r;
        if (x < n && y < n) t[r][threadIdx.x] = in[(size_t)y * n + x];
    }
    __syncthreads();
    const int ox = blockIdx.y * tile + threadIdx.x;
    for (int r = threadIdx.y; r < tile; r += blockDim.y) {
        const int oy = blockIdx.x * tile + r;
        if (ox < n && oy < n) out[(size_t)oy * n + ox] = t[threadIdx.x][r];
    }
#else
    const int x = blockIdx.x * tile + threadIdx.x;
    for (int r = threadIdx.y; r < tile; r += blockDim.y) {
        const int y = blockIdx.y * tile + r;
        if (x < n && y < n) out[(size_t)x * n + y] = in[(size_t)y * n + x];  // a warp writes 32 rows
    }
#endif
}

__global__ void scale_add(float a, const float* __restrict__ x, float* __restrict__ y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

// One warp per row.
__global__ void row_sum(const float* __restrict__ m, float* __restrict__ sums, int rows, int cols) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= rows) return;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += m[(size_t)warp * cols + c];
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) sums[warp] = s;
}

// Eight independent FMA chains per thread, 4096 steps each: the FP32 pipe, not latency, limits.
__global__ void fma_chain(float* __restrict__ out, float a, float b) {
    float v[8];
    for (int k = 0; k < 8; ++k) v[k] = threadIdx.x * 1e-3f + k;
#pragma unroll 4
    for (int i = 0; i < 4096; ++i)
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = fmaf(v[k], a, b);
    float s = 0.f;
    for (int k = 0; k < 8; ++k) s += v[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void small_step(float* __restrict__ v) { v[threadIdx.x] = v[threadIdx.x] * 0.5f + 1.f; }

__global__ void histogram(const unsigned char* __restrict__ data, size_t n, unsigned* __restrict__ bins) {
    __shared__ unsigned h[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], h[i]);
}

__global__ void fill(float* p, size_t n, float scale) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = scale * (float)((i * 2654435761u) % 1000u);
}

int main() {
    const int n = 8192;                 // transpose: 8192 x 8192 floats (256 MiB each way)
    const size_t v = size_t(1) << 26;   // scale_add: 64 Mi floats
    const int rows = 16384, cols = 4096;  // row_sum: 256 MiB
    const size_t bytes = size_t(1) << 26;  // histogram: 64 MiB
    float *in, *out, *x, *y, *m, *sums, *f, *s;
    unsigned char* data;
    unsigned* bins;
    CHECK(cudaMalloc(&in, sizeof(float) * n * n));
    CHECK(cudaMalloc(&out, sizeof(float) * n * n));
    CHECK(cudaMalloc(&x, sizeof(float) * v));
    CHECK(cudaMalloc(&y, sizeof(float) * v));
    CHECK(cudaMalloc(&m, sizeof(float) * rows * cols));
    CHECK(cudaMalloc(&sums, sizeof(float) * rows));
    CHECK(cudaMalloc(&f, sizeof(float) * 132 * 8 * 256));
    CHECK(cudaMalloc(&s, sizeof(float) * 32));
    CHECK(cudaMalloc(&data, bytes));
    CHECK(cudaMalloc(&bins, sizeof(unsigned) * 256));
    fill<<<1024, 256>>>(in, size_t(n) * n, 1.f);
    fill<<<1024, 256>>>(x, v, 1e-3f);
    fill<<<1024, 256>>>(y, v, 1e-3f);
    fill<<<1024, 256>>>(m, size_t(rows) * cols, 1e-3f);
    fill<<<1, 32>>>(s, 32, 1.f);
    CHECK(cudaMemset(data, 7, bytes / 2));
    CHECK(cudaMemset(data + bytes / 2, 200, bytes / 2));
    CHECK(cudaMemset(bins, 0, sizeof(unsigned) * 256));
    CHECK(cudaDeviceSynchronize());

    transpose<<<dim3(n / tile, n / tile), dim3(tile, 8)>>>(in, out, n);
    scale_add<<<132 * 16, 256>>>(2.f, x, y, v);
    row_sum<<<rows * 32 / 256, 256>>>(m, sums, rows, cols);
    fma_chain<<<132 * 8, 256>>>(f, 0.999f, 1e-3f);
    small_step<<<1, 32>>>(s);
    histogram<<<132 * 8, 256>>>(data, bytes, bins);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    // Checks: the transpose on a sample, the histogram's two bins, one row sum.
    std::vector<float> a(size_t(n) * n), t(size_t(n) * n);
    CHECK(cudaMemcpy(a.data(), in, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(t.data(), out, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t k = 0; k < size_t(n) * n; k += 9973) {
        const size_t r = k / n, c = k % n;
        if (t[c * n + r] != a[r * n + c]) ++bad;
    }
    unsigned h[256];
    CHECK(cudaMemcpy(h, bins, sizeof h, cudaMemcpyDeviceToHost));
    if (h[7] != bytes / 2 || h[200] != bytes / 2) ++bad;
    std::printf("diff_demo FIXED=%d: %s\n", FIXED, bad ? "WRONG" : "checks passed");
    return bad ? 1 : 0;
}
