// Three more progressions toward a fast version of one operation, four steps each, every step applying
// one fix a kernel engineer would name; every variant is checked against a CPU reference and timed.
// Like progressions.cu they validate the engine's estimates: the first finding on step i names a
// fix, and the measured gain of step i + 1, which applies it, is what the estimate is held to. The
// last step of each is the PyTorch library op at the same shape (kernels/steps_lib.py). Written for
// this project from the textbook ideas, not ported.
//
// Softmax over rows (y[r][c] = exp(x[r][c] - max_r) / sum_r, 65,536 x 1,024 floats, 256 MiB in and out):
//   softmax_thread     one thread per row, three passes over global memory: lanes read rows 4 KiB apart
//   softmax_warp       one warp per row, the same three passes, lanes on consecutive floats, shuffles
//   softmax_warp_regs  one warp per row, the row read once into 32 registers per lane, one write pass
//   softmax_warp_vec   as softmax_warp_regs with 16-byte loads and stores and __expf
// Sum of 2^26 floats (256 MiB) into one float; each block atomically adds its partial to the output,
// which launch() zeroes with cudaMemsetAsync first: a profile of one launch shows the memset as an op of
// its own, and the runner's timings include it (a few microseconds against about 100 or more):
//   sum_interleaved  a 256-float shared tree, interleaved addressing: tid % (2s) tests, divergent warps
//   sum_sequential   the same tree with sequential addressing (tid < s): whole warps retire
//   sum_shuffle      warp shuffles, one shared partial per warp, one element per thread
//   sum_grid_stride  (SMs x 8) blocks, grid-stride loop, float4 loads into four accumulators
// Transpose (out = in^T, 8,192 x 8,192 floats, 256 MiB each):
//   xpose_naive        one element per thread: reads coalesced, a warp writes 32 rows 32 KiB apart
//   xpose_smem         32 x 32 shared tile: both sides coalesced, the tile's column read conflicts 32 ways
//   xpose_padded       the tile padded to 33 columns: no bank conflicts
//   xpose_padded_wide  64 x 65 tile, 16 elements per thread: more loads in flight per thread
#include "kernel_case.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::kernels {
namespace {

// ---------------------------------------------------------------------------------------------
// Softmax over rows. cols is a run-time argument for the first two steps (their loops stay loops, so
// the compiler cannot keep a row in registers between the passes); 1,024 is built into the last two.

constexpr int softmax_rows_default = 65536, softmax_cols = 1024;

__global__ void softmax_thread(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = x + size_t(r) * cols;
    float* out = y + size_t(r) * cols;
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, in[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(in[c] - m);
    const float inv = 1.0f / s;
    for (int c = 0; c < cols; ++c) out[c] = expf(in[c] - m) * inv;
}

__global__ void softmax_warp(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (r >= rows) return;  // the whole warp: r is the same for its 32 lanes
    const float* in = x + size_t(r) * cols;
    float* out = y + size_t(r) * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, in[c]);
    m = warp_max_all(m);
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += expf(in[c] - m);
    const float inv = 1.0f / warp_sum_all(s);
    for (int c = lane; c < cols; c += 32) out[c] = expf(in[c] - m) * inv;
}

constexpr int softmax_per_lane = softmax_cols / 32;  // 32 floats of the row per lane

__global__ void softmax_warp_regs(const float* __restrict__ x, float* __restrict__ y, int rows) {
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (r >= rows) return;
    const float* in = x + size_t(r) * softmax_cols;
    float* out = y + size_t(r) * softmax_cols;
    float v[softmax_per_lane];
#pragma unroll
    for (int i = 0; i < softmax_per_lane; ++i) v[i] = in[lane + 32 * i];
    float m = v[0];
#pragma unroll
    for (int i = 1; i < softmax_per_lane; ++i) m = fmaxf(m, v[i]);
    m = warp_max_all(m);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < softmax_per_lane; ++i) {
        v[i] = expf(v[i] - m);
        s += v[i];
    }
    const float inv = 1.0f / warp_sum_all(s);
#pragma unroll
    for (int i = 0; i < softmax_per_lane; ++i) out[lane + 32 * i] = v[i] * inv;
}

