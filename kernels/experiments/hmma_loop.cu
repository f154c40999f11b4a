// Checks what ncu's HighPipeUtilization rule says of a kernel that keeps the tensor pipe busy with mma.sync
// (HMMA) alone: does it write "caused by high-latency instructions", as it does for warpgroup MMA (HGMMA)
// kernels? analyzer/read/ncu_rule_values.cpp reads that sentence as the wgmma path (issue 33).
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a kernels/experiments/hmma_loop.cu -o hmma_loop
//   ncu --set full -o hmma ./hmma_loop; ncu -i hmma.ncu-rep --csv --page details > hmma_details.csv
#include <cstdio>
#include <cuda_runtime.h>

__global__ void hmma_loop(float* out, int iterations) {
    unsigned a0 = threadIdx.x, a1 = a0 * 3u, a2 = a0 * 5u, a3 = a0 * 7u, b0 = a0 * 11u, b1 = a0 * 13u;
    float c[4][4] = {};
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j)  // four independent accumulators keep the pipe fed
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                "{%0,%1,%2,%3};\n"
                : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    float s = 0;
    for (int j = 0; j < 4; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = sms * 8, threads = 128;
    float* out = nullptr;
    cudaMalloc(&out, sizeof(float) * blocks * threads);
    hmma_loop<<<blocks, threads>>>(out, 4096);
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventRecord(t0);
    hmma_loop<<<blocks, threads>>>(out, 4096);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    const double flops = 2.0 * 16 * 8 * 16 * 4 * 4096.0 * (blocks * threads / 32);
    std::printf("hmma_loop: %.3f ms, %.1f TFLOP/s (fp16 in, fp32 accumulate)\n", ms, flops / ms / 1e9);
    cudaFree(out);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
