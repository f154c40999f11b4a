// The tensor-core pair's problem, shared by its kernels: C = A * B^T for n x n fp16 matrices A
// and B stored K-major (row-major M x K and N x K, as torch.nn.Linear multiplies), C in floats,
// checked on sampled outputs against float64 dot products.
#pragma once

#include "gemm_check.hpp"
#include "kernel_case.hpp"

#include <cuda_fp16.h>

namespace roofline::kernels {

class half_gemm_case : public kernel_case {
public:
    explicit half_gemm_case(int n) : n_(n) {}
    void setup(std::mt19937_64& rng) override {
        size_t count = size_t(n_) * n_;
        auto fa = random_floats(rng, count), fb = random_floats(rng, count);
        ha_.resize(count);
        hb_.resize(count);
        for (size_t i = 0; i < count; ++i) {
            ha_[i] = __float2half(fa[i]);
            hb_[i] = __float2half(fb[i]);
        }
        a_ = device_buffer<half>(count);
        b_ = device_buffer<half>(count);
        c_ = device_buffer<float>(count);
        a_.upload(ha_);
        b_.upload(hb_);
        check_rng_.seed(rng());
        prepare();
    }
    void poison() override { c_.poison(); }
    double check() override {
        auto to_double = [](half v) { return double(__half2float(v)); };
        return sampled_gemm_error(ha_, hb_, c_.download(), n_, to_double, check_rng_, 256, b_layout::n_by_k);
    }
    double min_bytes() const override { return double(n_) * n_ * (2 * sizeof(half) + sizeof(float)); }
    double flops() const override { return 2.0 * double(n_) * n_ * n_; }

protected:
    // After the inputs are on the device: kernel attributes, TMA descriptors.
    virtual void prepare() {}

    int n_;
    device_buffer<half> a_, b_;
    device_buffer<float> c_;

private:
    std::vector<half> ha_, hb_;
    std::mt19937_64 check_rng_;
};

}  // namespace roofline::kernels
