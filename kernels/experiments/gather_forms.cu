// Experiment behind the occupancy pair's missed 80% target (examples/h100/MANIFEST.md): does any form of
// the random gather keep L2 busier than gather_full_occupancy? Built and run by hand on the device:
//   nvcc -O3 -std=c++17 -arch=sm_90 gather_forms.cu -o g && ./g
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <cuda_runtime.h>

template <int ILP>
__global__ void gather_ilp(const float* __restrict__ t, const unsigned* __restrict__ idx, float* __restrict__ out, size_t n) {
    size_t base = size_t(blockIdx.x) * blockDim.x + threadIdx.x, stride = size_t(gridDim.x) * blockDim.x;
    unsigned j[ILP];
    float v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) j[k] = idx[base + k * stride];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = t[j[k]];
#pragma unroll
    for (int k = 0; k < ILP; ++k) out[base + k * stride] = v[k];
}

__global__ void gather_cs(const float* __restrict__ t, const unsigned* __restrict__ idx, float* __restrict__ out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) __stcs(out + i, __ldg(t + __ldcs(idx + i)));
}

int main() {
    size_t n = size_t(32) << 20, table = size_t(64) << 20;
    std::vector<float> ht(table, 1.0f);
    std::vector<unsigned> hi(n);
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<unsigned> pick(0, unsigned(table - 1));
    for (auto& v : hi) v = pick(rng);
    float *t, *o; unsigned* ix;
    cudaMalloc(&t, table * 4); cudaMalloc(&o, n * 4); cudaMalloc(&ix, n * 4);
    cudaMemcpy(t, ht.data(), table * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(ix, hi.data(), n * 4, cudaMemcpyHostToDevice);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    auto time = [&](const char* name, auto launch) {
        launch(); cudaDeviceSynchronize();
        float best = 1e9;
        for (int r = 0; r < 10; ++r) { cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); best = ms < best ? ms : best; }
        printf("%-14s %8.1f us\n", name, best * 1000);
    };
    time("ilp1_b256", [&] { gather_ilp<1><<<n / 256, 256>>>(t, ix, o, n); });
    time("ilp1_b1024", [&] { gather_ilp<1><<<n / 1024, 1024>>>(t, ix, o, n); });
    time("ilp2_b256", [&] { gather_ilp<2><<<n / 512, 256>>>(t, ix, o, n); });
    time("ilp4_b256", [&] { gather_ilp<4><<<n / 1024, 256>>>(t, ix, o, n); });
    time("cs_b256", [&] { gather_cs<<<n / 256, 256>>>(t, ix, o, n); });
    printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