constexpr int softmax_per_lane4 = softmax_cols / 4 / 32;  // 8 float4 of the row per lane

__global__ void softmax_warp_vec(const float* __restrict__ x, float* __restrict__ y, int rows) {
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (r >= rows) return;
    // A row is 4 KiB and cudaMalloc aligns to 256 bytes: every float4 below is 16-byte aligned.
    const float4* in = reinterpret_cast<const float4*>(x + size_t(r) * softmax_cols);
    float4* out = reinterpret_cast<float4*>(y + size_t(r) * softmax_cols);
    float4 v[softmax_per_lane4];
#pragma unroll
    for (int i = 0; i < softmax_per_lane4; ++i) v[i] = in[lane + 32 * i];
    float m = fmaxf(fmaxf(v[0].x, v[0].y), fmaxf(v[0].z, v[0].w));
#pragma unroll
    for (int i = 1; i < softmax_per_lane4; ++i) m = fmaxf(m, fmaxf(fmaxf(v[i].x, v[i].y), fmaxf(v[i].z, v[i].w)));
    m = warp_max_all(m);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < softmax_per_lane4; ++i) {
        v[i] = make_float4(__expf(v[i].x - m), __expf(v[i].y - m), __expf(v[i].z - m), __expf(v[i].w - m));
        s += (v[i].x + v[i].y) + (v[i].z + v[i].w);
    }
    const float inv = 1.0f / warp_sum_all(s);
#pragma unroll
    for (int i = 0; i < softmax_per_lane4; ++i)
        out[lane + 32 * i] = make_float4(v[i].x * inv, v[i].y * inv, v[i].z * inv, v[i].w * inv);
}

enum class softmax_kind { thread, warp, warp_regs, warp_vec };

class softmax_case : public kernel_case {
public:
    explicit softmax_case(softmax_kind k) : kind_(k) {}
    std::string name() const override {
        switch (kind_) {
            case softmax_kind::thread: return "softmax_thread";
            case softmax_kind::warp: return "softmax_warp";
            case softmax_kind::warp_regs: return "softmax_warp_regs";
            default: return "softmax_warp_vec";
        }
    }
    std::string intent() const override {
        switch (kind_) {
            case softmax_kind::thread: return "steps softmax 0: one thread per row, three passes, lanes 4 KiB apart";
            case softmax_kind::warp: return "steps softmax 1: one warp per row, three coalesced passes from global";
            case softmax_kind::warp_regs: return "steps softmax 2: one warp per row, the row read once into registers";
            default: return "steps softmax 3: one warp per row in registers, 16-byte loads and stores, __expf";
        }
    }
    void setup(std::mt19937_64& rng) override {
        rows_ = int(scaled_count(size_t(softmax_rows_default) * softmax_cols) / softmax_cols);
        host_ = random_floats(rng, size_t(rows_) * softmax_cols);
        x_ = device_buffer<float>(host_.size());
        x_.upload(host_);
        y_ = device_buffer<float>(host_.size());
    }
    void poison() override { y_.poison(); }
    void launch(cudaStream_t s) override {
        const int threads = 256;
        const int thread_blocks = (rows_ + threads - 1) / threads, warp_blocks = (rows_ + 7) / 8;  // 8 warps a block
        switch (kind_) {
            case softmax_kind::thread:
                softmax_thread<<<thread_blocks, threads, 0, s>>>(x_.get(), y_.get(), rows_, softmax_cols);
                break;
            case softmax_kind::warp:
                softmax_warp<<<warp_blocks, threads, 0, s>>>(x_.get(), y_.get(), rows_, softmax_cols);
                break;
            case softmax_kind::warp_regs:
                softmax_warp_regs<<<warp_blocks, threads, 0, s>>>(x_.get(), y_.get(), rows_);
                break;
            default:
                softmax_warp_vec<<<warp_blocks, threads, 0, s>>>(x_.get(), y_.get(), rows_);
        }
    }
    // Every 7th row (7 is prime to the 8 rows of a block and the 32 of a warp) and the last one.
    double check() override {
        auto got = y_.download();
        error_sum err;
        std::vector<double> e(softmax_cols);
        auto check_row = [&](int r) {
            const float* in = host_.data() + size_t(r) * softmax_cols;
            double m = in[0], sum = 0.0;
            for (int c = 1; c < softmax_cols; ++c) m = std::max(m, double(in[c]));
            for (int c = 0; c < softmax_cols; ++c) {
                e[c] = std::exp(double(in[c]) - m);
                sum += e[c];
            }
            for (int c = 0; c < softmax_cols; ++c) err.add(got[size_t(r) * softmax_cols + c], e[c] / sum);
        };
        for (int r = 0; r < rows_; r += 7) check_row(r);
        if ((rows_ - 1) % 7 != 0) check_row(rows_ - 1);
        return err.value();
    }
    double min_bytes() const override { return 2.0 * rows_ * double(softmax_cols) * sizeof(float); }
    // Max, subtract, add and scale per element; the exponential counted as one more.
    double flops() const override { return 5.0 * rows_ * double(softmax_cols); }

private:
    softmax_kind kind_;
    int rows_ = 0;
    std::vector<float> host_;
    device_buffer<float> x_, y_;
};

