// Experiment behind the engine's same-line atomic floor (docs/model.md, "Same-line atomics"): how long
// does one global atomic take when every one of them hits the same L2 line, against atomics spread over
// many lines? Built and run on the device, then profiled with the counters the floor reads:
//   nvcc -O3 -std=c++17 -arch=sm_90 atomic_line.cu -o a && ./a
//   ncu --metrics gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_red.sum,\
//       lts__t_sectors_srcunit_tex_op_red_lookup_miss.sum,lts__cycles_elapsed.avg.per_second ./a --once
// Each block's thread 0 adds to `lines` floats 128 bytes apart, `per_block` times (RED: the result is
// unused). lines = 1 is a sum's "one atomicAdd per block into one float".
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

__global__ void red_lines(float* __restrict__ x, int lines, int per_block) {
    if (threadIdx.x != 0) return;
    float* line = x + size_t(blockIdx.x % lines) * 32;
    for (int k = 0; k < per_block; ++k) atomicAdd(line, 1.0f);
}

int main(int argc, char** argv) {
    const bool once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
    const int max_lines = 4096;
    float* x = nullptr;
    cudaMalloc(&x, size_t(max_lines) * 32 * sizeof(float));
    struct shape { int blocks, per_block, lines; };
    const std::vector<shape> shapes = {{262144, 1, 1}, {65536, 4, 1}, {16384, 16, 1}, {262144, 1, 64}, {262144, 1, 4096}};
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::printf("%10s %10s %6s %12s %14s\n", "blocks", "per_block", "lines", "median_us", "ns_per_atomic");
    for (const auto& s : shapes) {
        std::vector<float> times;
        for (int rep = 0; rep < (once ? 1 : 11); ++rep) {
            cudaMemset(x, 0, size_t(max_lines) * 32 * sizeof(float));
            cudaEventRecord(a);
            red_lines<<<s.blocks, 32>>>(x, s.lines, s.per_block);
            cudaEventRecord(b);
            cudaEventSynchronize(b);
            float ms = 0;
            cudaEventElapsedTime(&ms, a, b);
            times.push_back(ms);
        }
        std::sort(times.begin(), times.end());
        const double us = 1e3 * times[times.size() / 2];
        float got = 0;
        cudaMemcpy(&got, x, sizeof got, cudaMemcpyDeviceToHost);
        const double expect = double(s.blocks) * s.per_block / s.lines;
        std::printf("%10d %10d %6d %12.2f %14.3f%s\n", s.blocks, s.per_block, s.lines, us,
                    1e3 * us / (double(s.blocks) * s.per_block), got == float(expect) ? "" : "  WRONG SUM");
    }
    cudaFree(x);
    return 0;
}
