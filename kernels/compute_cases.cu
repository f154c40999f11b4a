// Compute roof references: chains of fused multiply-adds per precision. Eight independent
// chains per thread keep the pipe busy without depending on the previous result.
#include "kernel_case.hpp"

#include <cuda_fp16.h>

#include <cmath>

namespace roofline::kernels {
namespace {

constexpr int chains = 8;

template <class T>
__device__ __forceinline__ T fma_op(T a, T b, T c) { return a * b + c; }
template <>
__device__ __forceinline__ float fma_op(float a, float b, float c) { return fmaf(a, b, c); }
template <>
__device__ __forceinline__ double fma_op(double a, double b, double c) { return fma(a, b, c); }
template <>
__device__ __forceinline__ __half2 fma_op(__half2 a, __half2 b, __half2 c) { return __hfma2(a, b, c); }

// out[i] = fold of `iters` steps x = x * a + b over 8 chains seeded from in[i].
template <class T> __host__ __device__ T from_float(float v) { return T(v); }
template <> __host__ __device__ __half2 from_float(float v) { return __float2half2_rn(v); }

// Chain c starts at in + c/8: distinct seeds, or the compiler folds the chains into one.
constexpr float seed_step = 0.125f;

template <class T>
__global__ void fma_chain(const T* __restrict__ in, T* __restrict__ out, T a, T b, int iters) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    T x[chains];
#pragma unroll
    for (int c = 0; c < chains; ++c) x[c] = in[i] + from_float<T>(seed_step * c);
    // Unrolled so the loop's own add-compare-branch is a few percent of the issue slots.
#pragma unroll 16
    for (int k = 0; k < iters; ++k) {
#pragma unroll
        for (int c = 0; c < chains; ++c) x[c] = fma_op(x[c], a, b);
    }
    T sum = x[0];
#pragma unroll
    for (int c = 1; c < chains; ++c) sum = sum + x[c];
    out[i] = sum;
}

template <class T> double to_double(T v) { return double(v); }
template <> double to_double(__half2 v) { return double(__low2float(v)); }

// Lanes of work per element: half2 packs two.
template <class T> constexpr int lanes = 1;
template <> constexpr int lanes<__half2> = 2;

template <class T>
class fma_case : public kernel_case {
public:
    fma_case(std::string name, int iters) : name_(std::move(name)), iters_(iters) {}
    std::string name() const override { return name_; }
    std::string intent() const override { return "compute/" + name_.substr(4) + ": FMA roof reference"; }
    void setup(std::mt19937_64& rng) override {
        int sms = 0;
        ROOFLINE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        threads_ = size_t(sms) * 16 * 256;
        // |a| < 1 keeps the chain bounded: x converges to b / (1 - a).
        std::uniform_real_distribution<float> ua(0.5f, 0.9f), ub(-0.5f, 0.5f);
        a_ = ua(rng);
        b_ = ub(rng);
        host_ = random_floats(rng, threads_);
        std::vector<T> h(threads_);
        for (size_t i = 0; i < threads_; ++i) h[i] = from_float<T>(host_[i]);
        in_ = device_buffer<T>(threads_);
        out_ = device_buffer<T>(threads_);
        in_.upload(h);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        fma_chain<T><<<unsigned(threads_ / 256), 256, 0, s>>>(in_.get(), out_.get(), from_float<T>(a_),
                                                             from_float<T>(b_), iters_);
    }
    double check() override {
        auto out = out_.download();
        std::vector<double> got(threads_), want(threads_);
        for (size_t i = 0; i < threads_; ++i) {
            double sum = 0;
            for (int c = 0; c < chains; ++c) {
                double x = double(host_[i]) + seed_step * c;
                for (int k = 0; k < iters_; ++k) x = x * a_ + b_;
                sum += x;
            }
            want[i] = sum;
            got[i] = to_double(out[i]);
        }
        return relative_error(got, want);
    }
    double min_bytes() const override { return 2.0 * threads_ * sizeof(T); }
    double flops() const override { return 2.0 * lanes<T> * chains * double(iters_) * threads_; }
    // half precision rounds every step; the chain converges, so the error stays near 1e-3.
    double tolerance() const override { return lanes<T> == 2 ? 2e-2 : 1e-4; }

private:
    std::string name_;
    int iters_;
    size_t threads_ = 0;
    float a_ = 0, b_ = 0;
    std::vector<float> host_;
    device_buffer<T> in_, out_;
};

}  // namespace

void add_compute_cases(case_list& out) {
    out.push_back(std::make_unique<fma_case<float>>("fma_fp32", 4096));
    out.push_back(std::make_unique<fma_case<double>>("fma_fp64", 1024));
    out.push_back(std::make_unique<fma_case<__half2>>("fma_fp16", 4096));
}

}  // namespace roofline::kernels
