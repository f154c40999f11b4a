// Memory-side pairs: strided array-of-structs reads -> contiguous struct-of-arrays reads, and
// a chain of elementwise kernels -> one fused kernel. (The bank-conflict pair's unpadded
// transpose lives with the other transposes in memory_cases.cu.)
#include "kernel_case.hpp"

namespace roofline::kernels {
namespace {

constexpr int fields = 8;  // floats per struct: 32 bytes, one sector

// Reads two fields of each 32-byte struct: every warp load touches 32 sectors for 128 useful bytes.
__global__ void aos_strided(const float* __restrict__ aos, float* __restrict__ out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * aos[i * fields] + aos[i * fields + 1];
}

// The same function over a struct-of-arrays copy: 16-byte loads, every byte used.
__global__ void soa_contiguous(const float4* __restrict__ f0, const float4* __restrict__ f1, float4* __restrict__ out, size_t n4) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 a = f0[i], b = f1[i];
        out[i] = make_float4(2.0f * a.x + b.x, 2.0f * a.y + b.y, 2.0f * a.z + b.z, 2.0f * a.w + b.w);
    }
}

class layout_case : public kernel_case {
public:
    layout_case(bool soa, size_t n) : soa_(soa), n_(n) {}
    std::string name() const override { return soa_ ? "soa_contiguous" : "aos_strided"; }
    std::string intent() const override {
        return soa_ ? "memory/dram: contiguous 16-byte loads of the two fields"
                    : "strided loads: 2 of 8 fields of each 32-byte struct (4x the bytes needed)";
    }
    void setup(std::mt19937_64& rng) override {
        f0_ = random_floats(rng, n_);
        f1_ = random_floats(rng, n_);
        out_ = device_buffer<float>(n_);
        if (soa_) {
            d0_ = device_buffer<float>(n_);
            d1_ = device_buffer<float>(n_);
            d0_.upload(f0_);
            d1_.upload(f1_);
        } else {
            std::vector<float> aos = random_floats(rng, n_ * fields);  // the other fields: noise
            for (size_t i = 0; i < n_; ++i) {
                aos[i * fields] = f0_[i];
                aos[i * fields + 1] = f1_[i];
            }
            aos_ = device_buffer<float>(n_ * fields);
            aos_.upload(aos);
        }
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        if (soa_)
            soa_contiguous<<<unsigned((n_ / 4 + 255) / 256), 256, 0, s>>>(reinterpret_cast<const float4*>(d0_.get()),
                                                                         reinterpret_cast<const float4*>(d1_.get()),
                                                                         reinterpret_cast<float4*>(out_.get()), n_ / 4);
        else
            aos_strided<<<unsigned((n_ + 255) / 256), 256, 0, s>>>(aos_.get(), out_.get(), n_);
    }
    double check() override {
        auto out = out_.download();
        std::vector<double> got(out.begin(), out.end()), want(n_);
        for (size_t i = 0; i < n_; ++i) want[i] = 2.0 * f0_[i] + f1_[i];
        return relative_error(got, want);
    }
    double min_bytes() const override { return 3.0 * n_ * sizeof(float); }
    double flops() const override { return 2.0 * n_; }

private:
    bool soa_;
    size_t n_;
    std::vector<float> f0_, f1_;
    device_buffer<float> aos_, d0_, d1_, out_;
};

__global__ void ew_scale(const float4* __restrict__ x, float4* __restrict__ y, float a, size_t n4) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        y[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
    }
}
__global__ void ew_shift(const float4* __restrict__ x, float4* __restrict__ y, float b, size_t n4) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        y[i] = make_float4(v.x + b, v.y + b, v.z + b, v.w + b);
    }
}
__global__ void ew_relu(const float4* __restrict__ x, float4* __restrict__ y, size_t n4) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        y[i] = make_float4(fmaxf(v.x, 0.f), fmaxf(v.y, 0.f), fmaxf(v.z, 0.f), fmaxf(v.w, 0.f));
    }
}
// One pass: the intermediates stay in registers.
__global__ void ew_fused(const float4* __restrict__ x, float4* __restrict__ y, float a, float b, size_t n4) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        y[i] = make_float4(fmaxf(a * v.x + b, 0.f), fmaxf(a * v.y + b, 0.f), fmaxf(a * v.z + b, 0.f), fmaxf(a * v.w + b, 0.f));
    }
}

class elementwise_case : public kernel_case {
public:
    elementwise_case(bool fused, size_t n) : fused_(fused), n_(n) {}
    std::string name() const override { return fused_ ? "ew_fused" : "ew_chain"; }
    std::string intent() const override {
        return fused_ ? "memory/dram: scale, shift and relu in one pass"
                      : "fusion candidate: three memory-bound kernels, each a full pass over DRAM";
    }
    int launches_per_run() const override { return fused_ ? 1 : 3; }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, n_);
        x_ = device_buffer<float>(n_);
        y_ = device_buffer<float>(n_);
        if (!fused_) t_ = device_buffer<float>(n_);
        x_.upload(host_);
    }
    void poison() override { y_.poison(); }
    void launch(cudaStream_t s) override {
        unsigned blocks = unsigned((n_ / 4 + 255) / 256);
        auto f4 = [](const device_buffer<float>& b) { return reinterpret_cast<float4*>(b.get()); };
        if (fused_) {
            ew_fused<<<blocks, 256, 0, s>>>(f4(x_), f4(y_), a_, b_, n_ / 4);
        } else {
            ew_scale<<<blocks, 256, 0, s>>>(f4(x_), f4(y_), a_, n_ / 4);
            ew_shift<<<blocks, 256, 0, s>>>(f4(y_), f4(t_), b_, n_ / 4);
            ew_relu<<<blocks, 256, 0, s>>>(f4(t_), f4(y_), n_ / 4);
        }
    }
    double check() override {
        auto out = y_.download();
        std::vector<double> got(out.begin(), out.end()), want(n_);
        for (size_t i = 0; i < n_; ++i) want[i] = std::max(0.0, double(a_) * host_[i] + b_);
        return relative_error(got, want);
    }
    double min_bytes() const override { return 2.0 * n_ * sizeof(float); }
    double flops() const override { return 2.0 * n_; }

private:
    bool fused_;
    size_t n_;
    float a_ = 1.5f, b_ = -0.25f;
    std::vector<float> host_;
    device_buffer<float> x_, y_, t_;
};

}  // namespace

void add_memory_pair_cases(case_list& out) {
    out.push_back(std::make_unique<layout_case>(false, scaled_count(size_t(16) << 20)));
    out.push_back(std::make_unique<layout_case>(true, scaled_count(size_t(16) << 20)));
    out.push_back(std::make_unique<elementwise_case>(false, scaled_count(size_t(64) << 20)));
    out.push_back(std::make_unique<elementwise_case>(true, scaled_count(size_t(64) << 20)));
}

}  // namespace roofline::kernels
