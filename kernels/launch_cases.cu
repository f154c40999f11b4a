// A chain of tiny launches: each does almost nothing, so launch overhead is the whole cost.
#include "kernel_case.hpp"

namespace roofline::kernels {
namespace {

__global__ void tiny_add(float* __restrict__ x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

class tiny_chain_case : public kernel_case {
public:
    static constexpr int n = 1024;
    static constexpr int steps = 8;
    std::string name() const override { return "tiny_add_chain"; }
    std::string intent() const override { return "launch: 8 launches of a 1024-element add"; }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, n);
        x_ = device_buffer<float>(n);
    }
    // The kernel updates in place, so the input is restored rather than poisoned.
    void poison() override { x_.upload(host_); }
    void launch(cudaStream_t s) override {
        for (int k = 0; k < steps; ++k) tiny_add<<<n / 256, 256, 0, s>>>(x_.get(), 0.5f, n);
    }
    double check() override {
        auto out = x_.download();
        std::vector<double> a(out.begin(), out.end()), b(n);
        for (int i = 0; i < n; ++i) b[i] = double(host_[i]) + steps * 0.5;
        return relative_error(a, b);
    }
    double min_bytes() const override { return 2.0 * steps * n * sizeof(float); }
    double flops() const override { return double(steps) * n; }
    int launches_per_run() const override { return steps; }

private:
    std::vector<float> host_;
    device_buffer<float> x_;
};

}  // namespace

void add_launch_cases(case_list& out) { out.push_back(std::make_unique<tiny_chain_case>()); }

}  // namespace roofline::kernels
