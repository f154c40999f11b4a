// Compute-side pairs: a shared-memory-bound SGEMM (one output per thread) -> register-blocked
// tiles; FP64 arithmetic where FP32 suffices -> FP32; a run-time indexed local array (local
// memory) -> compile-time indexing (registers).
#include "gemm_check.hpp"
#include "kernel_case.hpp"

namespace roofline::kernels {
namespace {

constexpr int sgemm_tile = 32;

// Two shared-memory loads per FMA: the shared-memory pipe, not the FMA pipe, sets the pace.
__global__ void sgemm_smem_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    __shared__ float as[sgemm_tile][sgemm_tile];
    __shared__ float bs[sgemm_tile][sgemm_tile];
    int row = blockIdx.y * sgemm_tile + threadIdx.y, col = blockIdx.x * sgemm_tile + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += sgemm_tile) {
        as[threadIdx.y][threadIdx.x] = a[size_t(row) * n + k0 + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[size_t(k0 + threadIdx.y) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < sgemm_tile; ++k) acc = fmaf(as[threadIdx.y][k], bs[k][threadIdx.x], acc);
        __syncthreads();
    }
    c[size_t(row) * n + col] = acc;
}

// 128x128 block tiles, 8x8 outputs per thread held in registers: four 16-byte shared loads feed
// 64 FMAs. A thread's 8 rows (and 8 columns) are two runs of 4, 64 apart, so the eight threads of
// each quarter-warp phase read 8 consecutive float4s: no bank conflicts. Two shared buffers: the
// next k-slice is fetched into registers while this one is computed, one barrier per slice.
constexpr int rb_bm = 128, rb_bn = 128, rb_bk = 8;
__global__ void __launch_bounds__(256, 2) sgemm_register_blocked(const float* __restrict__ a, const float* __restrict__ b,
                                                                 float* __restrict__ c, int n) {
    __shared__ __align__(16) float as[2][rb_bk][rb_bm];  // transposed: a column of the A tile is contiguous
    __shared__ __align__(16) float bs[2][rb_bk][rb_bn];
    const int tid = threadIdx.x;
    const int ty = tid / 16, tx = tid % 16;
    const int row0 = blockIdx.y * rb_bm, col0 = blockIdx.x * rb_bn;
    // Global -> shared: one float4 of A (row tid/2, k 0-3 or 4-7) and one of B (k tid/32) per thread.
    const int ar = tid / 2, ak = (tid % 2) * 4, bk = tid / 32, bc = (tid % 32) * 4;
    const float* ap = a + size_t(row0 + ar) * n + ak;
    const float* bp = b + size_t(bk) * n + col0 + bc;
    float4 ga = *reinterpret_cast<const float4*>(ap), gb = *reinterpret_cast<const float4*>(bp);
    auto stage = [&](int buf) {
        as[buf][ak + 0][ar] = ga.x;
        as[buf][ak + 1][ar] = ga.y;
        as[buf][ak + 2][ar] = ga.z;
        as[buf][ak + 3][ar] = ga.w;
        *reinterpret_cast<float4*>(&bs[buf][bk][bc]) = gb;
    };
    stage(0);
    __syncthreads();
    float acc[8][8] = {};
    for (int k0 = 0, buf = 0; k0 < n; k0 += rb_bk, buf ^= 1) {
        const bool more = k0 + rb_bk < n;
        if (more) {
            ga = *reinterpret_cast<const float4*>(ap + k0 + rb_bk);
            gb = *reinterpret_cast<const float4*>(bp + size_t(k0 + rb_bk) * n);
        }
#pragma unroll
        for (int k = 0; k < rb_bk; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&as[buf][k][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&as[buf][k][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&bs[buf][k][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&bs[buf][k][64 + tx * 4]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra[i], rv[j], acc[i][j]);
        }
        // The other buffer was last read before the previous barrier: safe to fill now.
        if (more) stage(buf ^ 1);
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

class sgemm_case : public kernel_case {
public:
    sgemm_case(bool blocked, int n) : blocked_(blocked), n_(n) {}
    std::string name() const override { return blocked_ ? "sgemm_register_blocked" : "sgemm_smem_tiled"; }
    std::string intent() const override {
        return blocked_ ? "compute/fp32: 8x8 register tiles per thread, conflict-free float4 shared loads, double-buffered"
                        : "MIO/shared-memory throughput: two shared loads per FMA, one output per thread";
    }
    void setup(std::mt19937_64& rng) override {
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
        if (blocked_)
            sgemm_register_blocked<<<dim3(n_ / rb_bn, n_ / rb_bm), 256, 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
        else
            sgemm_smem_tiled<<<dim3(n_ / sgemm_tile, n_ / sgemm_tile), dim3(sgemm_tile, sgemm_tile), 0, s>>>(a_.get(), b_.get(), c_.get(), n_);
    }
    double check() override {
        return sampled_gemm_error(ha_, hb_, c_.download(), n_, [](float v) { return double(v); }, check_rng_);
    }
    double min_bytes() const override { return 3.0 * n_ * double(n_) * sizeof(float); }
    double flops() const override { return 2.0 * double(n_) * n_ * n_; }

private:
    bool blocked_;
    int n_;
    std::vector<float> ha_, hb_;
    device_buffer<float> a_, b_, c_;
    std::mt19937_64 check_rng_;
};

constexpr int poly_steps = 256;

template <class T>
__global__ void poly_chain(const T* __restrict__ in, T* __restrict__ out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    T x = in[i];
    // Horner steps of a contracting map: the result stays near T(0.4) / (1 - T(0.6)).
    for (int k = 0; k < poly_steps; ++k) x = x * T(0.6) + T(0.4);
    out[i] = x;
}

template <class T>
class poly_case : public kernel_case {
public:
    explicit poly_case(size_t n) : n_(n) {}
    std::string name() const override { return sizeof(T) == 8 ? "poly_fp64" : "poly_fp32"; }
    std::string intent() const override {
        return sizeof(T) == 8 ? "FP64 on a slower pipe where FP32 suffices" : "compute/fp32: the same chain in FP32";
    }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, n_);
        std::vector<T> h(host_.begin(), host_.end());
        in_ = device_buffer<T>(n_);
        out_ = device_buffer<T>(n_);
        in_.upload(h);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override { poly_chain<T><<<unsigned((n_ + 255) / 256), 256, 0, s>>>(in_.get(), out_.get(), n_); }
    double check() override {
        auto out = out_.download();
        std::vector<double> got(out.begin(), out.end()), want(n_);
        for (size_t i = 0; i < n_; ++i) {
            double x = host_[i];
            for (int k = 0; k < poly_steps; ++k) x = x * 0.6 + 0.4;
            want[i] = x;
        }
        return relative_error(got, want);
    }
    double min_bytes() const override { return 2.0 * n_ * sizeof(T); }
    double flops() const override { return 2.0 * poly_steps * double(n_); }

private:
    size_t n_;
    std::vector<float> host_;
    device_buffer<T> in_, out_;
};

constexpr int bins = 8, values_per_thread = 32;

// acc[bin] with a bin known only at run time: the array lives in local memory.
__global__ void bins_local_array(const float* __restrict__ in, float* __restrict__ out, size_t threads) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    float acc[bins] = {};
    for (int k = 0; k < values_per_thread; ++k) {
        float v = in[size_t(k) * threads + t];
        int bin = int((v + 1.0f) * 8.0f) & (bins - 1);
        acc[bin] += v;
    }
    float r = 0.0f;
#pragma unroll
    for (int b = 0; b < bins; ++b) r += acc[b] * float(b + 1);
    out[t] = r;
}

// Every index a compile-time constant: the array stays in registers, at the price of a select
// and an add per bin for every value (8 per value), which makes the kernel ALU-bound.
__global__ void bins_registers(const float* __restrict__ in, float* __restrict__ out, size_t threads) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    float acc[bins] = {};
    for (int k = 0; k < values_per_thread; ++k) {
        float v = in[size_t(k) * threads + t];
        int bin = int((v + 1.0f) * 8.0f) & (bins - 1);
#pragma unroll
        for (int b = 0; b < bins; ++b) acc[b] += bin == b ? v : 0.0f;
    }
    float r = 0.0f;
#pragma unroll
    for (int b = 0; b < bins; ++b) r += acc[b] * float(b + 1);
    out[t] = r;
}

// The array in shared memory, a column per thread (acc[bin][threadIdx.x]): run-time indexing
// costs one shared load and store per value, and a warp's 32 columns sit in 32 banks.
__global__ void __launch_bounds__(256) bins_shared(const float* __restrict__ in, float* __restrict__ out, size_t threads) {
    __shared__ float acc[bins][256];
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
#pragma unroll
    for (int b = 0; b < bins; ++b) acc[b][threadIdx.x] = 0.0f;
    for (int k = 0; k < values_per_thread; ++k) {
        float v = in[size_t(k) * threads + t];
        int bin = int((v + 1.0f) * 8.0f) & (bins - 1);
        acc[bin][threadIdx.x] += v;
    }
    float r = 0.0f;
#pragma unroll
    for (int b = 0; b < bins; ++b) r += acc[b][threadIdx.x] * float(b + 1);
    out[t] = r;
}

// One way to keep the bins: the case's name, what it shows, and its kernel.
struct bins_variant {
    const char* name;
    const char* intent;
    void (*kernel)(const float*, float*, size_t);
};
const bins_variant bins_in_local{"bins_local_array", "local memory: a run-time indexed per-thread array (LDL/STL traffic)",
                                 bins_local_array};
const bins_variant bins_in_registers{"bins_registers", "compile-time indexing keeps the 8 bins in registers (8 selects per value)",
                                     bins_registers};
const bins_variant bins_in_shared{"bins_shared", "memory/dram: the 8 bins in shared memory, a column per thread", bins_shared};

class bins_case : public kernel_case {
public:
    bins_case(const bins_variant& variant, size_t threads) : variant_(variant), threads_(threads) {}
    std::string name() const override { return variant_.name; }
    std::string intent() const override { return variant_.intent; }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, threads_ * values_per_thread);
        in_ = device_buffer<float>(host_.size());
        out_ = device_buffer<float>(threads_);
        in_.upload(host_);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        unsigned blocks = unsigned((threads_ + 255) / 256);
        variant_.kernel<<<blocks, 256, 0, s>>>(in_.get(), out_.get(), threads_);
    }
    double check() override {
        auto out = out_.download();
        std::vector<double> got(out.begin(), out.end()), want(threads_);
        for (size_t t = 0; t < threads_; ++t) {
            double acc[bins] = {};
            for (int k = 0; k < values_per_thread; ++k) {
                float v = host_[size_t(k) * threads_ + t];
                acc[int((v + 1.0f) * 8.0f) & (bins - 1)] += v;
            }
            double r = 0;
            for (int b = 0; b < bins; ++b) r += acc[b] * (b + 1);
            want[t] = r;
        }
        return relative_error(got, want);
    }
    double min_bytes() const override { return double(threads_) * (values_per_thread + 1) * sizeof(float); }
    double flops() const override { return double(threads_) * values_per_thread * 3; }

private:
    bins_variant variant_;
    size_t threads_;
    std::vector<float> host_;
    device_buffer<float> in_, out_;
};

}  // namespace

void add_compute_pair_cases(case_list& out) {
    out.push_back(std::make_unique<sgemm_case>(false, scaled_dim(2048, 128)));
    out.push_back(std::make_unique<sgemm_case>(true, scaled_dim(2048, 128)));
    out.push_back(std::make_unique<poly_case<double>>(scaled_count(size_t(16) << 20)));
    out.push_back(std::make_unique<poly_case<float>>(scaled_count(size_t(16) << 20)));
    out.push_back(std::make_unique<bins_case>(bins_in_local, scaled_count(size_t(4) << 20)));
    out.push_back(std::make_unique<bins_case>(bins_in_registers, scaled_count(size_t(4) << 20)));
    out.push_back(std::make_unique<bins_case>(bins_in_shared, scaled_count(size_t(4) << 20)));
}

}  // namespace roofline::kernels
