// Synchronisation and control-flow pairs: a barrier-heavy tree reduction -> a warp-shuffle
// reduction, and a divergent branch -> its branch-free form.
#include "kernel_case.hpp"

namespace roofline::kernels {
namespace {

// One element per thread, then the textbook interleaved tree: a barrier per step, and the
// modulo test leaves most lanes of every warp idle.
__global__ void reduce_naive(const float* __restrict__ in, float* __restrict__ partial, size_t n) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    size_t i = size_t(blockIdx.x) * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// Many 16-byte loads per thread, a shuffle tree inside each warp, one barrier per block.
__global__ void reduce_shuffle(const float4* __restrict__ in, float* __restrict__ partial, size_t n4) {
    __shared__ float warp_sums[32];
    float sum = 0.0f;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) {
        float4 v = in[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0) partial[blockIdx.x] = sum;
    }
}

class reduce_case : public kernel_case {
public:
    reduce_case(bool shuffle, size_t n) : shuffle_(shuffle), n_(n) {}
    std::string name() const override { return shuffle_ ? "reduce_shuffle" : "reduce_naive"; }
    std::string intent() const override {
        return shuffle_ ? "memory/dram: shuffle reduction, one barrier per block"
                        : "barrier stalls: a __syncthreads per tree step, divergent modulo indexing";
    }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, n_);
        in_ = device_buffer<float>(n_);
        in_.upload(host_);
        int sms = 0;
        ROOFLINE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        blocks_ = shuffle_ ? size_t(sms) * 8 : (n_ + 255) / 256;
        partial_ = device_buffer<float>(blocks_);
    }
    void poison() override { partial_.poison(); }
    void launch(cudaStream_t s) override {
        if (shuffle_)
            reduce_shuffle<<<unsigned(blocks_), 256, 0, s>>>(reinterpret_cast<const float4*>(in_.get()), partial_.get(), n_ / 4);
        else
            reduce_naive<<<unsigned(blocks_), 256, 0, s>>>(in_.get(), partial_.get(), n_);
    }
    double check() override {
        auto p = partial_.download();
        double got = 0, want = 0, scale = 0;
        for (float v : p) got += v;
        for (float v : host_) {
            want += v;
            scale += std::fabs(v);
        }
        if (!std::isfinite(got)) return INFINITY;
        // Relative to the sum of magnitudes: random signs make the plain sum nearly cancel.
        return std::fabs(got - want) / scale;
    }
    double min_bytes() const override { return double(n_) * sizeof(float); }
    double flops() const override { return double(n_); }

private:
    bool shuffle_;
    size_t n_;
    size_t blocks_ = 0;
    std::vector<float> host_;
    device_buffer<float> in_, partial_;
};

constexpr int divergent_steps = 256;

// Odd and even lanes take different loops: the warp runs both, one after the other. The even
// loop is written as a separate multiply and add (no contraction) so the compiler cannot merge
// the two loops into one; the branch-free form below fuses it, within rounding. Each thread
// carries two independent elements (i and i + n/2) so the FMA latency is hidden.
__global__ void branch_divergent(const float* __restrict__ in, float* __restrict__ out, size_t half) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= half) return;
    float x = in[i], y = in[i + half];
    if (threadIdx.x & 1) {
        for (int k = 0; k < divergent_steps; ++k) {
            x = fmaf(x, 0.75f, 0.125f);
            y = fmaf(y, 0.75f, 0.125f);
        }
    } else {
        for (int k = 0; k < divergent_steps; ++k) {
            x = __fadd_rn(__fmul_rn(x, 0.5f), -0.25f);
            y = __fadd_rn(__fmul_rn(y, 0.5f), -0.25f);
        }
    }
    out[i] = x;
    out[i + half] = y;
}

// The same function: the lanes pick their constants, then all run one loop.
__global__ void branch_free(const float* __restrict__ in, float* __restrict__ out, size_t half) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= half) return;
    bool odd = threadIdx.x & 1;
    float a = odd ? 0.75f : 0.5f, b = odd ? 0.125f : -0.25f;
    float x = in[i], y = in[i + half];
    for (int k = 0; k < divergent_steps; ++k) {
        x = fmaf(x, a, b);
        y = fmaf(y, a, b);
    }
    out[i] = x;
    out[i + half] = y;
}

class divergence_case : public kernel_case {
public:
    divergence_case(bool fixed, size_t n) : fixed_(fixed), n_(n) {}
    std::string name() const override { return fixed_ ? "branch_free" : "branch_divergent"; }
    std::string intent() const override {
        return fixed_ ? "compute/fp32: one loop for every lane" : "thread divergence: odd and even lanes run different loops";
    }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, n_);
        in_ = device_buffer<float>(n_);
        out_ = device_buffer<float>(n_);
        in_.upload(host_);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        // n_ is a multiple of 512, so element i and i + n/2 sit at the same lane parity.
        unsigned blocks = unsigned((n_ / 2 + 255) / 256);
        if (fixed_) branch_free<<<blocks, 256, 0, s>>>(in_.get(), out_.get(), n_ / 2);
        else branch_divergent<<<blocks, 256, 0, s>>>(in_.get(), out_.get(), n_ / 2);
    }
    double check() override {
        auto out = out_.download();
        std::vector<double> got(out.begin(), out.end()), want(n_);
        for (size_t i = 0; i < n_; ++i) {
            bool odd = (i % 256) & 1;  // threadIdx.x parity: blocks of 256, n/2 a multiple of 256
            double a = odd ? 0.75 : 0.5, b = odd ? 0.125 : -0.25, x = host_[i];
            for (int k = 0; k < divergent_steps; ++k) x = x * a + b;
            want[i] = x;
        }
        return relative_error(got, want);
    }
    double min_bytes() const override { return 2.0 * n_ * sizeof(float); }
    double flops() const override { return 2.0 * divergent_steps * double(n_); }

private:
    bool fixed_;
    size_t n_;
    std::vector<float> host_;
    device_buffer<float> in_, out_;
};

}  // namespace

void add_sync_pair_cases(case_list& out) {
    out.push_back(std::make_unique<reduce_case>(false, scaled_count(size_t(64) << 20)));
    out.push_back(std::make_unique<reduce_case>(true, scaled_count(size_t(64) << 20)));
    out.push_back(std::make_unique<divergence_case>(false, scaled_count(size_t(16) << 20)));
    out.push_back(std::make_unique<divergence_case>(true, scaled_count(size_t(16) << 20)));
}

}  // namespace roofline::kernels
