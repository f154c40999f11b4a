// Kernels that reproduce the engine's failure classes of step 5 (issue 10), written for this
// project from first principles. Each is labelled in examples/wild/LABELS.md before the engine
// saw it.
//   sincos_reduce   FP32 sinf/cosf loop and a shared-memory tree reduction: no MMA in its source,
//                   yet nvcc emits HFMA2.MMA (a register-move idiom on the tensor pipe)
//   permute_divmod  (A, B, C) -> (B, A, C) with 64-bit div/mod per element: index arithmetic,
//                   not bytes, sets its time
//   axpy_once       one short launch of a small vector update (a few microseconds)
#include "kernel_case.hpp"

#include <cmath>

namespace roofline::kernels {
namespace {

constexpr int sincos_terms = 32;

__global__ void sincos_reduce(const float* __restrict__ x, float* __restrict__ partial, size_t n) {
    __shared__ float s[256];
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (i < n) {
        float v = x[i];
        for (int k = 0; k < sincos_terms; ++k) acc += sinf(v * float(k + 1)) * cosf(v + float(k));
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

class sincos_case : public kernel_case {
public:
    std::string name() const override { return "sincos_reduce"; }
    std::string intent() const override { return "FP32 sinf/cosf + shared tree reduction: no MMA instruction in the source"; }
    void setup(std::mt19937_64& rng) override {
        n_ = scaled_count(size_t(4) << 20);
        host_ = random_floats(rng, n_, -3.0f, 3.0f);
        x_ = device_buffer<float>(n_);
        x_.upload(host_);
        partial_ = device_buffer<float>(n_ / 256);
    }
    void poison() override { partial_.poison(); }
    void launch(cudaStream_t s) override {
        sincos_reduce<<<unsigned(n_ / 256), 256, 0, s>>>(x_.get(), partial_.get(), n_);
    }
    double check() override {
        auto got = partial_.download();
        std::vector<double> g(got.begin(), got.end()), want(got.size(), 0.0);
        for (size_t i = 0; i < n_; ++i) {
            double v = host_[i];
            for (int k = 0; k < sincos_terms; ++k) want[i / 256] += std::sin(v * (k + 1)) * std::cos(v + k);
        }
        return relative_error(g, want);
    }
    double tolerance() const override { return 1e-4; }
    double min_bytes() const override { return double(n_) * 4.0; }
    double flops() const override { return double(n_) * sincos_terms * 2.0; }

private:
    size_t n_ = 0;
    std::vector<float> host_;
    device_buffer<float> x_, partial_;
};

// out[b][a][c] = in[a][b][c], one element per thread, every index from 64-bit division.
__global__ void permute_divmod(const float* __restrict__ in, float* __restrict__ out, size_t A, size_t B, size_t C) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= A * B * C) return;
    size_t b = i / (A * C), a = (i / C) % A, c = i % C;
    out[i] = in[(a * B + b) * C + c];
}

class permute_case : public kernel_case {
public:
    std::string name() const override { return "permute_divmod"; }
    std::string intent() const override { return "index arithmetic: two 64-bit div/mod per 4-byte element"; }
    void setup(std::mt19937_64& rng) override {
        A_ = 256;
        B_ = 512;
        C_ = scaled_count(size_t(64) << 20) / (A_ * B_);
        host_ = random_floats(rng, A_ * B_ * C_);
        in_ = device_buffer<float>(host_.size());
        in_.upload(host_);
        out_ = device_buffer<float>(host_.size());
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        size_t n = A_ * B_ * C_;
        permute_divmod<<<unsigned((n + 255) / 256), 256, 0, s>>>(in_.get(), out_.get(), A_, B_, C_);
    }
    double check() override {
        auto got = out_.download();
        for (size_t a = 0; a < A_; ++a)
            for (size_t b = 0; b < B_; ++b)
                for (size_t c = 0; c < C_; ++c)
                    if (got[(b * A_ + a) * C_ + c] != host_[(a * B_ + b) * C_ + c]) return INFINITY;
        return 0.0;
    }
    double min_bytes() const override { return 2.0 * double(A_ * B_ * C_) * 4.0; }

private:
    size_t A_ = 0, B_ = 0, C_ = 0;
    std::vector<float> host_;
    device_buffer<float> in_, out_;
};

__global__ void axpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

class axpy_once_case : public kernel_case {
public:
    std::string name() const override { return "axpy_once"; }
    std::string intent() const override { return "one short launch: 256 Ki elements, a few microseconds"; }
    void setup(std::mt19937_64& rng) override {
        n_ = 1 << 18;
        hx_ = random_floats(rng, n_);
        hy_ = random_floats(rng, n_);
        x_ = device_buffer<float>(n_);
        y_ = device_buffer<float>(n_);
        x_.upload(hx_);
    }
    // The output is also an input: poisoning restores y, which a run then updates once.
    void poison() override { y_.upload(hy_); }
    void launch(cudaStream_t s) override { axpy<<<(n_ + 255) / 256, 256, 0, s>>>(2.0f, x_.get(), y_.get(), n_); }
    double check() override {
        auto got = y_.download();
        std::vector<double> g(got.begin(), got.end()), want(n_);
        for (int i = 0; i < n_; ++i) want[i] = 2.0 * hx_[i] + hy_[i];
        return relative_error(g, want);
    }
    double min_bytes() const override { return 3.0 * n_ * 4.0; }
    double flops() const override { return 2.0 * n_; }

private:
    int n_ = 0;
    std::vector<float> hx_, hy_;
    device_buffer<float> x_, y_;
};

}  // namespace

void add_failure_cases(case_list& out) {
    out.push_back(std::make_unique<sincos_case>());
    out.push_back(std::make_unique<permute_case>());
    out.push_back(std::make_unique<axpy_once_case>());
}

}  // namespace roofline::kernels