// ---------------------------------------------------------------------------------------------
// Sum of a vector into out[0], which the launch zeroes first. Blocks of 256 threads throughout.

constexpr size_t reduce_count_default = size_t(1) << 26;
constexpr int reduce_threads = 256;

__global__ void sum_interleaved(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    __shared__ float sh[reduce_threads];
    const int tid = threadIdx.x, threads = blockDim.x;
    const size_t i = size_t(blockIdx.x) * threads + tid;
    sh[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = 1; s < threads; s *= 2) {
        if (tid % (2 * s) == 0) sh[tid] += sh[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sh[0]);
}

__global__ void sum_sequential(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    __shared__ float sh[reduce_threads];
    const int tid = threadIdx.x, threads = blockDim.x;
    const size_t i = size_t(blockIdx.x) * threads + tid;
    sh[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = threads / 2; s > 0; s /= 2) {
        if (tid < s) sh[tid] += sh[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sh[0]);
}

// The block's warps' sums through shared memory, added by warp 0, one atomic per block.
__device__ void block_sum_to(float v, float* out) {
    __shared__ float part[reduce_threads / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum_all(v);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum_all(lane < reduce_threads / 32 ? part[lane] : 0.0f);
        if (lane == 0) atomicAdd(out, v);
    }
}

__global__ void sum_shuffle(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    block_sum_to(i < n ? x[i] : 0.0f, out);
}

// n must be a multiple of 4 (scaled_count gives multiples of 65,536); x is cudaMalloc-aligned.
__global__ void sum_grid_stride(const float* __restrict__ x, float* __restrict__ out, size_t n) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const size_t n4 = n / 4, stride = size_t(gridDim.x) * blockDim.x;
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = x4[i], b = x4[i + stride], c = x4[i + 2 * stride], d = x4[i + 3 * stride];
        s0 += (a.x + a.y) + (a.z + a.w);
        s1 += (b.x + b.y) + (b.z + b.w);
        s2 += (c.x + c.y) + (c.z + c.w);
        s3 += (d.x + d.y) + (d.z + d.w);
    }
    for (; i < n4; i += stride) {
        const float4 a = x4[i];
        s0 += (a.x + a.y) + (a.z + a.w);
    }
    block_sum_to((s0 + s1) + (s2 + s3), out);
}

