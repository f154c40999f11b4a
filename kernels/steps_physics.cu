// Four more progressions, each chain slow -> fast with one change per step, written to show a hardware
// mechanism ("physics") a profiler-based tool should name: too few blocks for the SMs and for the bytes
// DRAM needs in flight, uncoalesced rows, shared-memory bank conflicts, and tensor cores starved by an
// unpipelined shared-memory stage. Every case is checked against a CPU reference. Each kernel's name is
// its case's name, so a capture's rows are found by name; examples/steps_physics/LABELS.md says what each
// step is expected to show, written before the captures.
//
// Sum of 2^26 floats (256 MiB) into one float, launched with 32, 64, 128, 1,024 and 4,096 blocks:
//   phys_reduce_bN    one grid-stride body (256 threads, four 4-byte loads in flight per thread, warp
//                     shuffles, one atomicAdd per block); the five kernels differ in name and grid only.
//                     launch() zeroes the output with cudaMemsetAsync first, as steps.cu's sums do.
// Sum of squares of each row, out[r] = sum_c x[r][c]^2, 16,384 x 4,096 fp32 (256 MiB):
//   phys_rows_thread  one thread per row: a warp's lanes read 32 rows 16 KiB apart; 16,384 threads
//   phys_rows_warp    one warp per row: 128-byte coalesced warp loads, one 4-byte load in flight per lane
//   phys_rows_block   one 256-thread block per row: 16-byte loads, 16 bytes in flight per thread
//   All three keep one load in flight per thread (#pragma unroll 1), so each step changes one thing.
// Transpose 16,384 x 16,384 fp32 (1 GiB in, 1 GiB out), 32 x 8 threads moving a 32 x 32 tile:
//   phys_xpose_smem   tile [32][32]: the column read t[tx][ty + j] hits one bank 32 times
//   phys_xpose_padded tile [32][33]: the column read is conflict-free
// C = A * B^T, 4,096^3, fp16 A (M x K) and B (N x K), fp32 accumulate and output (half_gemm.hpp):
//   128 x 128 x 32 block tiles, 8 warps of 64 x 32, tiles copied to shared memory (rows padded to 40
//   halves) with cp.async through S = 1..4 stages; S = 1 is load, wait, compute, one buffer.
//   phys_wmma_sS      the warp tile computed with the WMMA API (load_matrix_sync, mma_sync 16x16x16)
//   phys_mma_sS       the warp tile computed with inline PTX ldmatrix.x4 and mma.sync.m16n8k16
#include "half_gemm.hpp"

#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <cmath>

