// Occupancy pair: a latency-bound random gather launched with a large shared-memory
// reservation (one block per SM) -> the same kernel without it (eight blocks per SM).
#include "kernel_case.hpp"

namespace roofline::kernels {
namespace {

// out[i] = table[index[i]]: each load waits on the one before it in the index stream, so
// only many warps in flight hide the DRAM latency.
__global__ void gather_smem_limited(const float* __restrict__ table, const unsigned* __restrict__ index, float* __restrict__ out, size_t n) {
    extern __shared__ float scratch[];  // reserved by the launch, barely used
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0 && blockDim.x > 0) scratch[0] = 0.0f;
    if (i < n) out[i] = table[index[i]];
}

// The same loop with nothing reserved: the kernel is named apart so a profile shows both.
__global__ void gather_full_occupancy(const float* __restrict__ table, const unsigned* __restrict__ index, float* __restrict__ out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[index[i]];
}

constexpr int reserved_smem = 200 * 1024;

class gather_case : public kernel_case {
public:
    gather_case(bool full, size_t n, size_t table) : full_(full), n_(n), table_(table) {}
    std::string name() const override { return full_ ? "gather_full_occupancy" : "gather_smem_limited"; }
    std::string intent() const override {
        return full_ ? "memory: the same gather with 64 warps per SM"
                     : "occupancy limited by shared memory: 200 KB per block leaves 8 warps per SM on a latency-bound gather";
    }
    void setup(std::mt19937_64& rng) override {
        host_table_ = random_floats(rng, table_);
        std::uniform_int_distribution<unsigned> pick(0, unsigned(table_ - 1));
        host_index_.resize(n_);
        for (auto& v : host_index_) v = pick(rng);
        table_d_ = device_buffer<float>(table_);
        index_d_ = device_buffer<unsigned>(n_);
        out_ = device_buffer<float>(n_);
        table_d_.upload(host_table_);
        index_d_.upload(host_index_);
        if (!full_) ROOFLINE_CUDA_CHECK(cudaFuncSetAttribute(gather_smem_limited, cudaFuncAttributeMaxDynamicSharedMemorySize, reserved_smem));
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        unsigned blocks = unsigned((n_ + 255) / 256);
        if (full_) gather_full_occupancy<<<blocks, 256, 0, s>>>(table_d_.get(), index_d_.get(), out_.get(), n_);
        else gather_smem_limited<<<blocks, 256, reserved_smem, s>>>(table_d_.get(), index_d_.get(), out_.get(), n_);
    }
    double check() override {
        auto out = out_.download();
        std::vector<double> got(out.begin(), out.end()), want(n_);
        for (size_t i = 0; i < n_; ++i) want[i] = host_table_[host_index_[i]];
        return relative_error(got, want);
    }
    double min_bytes() const override { return double(n_) * (2 * sizeof(float) + sizeof(unsigned)); }

private:
    bool full_;
    size_t n_, table_;
    std::vector<float> host_table_;
    std::vector<unsigned> host_index_;
    device_buffer<float> table_d_, out_;
    device_buffer<unsigned> index_d_;
};

}  // namespace

void add_occupancy_pair_cases(case_list& out) {
    out.push_back(std::make_unique<gather_case>(false, scaled_count(size_t(32) << 20), scaled_count(size_t(64) << 20)));
    out.push_back(std::make_unique<gather_case>(true, scaled_count(size_t(32) << 20), scaled_count(size_t(64) << 20)));
}

}  // namespace roofline::kernels