enum class reduce_kind { interleaved, sequential, shuffle, grid_stride };

class reduce_case : public kernel_case {
public:
    explicit reduce_case(reduce_kind k) : kind_(k) {}
    std::string name() const override {
        switch (kind_) {
            case reduce_kind::interleaved: return "sum_interleaved";
            case reduce_kind::sequential: return "sum_sequential";
            case reduce_kind::shuffle: return "sum_shuffle";
            default: return "sum_grid_stride";
        }
    }
    std::string intent() const override {
        switch (kind_) {
            case reduce_kind::interleaved: return "steps reduce 0: shared tree, tid % (2s) == 0, divergent warps";
            case reduce_kind::sequential: return "steps reduce 1: shared tree, sequential addressing, tid < s";
            case reduce_kind::shuffle: return "steps reduce 2: warp shuffles, one element per thread";
            default: return "steps reduce 3: SMs x 8 blocks, grid-stride float4 loads, four accumulators";
        }
    }
    void setup(std::mt19937_64& rng) override {
        n_ = scaled_count(reduce_count_default);
        // Positive inputs keep the sum well conditioned: the atomics' order changes only rounding.
        host_ = random_floats(rng, n_, 0.0f, 1.0f);
        x_ = device_buffer<float>(n_);
        x_.upload(host_);
        out_ = device_buffer<float>(1);
        int dev = 0;
        ROOFLINE_CUDA_CHECK(cudaGetDevice(&dev));
        ROOFLINE_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, dev));
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        ROOFLINE_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0, sizeof(float), s));
        const int blocks = int((n_ + reduce_threads - 1) / reduce_threads);
        switch (kind_) {
            case reduce_kind::interleaved:
                sum_interleaved<<<blocks, reduce_threads, 0, s>>>(x_.get(), out_.get(), n_);
                break;
            case reduce_kind::sequential:
                sum_sequential<<<blocks, reduce_threads, 0, s>>>(x_.get(), out_.get(), n_);
                break;
            case reduce_kind::shuffle:
                sum_shuffle<<<blocks, reduce_threads, 0, s>>>(x_.get(), out_.get(), n_);
                break;
            default:
                sum_grid_stride<<<sms_ * 8, reduce_threads, 0, s>>>(x_.get(), out_.get(), n_);
        }
    }
    double check() override {
        double want = 0.0;
        for (float v : host_) want += v;
        return relative_error({double(out_.download()[0])}, {want});
    }
    // A float32 sum of 2^26 terms in another order: the rounding of the partials' atomic adds.
    double tolerance() const override { return 1e-4; }
    double min_bytes() const override { return double(n_) * sizeof(float) + sizeof(float); }
    double flops() const override { return double(n_); }

private:
    reduce_kind kind_;
    size_t n_ = 0;
    int sms_ = 0;
    std::vector<float> host_;
    device_buffer<float> x_, out_;
};

// ---------------------------------------------------------------------------------------------
// Transpose, out[c][r] = in[r][c], n x n row-major, n a multiple of 64. Blocks of 32 x 8 threads.

__global__ void xpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
    const int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 8 + threadIdx.y;
    out[size_t(c) * n + r] = in[size_t(r) * n + c];
}

// The 32 x 32 tile at rows by.., columns bx.. of in goes to rows bx.., columns by.. of out; each
// thread moves 4 elements (rows ty, ty + 8, ty + 16, ty + 24 of the tile). pad: 0 or 1 column.
template <int pad>
__device__ void transpose_tile32(const float* __restrict__ in, float* __restrict__ out, int n) {
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
__global__ void xpose_smem(const float* __restrict__ in, float* __restrict__ out, int n) {
    transpose_tile32<0>(in, out, n);
}

// 33 words apart: the 32 lanes of a column read hit 32 different banks.
__global__ void xpose_padded(const float* __restrict__ in, float* __restrict__ out, int n) {
    transpose_tile32<1>(in, out, n);
}

// 64 x 64 tile padded to 65 columns, 32 x 8 threads: each thread moves 16 elements (2 columns x 8 rows).
__global__ void xpose_padded_wide(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float t[64][65];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int bx = blockIdx.x * 64, by = blockIdx.y * 64;
#pragma unroll
    for (int j = 0; j < 64; j += 8)
#pragma unroll
        for (int i = 0; i < 64; i += 32) t[ty + j][tx + i] = in[size_t(by + ty + j) * n + bx + tx + i];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 64; j += 8)
#pragma unroll
        for (int i = 0; i < 64; i += 32) out[size_t(bx + ty + j) * n + by + tx + i] = t[tx + i][ty + j];
}