namespace roofline::kernels {
namespace {

constexpr int phys_threads = 256;

// The block's sum (256 threads): warp shuffles, one shared partial per warp, warp 0 adds them.
// Returns the sum in thread 0 only.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float part[phys_threads / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum_all(v);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) v = warp_sum_all(lane < phys_threads / 32 ? part[lane] : 0.0f);
    return v;
}

// ---------------------------------------------------------------------------------------------
// 1. Sum of a vector with a fixed number of blocks. Each iteration of the main loop issues four
// independent coalesced 4-byte loads per thread and unrolls no further: 16 bytes in flight per
// thread, 4 KiB per 256-thread block. Bytes in flight per SM therefore grow with resident blocks.

constexpr size_t phys_reduce_count_default = size_t(1) << 26;

__device__ __forceinline__ void reduce_body(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
#pragma unroll 1
    for (; i + 3 * stride < n; i += 4 * stride) {
        const float a = x[i], b = x[i + stride], c = x[i + 2 * stride], d = x[i + 3 * stride];
        s0 += a;
        s1 += b;
        s2 += c;
        s3 += d;
    }
#pragma unroll 1
    for (; i < n; i += stride) s0 += x[i];
    const float v = block_sum((s0 + s1) + (s2 + s3));
    if (threadIdx.x == 0) atomicAdd(out, v);
}

// One body, five names (a capture's rows are matched by kernel name); the grids differ.
__global__ void __launch_bounds__(phys_threads) phys_reduce_b32(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    reduce_body(x, out, n);
}
__global__ void __launch_bounds__(phys_threads) phys_reduce_b64(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    reduce_body(x, out, n);
}
__global__ void __launch_bounds__(phys_threads) phys_reduce_b128(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    reduce_body(x, out, n);
}
__global__ void __launch_bounds__(phys_threads) phys_reduce_b1024(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    reduce_body(x, out, n);
}
__global__ void __launch_bounds__(phys_threads) phys_reduce_b4096(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    reduce_body(x, out, n);
}

class phys_reduce_case : public kernel_case {
public:
    explicit phys_reduce_case(int blocks) : blocks_(blocks) {}
    std::string name() const override { return "phys_reduce_b" + std::to_string(blocks_); }
    std::string intent() const override {
        return "steps_physics reduce: one grid-stride sum body, 256 threads, " + std::to_string(blocks_) + " blocks";
    }
    void setup(std::mt19937_64& rng) override {
        n_ = scaled_count(phys_reduce_count_default);
        // Positive inputs keep the sum well conditioned: the atomics' order changes only rounding.
        host_ = random_floats(rng, n_, 0.0f, 1.0f);
        x_ = device_buffer<float>(n_);
        x_.upload(host_);
        out_ = device_buffer<float>(1);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        ROOFLINE_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0, sizeof(float), s));
        decltype(&phys_reduce_b32) k = nullptr;
        switch (blocks_) {
            case 32: k = phys_reduce_b32; break;
            case 64: k = phys_reduce_b64; break;
            case 128: k = phys_reduce_b128; break;
            case 1024: k = phys_reduce_b1024; break;
            default: k = phys_reduce_b4096;
        }
        k<<<blocks_, phys_threads, 0, s>>>(x_.get(), out_.get(), n_);
    }
    double check() override {
        double want = 0.0;
        for (float v : host_) want += v;
        return relative_error({double(out_.download()[0])}, {want});
    }
    // A float32 sum of 2^26 terms in another order.
    double tolerance() const override { return 1e-4; }
    double min_bytes() const override { return double(n_) * sizeof(float) + sizeof(float); }
    double flops() const override { return double(n_); }

private:
    int blocks_;
    size_t n_ = 0;
    std::vector<float> host_;
    device_buffer<float> x_, out_;
};

// ---------------------------------------------------------------------------------------------
// 2. Sum of squares of each row. cols is a run-time argument; every loop keeps one load in flight
// per thread (#pragma unroll 1), so the steps differ in the mapping and the load width only.

constexpr int phys_rows_default = 16384, phys_cols = 4096;

__global__ void __launch_bounds__(128) phys_rows_thread(const float* __restrict__ x, float* __restrict__ out, int rows, int cols) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* p = x + size_t(r) * cols;
    float s = 0.0f;
#pragma unroll 1
    for (int c = 0; c < cols; ++c) {
        const float v = p[c];
        s = fmaf(v, v, s);
    }
    out[r] = s;
}

__global__ void __launch_bounds__(phys_threads) phys_rows_warp(const float* __restrict__ x, float* __restrict__ out, int rows, int cols) {
    const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (r >= rows) return;  // the whole warp: r is the same for its 32 lanes
    const float* p = x + size_t(r) * cols;
    float s = 0.0f;
#pragma unroll 1
    for (int c = lane; c < cols; c += 32) {
        const float v = p[c];
        s = fmaf(v, v, s);
    }
    s = warp_sum_all(s);
    if (lane == 0) out[r] = s;
}

