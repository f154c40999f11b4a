// The copy reference's read side swept from an L1-resident to a DRAM-resident working set:
// the measured L1, L2 and DRAM ceilings a later `calibrate` step fits.
#include "kernel_case.hpp"

namespace roofline::kernels {
namespace {

// Every block reads the same slice of the buffer `repeats` times; a slice small enough for
// one SM's L1 is served from L1 after the first pass, a buffer under the L2 size from L2.
template <int Level>
__global__ void read_sweep(const float4* __restrict__ in, float* __restrict__ out, size_t n4, int repeats) {
    float4 acc = make_float4(0, 0, 0, 0);
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (int r = 0; r < repeats; ++r)
        for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
            float4 v = in[i];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
    out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = (acc.x + acc.y) + (acc.z + acc.w);
}

class sweep_case : public kernel_case {
public:
    sweep_case(int level, size_t bytes, int repeats) : level_(level), n_(bytes / sizeof(float)), repeats_(repeats) {}
    std::string name() const override { return "read_sweep_" + std::string(level_names[level_]); }
    std::string intent() const override {
        return std::string("ceiling reference: reads a ") + std::to_string(n_ * 4 >> 20) + " MiB working set " +
               std::to_string(repeats_) + " times (" + level_names[level_] + "-resident)";
    }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, n_);
        in_ = device_buffer<float>(n_);
        in_.upload(host_);
        int sms = 0;
        ROOFLINE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        blocks_ = size_t(sms) * 4;
        out_ = device_buffer<float>(blocks_ * 256);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        auto in = reinterpret_cast<const float4*>(in_.get());
        unsigned b = unsigned(blocks_);
        switch (level_) {
            case 0: read_sweep<0><<<b, 256, 0, s>>>(in, out_.get(), n_ / 4, repeats_); break;
            case 1: read_sweep<1><<<b, 256, 0, s>>>(in, out_.get(), n_ / 4, repeats_); break;
            default: read_sweep<2><<<b, 256, 0, s>>>(in, out_.get(), n_ / 4, repeats_); break;
        }
    }
    double check() override {
        auto out = out_.download();
        const size_t threads = blocks_ * 256, n4 = n_ / 4;
        std::vector<double> got(out.begin(), out.end()), want(threads, 0.0);
        for (size_t t = 0; t < threads; ++t) {
            double acc = 0;
            for (size_t i = t; i < n4; i += threads)
                for (int c = 0; c < 4; ++c) acc += host_[i * 4 + c];
            want[t] = acc * repeats_;
        }
        return relative_error(got, want);
    }
    double tolerance() const override { return 1e-4; }
    double min_bytes() const override { return double(n_) * sizeof(float) * repeats_; }
    double flops() const override { return double(n_) * repeats_; }

private:
    static constexpr const char* level_names[3] = {"l1", "l2", "dram"};
    int level_;
    size_t n_;
    int repeats_;
    size_t blocks_ = 0;
    std::vector<float> host_;
    device_buffer<float> in_, out_;
};

}  // namespace

void add_sweep_cases(case_list& out) {
    // 8 MiB over 132 SMs is about 62 KB per SM (L1); 32 MiB fits the 50 MiB L2 (not L1);
    // 1 GiB is DRAM. The repeats make each run long enough to time.
    out.push_back(std::make_unique<sweep_case>(0, size_t(8) << 20, 64));
    out.push_back(std::make_unique<sweep_case>(1, size_t(32) << 20, 16));
    out.push_back(std::make_unique<sweep_case>(2, size_t(1) << 30, 1));
}

}  // namespace roofline::kernels