enum class transpose_kind { naive, smem, padded, padded_wide };

class transpose_case : public kernel_case {
public:
    explicit transpose_case(transpose_kind k) : kind_(k) {}
    std::string name() const override {
        switch (kind_) {
            case transpose_kind::naive: return "xpose_naive";
            case transpose_kind::smem: return "xpose_smem";
            case transpose_kind::padded: return "xpose_padded";
            default: return "xpose_padded_wide";
        }
    }
    std::string intent() const override {
        switch (kind_) {
            case transpose_kind::naive: return "steps transpose 0: one element per thread, writes 32 rows apart";
            case transpose_kind::smem: return "steps transpose 1: 32x32 shared tile, 32-way conflicts on column reads";
            case transpose_kind::padded: return "steps transpose 2: 32x33 shared tile, no bank conflicts";
            default: return "steps transpose 3: 64x65 shared tile, 16 elements per thread";
        }
    }
    void setup(std::mt19937_64& rng) override {
        n_ = scaled_dim(8192, 64);
        host_ = random_floats(rng, size_t(n_) * n_);
        in_ = device_buffer<float>(host_.size());
        in_.upload(host_);
        out_ = device_buffer<float>(host_.size());
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        const dim3 threads(32, 8);
        switch (kind_) {
            case transpose_kind::naive:
                xpose_naive<<<dim3(n_ / 32, n_ / 8), threads, 0, s>>>(in_.get(), out_.get(), n_);
                break;
            case transpose_kind::smem:
                xpose_smem<<<dim3(n_ / 32, n_ / 32), threads, 0, s>>>(in_.get(), out_.get(), n_);
                break;
            case transpose_kind::padded:
                xpose_padded<<<dim3(n_ / 32, n_ / 32), threads, 0, s>>>(in_.get(), out_.get(), n_);
                break;
            default:
                xpose_padded_wide<<<dim3(n_ / 64, n_ / 64), threads, 0, s>>>(in_.get(), out_.get(), n_);
        }
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
    transpose_kind kind_;
    int n_ = 0;
    std::vector<float> host_;
    device_buffer<float> in_, out_;
};

}  // namespace

void add_step_cases(case_list& out) {
    out.push_back(std::make_unique<softmax_case>(softmax_kind::thread));
    out.push_back(std::make_unique<softmax_case>(softmax_kind::warp));
    out.push_back(std::make_unique<softmax_case>(softmax_kind::warp_regs));
    out.push_back(std::make_unique<softmax_case>(softmax_kind::warp_vec));
    out.push_back(std::make_unique<reduce_case>(reduce_kind::interleaved));
    out.push_back(std::make_unique<reduce_case>(reduce_kind::sequential));
    out.push_back(std::make_unique<reduce_case>(reduce_kind::shuffle));
    out.push_back(std::make_unique<reduce_case>(reduce_kind::grid_stride));
    out.push_back(std::make_unique<transpose_case>(transpose_kind::naive));
    out.push_back(std::make_unique<transpose_case>(transpose_kind::smem));
    out.push_back(std::make_unique<transpose_case>(transpose_kind::padded));
    out.push_back(std::make_unique<transpose_case>(transpose_kind::padded_wide));
}

}  // namespace roofline::kernels