// cols a multiple of 4; rows start 16-byte aligned (cols * 4 bytes apart from a cudaMalloc base).
__global__ void __launch_bounds__(phys_threads) phys_rows_block(const float* __restrict__ x, float* __restrict__ out, int rows, int cols) {
    const float4* p = reinterpret_cast<const float4*>(x + size_t(blockIdx.x) * cols);
    float s = 0.0f;
#pragma unroll 1
    for (int c = threadIdx.x; c < cols / 4; c += blockDim.x) {
        const float4 v = p[c];
        s = fmaf(v.x, v.x, s);
        s = fmaf(v.y, v.y, s);
        s = fmaf(v.z, v.z, s);
        s = fmaf(v.w, v.w, s);
    }
    s = block_sum(s);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

enum class rows_kind { thread, warp, block };

class phys_rows_case : public kernel_case {
public:
    explicit phys_rows_case(rows_kind k) : kind_(k) {}
    std::string name() const override {
        switch (kind_) {
            case rows_kind::thread: return "phys_rows_thread";
            case rows_kind::warp: return "phys_rows_warp";
            default: return "phys_rows_block";
        }
    }
    std::string intent() const override {
        switch (kind_) {
            case rows_kind::thread: return "steps_physics rows 0: one thread per row, lanes 16 KiB apart, 16,384 threads";
            case rows_kind::warp: return "steps_physics rows 1: one warp per row, coalesced, one 4-byte load in flight per lane";
            default: return "steps_physics rows 2: one block per row, 16-byte loads";
        }
    }
    void setup(std::mt19937_64& rng) override {
        rows_ = int(scaled_count(size_t(phys_rows_default) * phys_cols) / phys_cols);
        host_ = random_floats(rng, size_t(rows_) * phys_cols);
        x_ = device_buffer<float>(host_.size());
        x_.upload(host_);
        out_ = device_buffer<float>(rows_);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        switch (kind_) {
            case rows_kind::thread:
                phys_rows_thread<<<(rows_ + 127) / 128, 128, 0, s>>>(x_.get(), out_.get(), rows_, phys_cols);
                break;
            case rows_kind::warp:
                phys_rows_warp<<<(rows_ + 7) / 8, phys_threads, 0, s>>>(x_.get(), out_.get(), rows_, phys_cols);
                break;
            default:
                phys_rows_block<<<rows_, phys_threads, 0, s>>>(x_.get(), out_.get(), rows_, phys_cols);
        }
    }
    // Every row, against float64 sums.
    double check() override {
        auto got = out_.download();
        error_sum err;
        for (int r = 0; r < rows_; ++r) {
            const float* in = host_.data() + size_t(r) * phys_cols;
            double want = 0.0;
            for (int c = 0; c < phys_cols; ++c) want += double(in[c]) * in[c];
            err.add(got[r], want);
        }
        return err.value();
    }
    // Float32 sums of 4,096 squares in three different orders.
    double tolerance() const override { return 1e-4; }
    double min_bytes() const override { return double(rows_) * phys_cols * sizeof(float) + double(rows_) * sizeof(float); }
    double flops() const override { return 2.0 * rows_ * double(phys_cols); }

private:
    rows_kind kind_;
    int rows_ = 0;
    std::vector<float> host_;
    device_buffer<float> x_, out_;
};

// ---------------------------------------------------------------------------------------------
// 3. Transpose, out[c][r] = in[r][c], n x n fp32 row-major, n a multiple of 32. Blocks of 32 x 8
// threads, each moving 4 elements of a 32 x 32 tile (rows ty, ty + 8, ty + 16, ty + 24).

template <int pad>
__device__ __forceinline__ void phys_tile32(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float t[32][32 + pad];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int bx = blockIdx.x * 32, by = blockIdx.y * 32;
#pragma unroll
    for (int j = 0; j < 32; j += 8) t[ty + j][tx] = in[size_t(by + ty + j) * n + bx + tx];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 32; j += 8) out[size_t(bx + ty + j) * n + by + tx] = t[tx][ty + j];
}

// t[tx][ty + j]: the 32 lanes read one tile column, 32 words apart, all in one bank.
__global__ void phys_xpose_smem(const float* __restrict__ in, float* __restrict__ out, int n) {
    phys_tile32<0>(in, out, n);
}

// 33 words apart: the 32 lanes of a column read hit 32 different banks.
__global__ void phys_xpose_padded(const float* __restrict__ in, float* __restrict__ out, int n) {
    phys_tile32<1>(in, out, n);
}

