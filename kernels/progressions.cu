// Two progressions toward a fast version of one operation, each step applying one fix, every
// variant checked and timed. They validate the engine's estimates (examples/wild): the first
// finding on step i names a fix, and the measured gain of the step that applies it is what the
// estimate is held to. Written for this project from the textbook ideas, not ported.
//
// Row sum (y[r] = sum_c x[r][c], 65,536 x 1,024 floats, 256 MiB):
//   rowsum_thread   one thread per row: a warp's 32 lanes read 32 rows 4 KiB apart
//   rowsum_warp     one warp per row, lanes read consecutive floats, shuffle reduction
//   rowsum_warp_vec one warp per row, 16-byte loads, four independent accumulators
// SGEMM (C = A * B, 2,048^3, FP32 on CUDA cores):
//   sgemm_naive_rows      thread x walks rows: A's loads are 32 rows apart, C's stores too
//   sgemm_naive_cols      thread x walks columns: B's loads coalesce, A's are broadcast
//   sgemm_tiled16         16 x 16 tiles staged in shared memory, one output per thread
//   sgemm_blocked64       64 x 64 block tile, 4 x 4 outputs per thread from float4 shared loads
//   sgemm_blocked128      128 x 128 block tile, 8 x 8 outputs per thread: 4 FMAs per value loaded
// The last step of the SGEMM progression is cuBLAS with TF32 (kernels/wild/wild_ops.py), which
// answers the cuda-core-matmul finding.
#include "gemm_check.hpp"
#include "kernel_case.hpp"

