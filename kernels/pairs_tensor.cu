// Tensor-core pair, C = A * B^T with A and B both K-major (row-major M x K and N x K, as
// torch.nn.Linear multiplies): WMMA fragments loaded straight from global memory -> the wgmma
// kernel of pairs_wgmma.cu. wmma_staged, between them, stages tiles in shared memory through a
// three-stage cp.async pipeline but still issues mma.sync. cuBLAS on the same problem is measured
// beside them through PyTorch (torch_ops.py, matmul_fp16).
#include "half_gemm.hpp"

#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

namespace roofline::kernels {
namespace {

using namespace nvcuda;

// One warp per 16x16 output tile; every fragment comes from global memory, so the tensor
// cores wait on loads that each fetch a 16x16 block with a 2*K-byte stride.
__global__ void wmma_global(const half* __restrict__ a, const half* __restrict__ b, float* __restrict__ c, int n) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles = n / 16;
    int tr = warp / tiles, tc = warp % tiles;
    if (tr >= tiles) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k += 16) {
        wmma::load_matrix_sync(fa, a + size_t(tr) * 16 * n + k, n);
        wmma::load_matrix_sync(fb, b + size_t(tc) * 16 * n + k, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + size_t(tr) * 16 * n + tc * 16, acc, n, wmma::mem_row_major);
}

// 128x128 block tile, 8 warps of 64x32, K in steps of 32; three stages of cp.async keep two
// tiles in flight while the tensor cores work on the third. Both tiles are K-major with rows
// padded by 8 halves (16 bytes) so fragment loads do not conflict.
constexpr int st_bm = 128, st_bn = 128, st_bk = 32, st_stages = 3;
constexpr int st_ld = st_bk + 8;
constexpr int st_smem_bytes = st_stages * (st_bm + st_bn) * st_ld * int(sizeof(half));

__global__ void __launch_bounds__(256) wmma_staged(const half* __restrict__ a, const half* __restrict__ b, float* __restrict__ c, int n) {
    extern __shared__ __align__(128) unsigned char smem[];
    half* as = reinterpret_cast<half*>(smem);
    half* bs = as + st_stages * st_bm * st_ld;
    const int tid = threadIdx.x, warp = tid / 32;
    const int row0 = blockIdx.y * st_bm, col0 = blockIdx.x * st_bn;
    const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;

    auto load_stage = [&](int kt, int stage) {
        half* sa = as + stage * st_bm * st_ld;
        half* sb = bs + stage * st_bn * st_ld;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            int q = tid + i * 256;  // 512 chunks of 8 halves per tile
            int r = q / 4, k = (q % 4) * 8;
            __pipeline_memcpy_async(sa + r * st_ld + k, a + size_t(row0 + r) * n + kt * st_bk + k, 16);
            __pipeline_memcpy_async(sb + r * st_ld + k, b + size_t(col0 + r) * n + kt * st_bk + k, 16);
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int k_tiles = n / st_bk;
#pragma unroll
    for (int s = 0; s < st_stages - 1; ++s) {
        if (s < k_tiles) load_stage(s, s);
        __pipeline_commit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
        __pipeline_wait_prior(st_stages - 2);
        __syncthreads();  // tile kt is in; every warp is done with the stage about to be refilled
        int next = kt + st_stages - 1;
        if (next < k_tiles) load_stage(next, next % st_stages);
        __pipeline_commit();
        const half* sa = as + (kt % st_stages) * st_bm * st_ld;
        const half* sb = bs + (kt % st_stages) * st_bn * st_ld;
#pragma unroll
        for (int kk = 0; kk < st_bk; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb[2];
#pragma unroll
            for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(fa[i], sa + (wm + i * 16) * st_ld + kk, st_ld);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], sb + (wn + j * 16) * st_ld + kk, st_ld);
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(c + size_t(row0 + wm + i * 16) * n + col0 + wn + j * 16, acc[i][j], n, wmma::mem_row_major);
}

class wmma_case : public half_gemm_case {
public:
    wmma_case(bool staged, int n) : half_gemm_case(n), staged_(staged) {}
    std::string name() const override { return staged_ ? "wmma_staged" : "wmma_global"; }
    std::string intent() const override {
        return staged_ ? "compute/tensor_fp16: shared-memory staged, 3-stage cp.async pipeline"
                       : "tensor cores starved: fragments loaded straight from global memory";
    }
    void launch(cudaStream_t s) override {
        if (staged_) {
            wmma_staged<<<dim3(n_ / st_bn, n_ / st_bm), 256, st_smem_bytes, s>>>(a_.get(), b_.get(), c_.get(), n_);
        } else {
            size_t warps = size_t(n_ / 16) * (n_ / 16);
            wmma_global<<<unsigned(warps * 32 / 128), 128, 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
        }
    }

private:
    void prepare() override {
        if (staged_)
            ROOFLINE_CUDA_CHECK(cudaFuncSetAttribute(wmma_staged, cudaFuncAttributeMaxDynamicSharedMemorySize, st_smem_bytes));
    }

    bool staged_;
};

}  // namespace

void add_tensor_pair_cases(case_list& out) {
    out.push_back(std::make_unique<wmma_case>(false, scaled_dim(4096, 128)));
    out.push_back(std::make_unique<wmma_case>(true, scaled_dim(4096, 128)));
}

}  // namespace roofline::kernels