class phys_xpose_case : public kernel_case {
public:
    explicit phys_xpose_case(bool padded) : padded_(padded) {}
    std::string name() const override { return padded_ ? "phys_xpose_padded" : "phys_xpose_smem"; }
    std::string intent() const override {
        return padded_ ? "steps_physics transpose 1: 16,384^2 fp32, 32x33 shared tile, no bank conflicts"
                       : "steps_physics transpose 0: 16,384^2 fp32, 32x32 shared tile, 32-way column-read conflicts";
    }
    void setup(std::mt19937_64& rng) override {
        n_ = scaled_dim(16384, 64);
        host_ = random_floats(rng, size_t(n_) * n_);
        in_ = device_buffer<float>(host_.size());
        in_.upload(host_);
        out_ = device_buffer<float>(host_.size());
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        const dim3 grid(n_ / 32, n_ / 32), threads(32, 8);
        if (padded_)
            phys_xpose_padded<<<grid, threads, 0, s>>>(in_.get(), out_.get(), n_);
        else
            phys_xpose_smem<<<grid, threads, 0, s>>>(in_.get(), out_.get(), n_);
    }
    // Every element, in 64 x 64 blocks so both matrices are walked cache by cache.
    double check() override {
        auto got = out_.download();
        error_sum err;
        for (int r0 = 0; r0 < n_; r0 += 64)
            for (int c0 = 0; c0 < n_; c0 += 64)
                for (int c = c0; c < c0 + 64; ++c)
                    for (int r = r0; r < r0 + 64; ++r) err.add(got[size_t(c) * n_ + r], host_[size_t(r) * n_ + c]);
        return err.value();
    }
    double tolerance() const override { return 0.0; }  // a copy: every element exact
    double min_bytes() const override { return 2.0 * n_ * double(n_) * sizeof(float); }

private:
    bool padded_;
    int n_ = 0;
    std::vector<float> host_;
    device_buffer<float> in_, out_;
};

// ---------------------------------------------------------------------------------------------
// 4. Tensor-core GEMM, C = A * B^T (half_gemm.hpp), n a multiple of 128. 128 x 128 x 32 block tiles,
// 256 threads, warp w computes rows (w / 4) * 64 .. + 64 and columns (w % 4) * 32 .. + 32 of the tile.
// A stage holds the A tile (128 rows of 32 halves) then the B tile (128 rows, N-major, 32 halves of
// K each), rows padded to 40 halves (80 bytes): the 8 rows of an ldmatrix or fragment load fall in
// 8 disjoint groups of 4 banks. Both kernels share the loader and the pipeline; only the warp's
// compute differs. __launch_bounds__(256, 2) keeps registers at or under 128, so every stage count
// runs 2 blocks per SM (4 stages: 80 KiB of shared memory per block).

using namespace nvcuda;

constexpr int g_bm = 128, g_bn = 128, g_bk = 32, g_ld = g_bk + 8;
constexpr int g_stage_halves = (g_bm + g_bn) * g_ld;
constexpr int g_threads = 256;

constexpr int g_smem_bytes(int stages) { return stages * g_stage_halves * int(sizeof(half)); }

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int n>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(n));
}

// Tile k0 .. k0 + 32 of A's rows row0.. and B's rows col0.. into one stage: 2 x 512 chunks of 16
// bytes, 4 per thread; a warp's 32 chunks cover 8 rows x 64 contiguous bytes of each matrix.
__device__ __forceinline__ void load_stage(half* stage, const half* __restrict__ a, const half* __restrict__ b, int row0,
                                           int col0, int k0, int n) {
    half* sa = stage;
    half* sb = stage + g_bm * g_ld;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int q = threadIdx.x + i * g_threads, r = q / 4, k = (q % 4) * 8;
        cp_async16(sa + r * g_ld + k, a + size_t(row0 + r) * n + k0 + k);
        cp_async16(sb + r * g_ld + k, b + size_t(col0 + r) * n + k0 + k);
    }
}

// S = 1: load, wait, barrier, compute, barrier. S >= 2: S - 1 tiles in flight ahead of the one
// being computed; the barrier after each wait also says every warp is done with the stage that is
// refilled next.
template <int S, class Compute>
__device__ __forceinline__ void gemm_pipeline(const half* __restrict__ a, const half* __restrict__ b, int n, half* smem,
                                              Compute& compute) {
    const int row0 = blockIdx.y * g_bm, col0 = blockIdx.x * g_bn;
    const int k_tiles = n / g_bk;
    if constexpr (S == 1) {
        for (int kt = 0; kt < k_tiles; ++kt) {
            load_stage(smem, a, b, row0, col0, kt * g_bk, n);
            cp_async_commit();
            cp_async_wait<0>();
            __syncthreads();
            compute(smem);
            __syncthreads();
        }
    } else {
#pragma unroll
        for (int s = 0; s < S - 1; ++s) {
            if (s < k_tiles) load_stage(smem + s * g_stage_halves, a, b, row0, col0, s * g_bk, n);
            cp_async_commit();
        }
        for (int kt = 0; kt < k_tiles; ++kt) {
            cp_async_wait<S - 2>();
            __syncthreads();
            const int next = kt + S - 1;
            if (next < k_tiles) load_stage(smem + (next % S) * g_stage_halves, a, b, row0, col0, next * g_bk, n);
            cp_async_commit();
            compute(smem + (kt % S) * g_stage_halves);
        }
    }
}