namespace roofline::kernels {
namespace {

constexpr int rows_default = 65536, cols_default = 1024;

__global__ void rowsum_thread(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = x + size_t(r) * cols;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += row[c];
    y[r] = s;
}

__device__ float warp_sum(float s) {
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    return s;
}

__global__ void rowsum_warp(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (r >= rows) return;
    const float* row = x + size_t(r) * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += row[c];
    s = warp_sum(s);
    if (lane == 0) y[r] = s;
}

// cols must be a multiple of 512 (32 lanes x 4 floats x 4 accumulators).
__global__ void rowsum_warp_vec(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (r >= rows) return;
    const float4* row = reinterpret_cast<const float4*>(x + size_t(r) * cols);
    const int n4 = cols / 4;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int c = lane; c < n4; c += 128) {
        float4 a = row[c], b = row[c + 32], d = row[c + 64], e = row[c + 96];
        s0 += (a.x + a.y) + (a.z + a.w);
        s1 += (b.x + b.y) + (b.z + b.w);
        s2 += (d.x + d.y) + (d.z + d.w);
        s3 += (e.x + e.y) + (e.z + e.w);
    }
    float s = warp_sum((s0 + s1) + (s2 + s3));
    if (lane == 0) y[r] = s;
}

enum class rowsum_kind { thread, warp, warp_vec };

class rowsum_case : public kernel_case {
public:
    explicit rowsum_case(rowsum_kind k) : kind_(k) {}
    std::string name() const override {
        return kind_ == rowsum_kind::thread ? "rowsum_thread" : kind_ == rowsum_kind::warp ? "rowsum_warp" : "rowsum_warp_vec";
    }
    std::string intent() const override {
        switch (kind_) {
            case rowsum_kind::thread: return "progression rowsum 0: one thread per row, lanes 4 KiB apart";
            case rowsum_kind::warp: return "progression rowsum 1: one warp per row, coalesced 4-byte loads";
            default: return "progression rowsum 2: one warp per row, 16-byte loads, 4 accumulators";
        }
    }
    void setup(std::mt19937_64& rng) override {
        rows_ = int(scaled_count(size_t(rows_default) * cols_default) / cols_default);
        host_ = random_floats(rng, size_t(rows_) * cols_default, 0.0f, 1.0f);
        x_ = device_buffer<float>(host_.size());
        x_.upload(host_);
        y_ = device_buffer<float>(rows_);
    }
    void poison() override { y_.poison(); }
    void launch(cudaStream_t s) override {
        const int threads = 256;
        if (kind_ == rowsum_kind::thread)
            rowsum_thread<<<(rows_ + threads - 1) / threads, threads, 0, s>>>(x_.get(), y_.get(), rows_, cols_default);
        else if (kind_ == rowsum_kind::warp)
            rowsum_warp<<<(rows_ * 32 + threads - 1) / threads, threads, 0, s>>>(x_.get(), y_.get(), rows_, cols_default);
        else
            rowsum_warp_vec<<<(rows_ * 32 + threads - 1) / threads, threads, 0, s>>>(x_.get(), y_.get(), rows_, cols_default);
    }
    double check() override {
        auto got = y_.download();
        std::vector<double> g(got.begin(), got.end()), want(rows_, 0.0);
        for (int r = 0; r < rows_; ++r)
            for (int c = 0; c < cols_default; ++c) want[r] += host_[size_t(r) * cols_default + c];
        return relative_error(g, want);
    }
    double min_bytes() const override { return double(rows_) * cols_default * 4.0 + rows_ * 4.0; }
    double flops() const override { return double(rows_) * cols_default; }

private:
    rowsum_kind kind_;
    int rows_ = 0;
    std::vector<float> host_;
    device_buffer<float> x_, y_;
};

// SGEMM, C = A * B with all three row-major n x n.
__global__ void sgemm_naive_rows(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y * blockDim.y + threadIdx.y;
    float s = 0.0f;
    for (int k = 0; k < n; ++k) s += a[size_t(row) * n + k] * b[size_t(k) * n + col];
    c[size_t(row) * n + col] = s;
}

__global__ void sgemm_naive_cols(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    float s = 0.0f;
    for (int k = 0; k < n; ++k) s += a[size_t(row) * n + k] * b[size_t(k) * n + col];
    c[size_t(row) * n + col] = s;
}

constexpr int t16 = 16;

__global__ void sgemm_tiled16(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    __shared__ float as[t16][t16], bs[t16][t16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * t16 + tx, row = blockIdx.y * t16 + ty;
    float s = 0.0f;
    for (int k0 = 0; k0 < n; k0 += t16) {
        as[ty][tx] = a[size_t(row) * n + k0 + tx];
        bs[ty][tx] = b[size_t(k0 + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < t16; ++k) s += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[size_t(row) * n + col] = s;
}

// 64 x 64 outputs per block of 256 threads, 4 x 4 per thread; A's tile is stored transposed so a
// thread's four rows are one float4. K steps of 16.
constexpr int b64 = 64, bk16 = 16;

__global__ void __launch_bounds__(256) sgemm_blocked64(const float* __restrict__ a, const float* __restrict__ b,
                                                       float* __restrict__ c, int n) {
    __shared__ __align__(16) float at[bk16][b64];  // at[k][m]
    __shared__ __align__(16) float bt[bk16][b64];  // bt[k][n]
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int row0 = blockIdx.y * b64, col0 = blockIdx.x * b64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < n; k0 += bk16) {
        // 64 x 16 of A and 16 x 64 of B: 1,024 floats each, one float4 per thread each.
        {
            int m = tid / 4, k = (tid % 4) * 4;
            float4 v = *reinterpret_cast<const float4*>(a + size_t(row0 + m) * n + k0 + k);
            at[k + 0][m] = v.x;
            at[k + 1][m] = v.y;
            at[k + 2][m] = v.z;
            at[k + 3][m] = v.w;
            int kb = tid / 16, nb = (tid % 16) * 4;
            *reinterpret_cast<float4*>(&bt[kb][nb]) = *reinterpret_cast<const float4*>(b + size_t(k0 + kb) * n + col0 + nb);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < bk16; ++k) {
            float4 av = *reinterpret_cast<const float4*>(&at[k][ty * 4]);
            float4 bv = *reinterpret_cast<const float4*>(&bt[k][tx * 4]);
            const float ra[4] = {av.x, av.y, av.z, av.w}, rb[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
        *reinterpret_cast<float4*>(c + size_t(row0 + ty * 4 + i) * n + col0 + tx * 4) =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
}

// 128 x 128 outputs per block of 256 threads, 8 x 8 per thread (two 4 x 4 quadrants 64 apart, so
// each float4 shared read is contiguous across the warp), K steps of 8, single-buffered.
constexpr int b128 = 128, bk8 = 8;

__global__ void __launch_bounds__(256) sgemm_blocked128(const float* __restrict__ a, const float* __restrict__ b,
                                                        float* __restrict__ c, int n) {
    __shared__ __align__(16) float at[bk8][b128];  // at[k][m]
    __shared__ __align__(16) float bt[bk8][b128];  // bt[k][n]
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int row0 = blockIdx.y * b128, col0 = blockIdx.x * b128;
    float acc[8][8] = {};
    for (int k0 = 0; k0 < n; k0 += bk8) {
        {
            // A: 128 rows x 8 k = 256 float4 (one per thread), stored transposed.
            int m = tid / 2, k = (tid % 2) * 4;
            float4 v = *reinterpret_cast<const float4*>(a + size_t(row0 + m) * n + k0 + k);
            at[k + 0][m] = v.x;
            at[k + 1][m] = v.y;
            at[k + 2][m] = v.z;
            at[k + 3][m] = v.w;
            // B: 8 k x 128 columns = 256 float4.
            int kb = tid / 32, nb = (tid % 32) * 4;
            *reinterpret_cast<float4*>(&bt[kb][nb]) = *reinterpret_cast<const float4*>(b + size_t(k0 + kb) * n + col0 + nb);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < bk8; ++k) {
            float4 a0 = *reinterpret_cast<const float4*>(&at[k][ty * 4]);
            float4 a1 = *reinterpret_cast<const float4*>(&at[k][64 + ty * 4]);
            float4 b0 = *reinterpret_cast<const float4*>(&bt[k][tx * 4]);
            float4 b1 = *reinterpret_cast<const float4*>(&bt[k][64 + tx * 4]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        float* out = c + size_t(row) * n + col0;
        *reinterpret_cast<float4*>(out + tx * 4) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4*>(out + 64 + tx * 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

enum class sgemm_kind { naive_rows, naive_cols, tiled16, blocked64, blocked128 };

class sgemm_progression_case : public kernel_case {
public:
    explicit sgemm_progression_case(sgemm_kind k) : kind_(k) {}
    std::string name() const override {
        switch (kind_) {
            case sgemm_kind::naive_rows: return "sgemm_naive_rows";
            case sgemm_kind::naive_cols: return "sgemm_naive_cols";
            case sgemm_kind::tiled16: return "sgemm_tiled16";
            case sgemm_kind::blocked64: return "sgemm_blocked64";
            default: return "sgemm_blocked128";
        }
    }
    std::string intent() const override {
        switch (kind_) {
            case sgemm_kind::naive_rows: return "progression sgemm 0: lanes walk rows, A loads and C stores 32 rows apart";
            case sgemm_kind::naive_cols: return "progression sgemm 1: lanes walk columns, two global loads per FMA";
            case sgemm_kind::tiled16: return "progression sgemm 2: 16x16 shared tiles, two shared loads per FMA";
            case sgemm_kind::blocked64: return "progression sgemm 3: 64x64 block tile, 4x4 register tile per thread";
            default: return "progression sgemm 4: 128x128 block tile, 8x8 register tile per thread";
        }
    }
    void setup(std::mt19937_64& rng) override {
        n_ = scaled_dim(2048, 128);
        size_t count = size_t(n_) * n_;
        ha_ = random_floats(rng, count);
        hb_ = random_floats(rng, count);
        a_ = device_buffer<float>(count);
        b_ = device_buffer<float>(count);
        c_ = device_buffer<float>(count);
        a_.upload(ha_);
        b_.upload(hb_);
        check_rng_.seed(rng());
    }
    void poison() override { c_.poison(); }
    void launch(cudaStream_t s) override {
        switch (kind_) {
            case sgemm_kind::naive_rows:
                sgemm_naive_rows<<<dim3(n_ / 32, n_ / 8), dim3(32, 8), 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
                break;
            case sgemm_kind::naive_cols:
                sgemm_naive_cols<<<dim3(n_ / 32, n_ / 8), dim3(32, 8), 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
                break;
            case sgemm_kind::tiled16:
                sgemm_tiled16<<<dim3(n_ / t16, n_ / t16), dim3(t16, t16), 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
                break;
            case sgemm_kind::blocked64:
                sgemm_blocked64<<<dim3(n_ / b64, n_ / b64), 256, 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
                break;
            default:
                sgemm_blocked128<<<dim3(n_ / b128, n_ / b128), 256, 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
        }
    }
    double check() override {
        return sampled_gemm_error(ha_, hb_, c_.download(), n_, [](float v) { return double(v); }, check_rng_);
    }
    double min_bytes() const override { return 3.0 * n_ * double(n_) * sizeof(float); }
    double flops() const override { return 2.0 * double(n_) * n_ * n_; }

private:
    sgemm_kind kind_;
    int n_ = 0;
    std::vector<float> ha_, hb_;
    device_buffer<float> a_, b_, c_;
    std::mt19937_64 check_rng_;
};

}  // namespace

void add_progression_cases(case_list& out) {
    out.push_back(std::make_unique<rowsum_case>(rowsum_kind::thread));
    out.push_back(std::make_unique<rowsum_case>(rowsum_kind::warp));
    out.push_back(std::make_unique<rowsum_case>(rowsum_kind::warp_vec));
    out.push_back(std::make_unique<sgemm_progression_case>(sgemm_kind::naive_rows));
    out.push_back(std::make_unique<sgemm_progression_case>(sgemm_kind::naive_cols));
    out.push_back(std::make_unique<sgemm_progression_case>(sgemm_kind::tiled16));
    out.push_back(std::make_unique<sgemm_progression_case>(sgemm_kind::blocked64));
    out.push_back(std::make_unique<sgemm_progression_case>(sgemm_kind::blocked128));
}

}  // namespace roofline::kernels
