// A chain of tiny launches: each does almost nothing, so launch overhead is the whole cost.
#include "kernel_case.hpp"

namespace roofline::kernels {
namespace {

__global__ void tiny_add(float* __restrict__ x, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

// The eight steps in one launch.
__global__ void tiny_add_fused(float* __restrict__ x, float v, int n, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float y = x[i];
        for (int k = 0; k < steps; ++k) y += v;
        x[i] = y;
    }
}

enum class chain_mode { launches, graph, fused };

class tiny_chain_case : public kernel_case {
public:
    static constexpr int n = 1024;
    static constexpr int steps = 8;
    explicit tiny_chain_case(chain_mode mode) : mode_(mode) {}
    ~tiny_chain_case() override {
        if (exec_) cudaGraphExecDestroy(exec_);
        if (graph_) cudaGraphDestroy(graph_);
    }
    std::string name() const override {
        return mode_ == chain_mode::launches ? "tiny_add_chain" : mode_ == chain_mode::graph ? "tiny_add_graph" : "tiny_add_fused";
    }
    std::string intent() const override {
        return mode_ == chain_mode::launches ? "launch: 8 launches of a 1024-element add"
               : mode_ == chain_mode::graph  ? "the same 8 launches replayed as one CUDA graph (timing only: ncu profiles the nodes)"
                                             : "one launch doing the 8 steps";
    }
    bool profiled() const override { return mode_ != chain_mode::graph; }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, n);
        x_ = device_buffer<float>(n);
    }
    // The kernel updates in place, so the input is restored rather than poisoned.
    void poison() override { x_.upload(host_); }
    void launch(cudaStream_t s) override {
        if (mode_ == chain_mode::fused) {
            tiny_add_fused<<<n / 256, 256, 0, s>>>(x_.get(), 0.5f, n, steps);
        } else if (mode_ == chain_mode::launches) {
            for (int k = 0; k < steps; ++k) tiny_add<<<n / 256, 256, 0, s>>>(x_.get(), 0.5f, n);
        } else {
            if (!exec_) {
                cudaStream_t capture;
                ROOFLINE_CUDA_CHECK(cudaStreamCreate(&capture));
                ROOFLINE_CUDA_CHECK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal));
                for (int k = 0; k < steps; ++k) tiny_add<<<n / 256, 256, 0, capture>>>(x_.get(), 0.5f, n);
                ROOFLINE_CUDA_CHECK(cudaStreamEndCapture(capture, &graph_));
                ROOFLINE_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
                ROOFLINE_CUDA_CHECK(cudaStreamDestroy(capture));
            }
            ROOFLINE_CUDA_CHECK(cudaGraphLaunch(exec_, s));
        }
    }
    double check() override {
        auto out = x_.download();
        std::vector<double> a(out.begin(), out.end()), b(n);
        for (int i = 0; i < n; ++i) b[i] = double(host_[i]) + steps * 0.5;
        return relative_error(a, b);
    }
    double min_bytes() const override { return 2.0 * steps * n * sizeof(float); }
    double flops() const override { return double(steps) * n; }
    int launches_per_run() const override { return mode_ == chain_mode::fused ? 1 : steps; }

private:
    chain_mode mode_;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    std::vector<float> host_;
    device_buffer<float> x_;
};

}  // namespace

void add_launch_cases(case_list& out) {
    out.push_back(std::make_unique<tiny_chain_case>(chain_mode::launches));
    out.push_back(std::make_unique<tiny_chain_case>(chain_mode::graph));
    out.push_back(std::make_unique<tiny_chain_case>(chain_mode::fused));
}

}  // namespace roofline::kernels