// WMMA: per 16 of K, 4 A and 2 B 16x16 fragments from shared memory, 8 mma_sync.
struct wmma_warp {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
    int wm, wn;
    __device__ wmma_warp() {
        const int warp = threadIdx.x / 32;
        wm = (warp / 4) * 64;
        wn = (warp % 4) * 32;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    }
    __device__ __forceinline__ void operator()(const half* stage) {
        const half* sa = stage;
        const half* sb = stage + g_bm * g_ld;
#pragma unroll
        for (int kk = 0; kk < g_bk; kk += 16) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb[2];
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], sb + (wn + j * 16) * g_ld + kk, g_ld);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
                wmma::load_matrix_sync(fa, sa + (wm + i * 16) * g_ld + kk, g_ld);
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa, fb[j], acc[i][j]);
            }
        }
    }
    __device__ __forceinline__ void store(float* c, int n) {
        const int row0 = blockIdx.y * g_bm, col0 = blockIdx.x * g_bn;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j)
                wmma::store_matrix_sync(c + size_t(row0 + wm + i * 16) * n + col0 + wn + j * 16, acc[i][j], n,
                                        wmma::mem_row_major);
    }
};

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// mma.sync m16n8k16: per 16 of K, 4 ldmatrix.x4 for the A 16x16 tiles and 2 for the B 16x16 tiles
// (each two n8 tiles), 16 mma. Lane l of an A ldmatrix.x4 addresses row l % 16, column (l / 16) * 8:
// registers a0..a3 are (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15), the mma's A
// operand order. Lane l of a B ldmatrix.x4 addresses N row (l % 8) + (l / 16) * 8, K column
// ((l / 8) % 2) * 8: registers (n 0-7, k 0-7), (n 0-7, k 8-15) are the first n8 tile's b0, b1.
struct mma_warp {
    float acc[4][4][4];
    int wm, wn;
    __device__ mma_warp() {
        const int warp = threadIdx.x / 32;
        wm = (warp / 4) * 64;
        wn = (warp % 4) * 32;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
    }
    __device__ __forceinline__ void operator()(const half* stage) {
        const int lane = threadIdx.x % 32;
        const unsigned sa = smem_addr(stage), sb = sa + g_bm * g_ld * unsigned(sizeof(half));
        const int a_row = lane % 16, a_col = (lane / 16) * 8;
        const int b_row = (lane % 8) + (lane / 16) * 8, b_col = ((lane / 8) % 2) * 8;
#pragma unroll
        for (int kk = 0; kk < g_bk; kk += 16) {
            unsigned bf[2][4];
#pragma unroll
            for (int jj = 0; jj < 2; ++jj)
                ldmatrix_x4(bf[jj], sb + unsigned(((wn + jj * 16 + b_row) * g_ld + kk + b_col) * sizeof(half)));
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                unsigned af[4];
                ldmatrix_x4(af, sa + unsigned(((wm + i * 16 + a_row) * g_ld + kk + a_col) * sizeof(half)));
#pragma unroll
                for (int j = 0; j < 4; ++j) mma_16816(acc[i][j], af, bf[j / 2][(j % 2) * 2], bf[j / 2][(j % 2) * 2 + 1]);
            }
        }
    }
    // c0, c1 at (row g, columns 2t, 2t + 1), c2, c3 at row g + 8; g = lane / 4, t = lane % 4.
    __device__ __forceinline__ void store(float* c, int n) {
        const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
        const int row0 = blockIdx.y * g_bm + wm, col0 = blockIdx.x * g_bn + wn;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                float* p = c + size_t(row0 + i * 16 + g) * n + col0 + j * 8 + 2 * t;
                *reinterpret_cast<float2*>(p) = make_float2(acc[i][j][0], acc[i][j][1]);
                *reinterpret_cast<float2*>(p + size_t(8) * n) = make_float2(acc[i][j][2], acc[i][j][3]);
            }
    }
};

template <int S, class Warp>
__device__ __forceinline__ void gemm_body(const half* __restrict__ a, const half* __restrict__ b, float* __restrict__ c, int n) {
    extern __shared__ __align__(128) unsigned char gemm_smem[];
    half* smem = reinterpret_cast<half*>(gemm_smem);
    Warp w;
    gemm_pipeline<S>(a, b, n, smem, w);
    w.store(c, n);
}

#define PHYS_GEMM_KERNEL(name, stages, warp)                                                                      \
    __global__ void __launch_bounds__(g_threads, 2)                                                               \
        name(const half* __restrict__ a, const half* __restrict__ b, float* __restrict__ c, int n) {              \
        gemm_body<stages, warp>(a, b, c, n);                                                                      \
    }
PHYS_GEMM_KERNEL(phys_wmma_s1, 1, wmma_warp)
PHYS_GEMM_KERNEL(phys_wmma_s2, 2, wmma_warp)
PHYS_GEMM_KERNEL(phys_wmma_s3, 3, wmma_warp)
PHYS_GEMM_KERNEL(phys_wmma_s4, 4, wmma_warp)
PHYS_GEMM_KERNEL(phys_mma_s1, 1, mma_warp)
PHYS_GEMM_KERNEL(phys_mma_s2, 2, mma_warp)
PHYS_GEMM_KERNEL(phys_mma_s3, 3, mma_warp)
PHYS_GEMM_KERNEL(phys_mma_s4, 4, mma_warp)
#undef PHYS_GEMM_KERNEL

using gemm_kernel = void (*)(const half*, const half*, float*, int);

class phys_gemm_case : public half_gemm_case {
public:
    phys_gemm_case(bool mma, int stages, int n) : half_gemm_case(n), mma_(mma), stages_(stages) {}
    std::string name() const override {
        return std::string(mma_ ? "phys_mma_s" : "phys_wmma_s") + std::to_string(stages_);
    }
    std::string intent() const override {
        return std::string("steps_physics gemm: 4,096^3 fp16 -> fp32, 128x128x32 tiles, ") +
               (mma_ ? "ldmatrix + mma.sync.m16n8k16" : "WMMA 16x16x16") + ", " + std::to_string(stages_) +
               (stages_ == 1 ? " cp.async stage (load, wait, compute)" : " cp.async stages");
    }
    void launch(cudaStream_t s) override {
        kernel()<<<dim3(n_ / g_bn, n_ / g_bm), g_threads, g_smem_bytes(stages_), s>>>(a_.get(), b_.get(), c_.get(), n_);
    }
    // fp16 inputs are exact in the float64 reference; what is left is the fp32 accumulation's rounding.
    double tolerance() const override { return 1e-3; }

private:
    gemm_kernel kernel() const {
        static const gemm_kernel wmma_k[4] = {phys_wmma_s1, phys_wmma_s2, phys_wmma_s3, phys_wmma_s4};
        static const gemm_kernel mma_k[4] = {phys_mma_s1, phys_mma_s2, phys_mma_s3, phys_mma_s4};
        return (mma_ ? mma_k : wmma_k)[stages_ - 1];
    }
    void prepare() override {
        ROOFLINE_CUDA_CHECK(
            cudaFuncSetAttribute(kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize, g_smem_bytes(stages_)));
    }

    bool mma_;
    int stages_;
};

}  // namespace

void add_step_physics_cases(case_list& out) {
    for (int blocks : {32, 64, 128, 1024, 4096}) out.push_back(std::make_unique<phys_reduce_case>(blocks));
    out.push_back(std::make_unique<phys_rows_case>(rows_kind::thread));
    out.push_back(std::make_unique<phys_rows_case>(rows_kind::warp));
    out.push_back(std::make_unique<phys_rows_case>(rows_kind::block));
    out.push_back(std::make_unique<phys_xpose_case>(false));
    out.push_back(std::make_unique<phys_xpose_case>(true));
    for (bool mma : {false, true})
        for (int stages = 1; stages <= 4; ++stages)
            out.push_back(std::make_unique<phys_gemm_case>(mma, stages, scaled_dim(4096, 128)));
}

}  // namespace roofline::kernels
