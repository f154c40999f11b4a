// Memory-side kernels: the DRAM roof reference (vectorised copy), the transpose pair
// (uncoalesced -> staged through shared memory) and a small-grid copy.
#include "kernel_case.hpp"

#include <cmath>

namespace roofline::kernels {
namespace {

// One 16-byte load and store per thread, a grid as large as the data: the simplest form, and
// the fastest under ncu on the H100 (88% of the DRAM roof for the same pattern in ew_scale,
// against 84-85% for grid-stride loops with one or four loads in flight).
__global__ void copy_vec4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = in[i];
}

// A grid-stride loop with four independent loads in flight, for grids too small to cover the
// data: here, four blocks (the small-grid pair).
__global__ void copy_few_blocks(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
    const size_t bd = blockDim.x;
    const size_t stride = size_t(gridDim.x) * bd * 4;
    size_t i = size_t(blockIdx.x) * bd * 4 + threadIdx.x;
    for (; i + 3 * bd < n4; i += stride) {
        float4 a = in[i], b = in[i + bd], c = in[i + 2 * bd], d = in[i + 3 * bd];
        out[i] = a;
        out[i + bd] = b;
        out[i + 2 * bd] = c;
        out[i + 3 * bd] = d;
    }
    for (; i < n4; i += bd) out[i] = in[i];  // the rest of this thread's last chunk
}

// Reads are coalesced along x; writes jump a whole row per thread, so each warp's store touches
// 32 different sectors.
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[size_t(x) * n + (y + j)] = in[size_t(y + j) * n + x];
}

// The tile goes through shared memory so both the read and the write are row-contiguous.
// The +1 column keeps the column reads free of bank conflicts.
__global__ void transpose_smem(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[size_t(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The staged transpose without the padding column: reading a tile column hits one bank 32 times.
__global__ void transpose_unpadded(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[size_t(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

class copy_case : public kernel_case {
public:
    copy_case(std::string name, size_t n, int blocks) : name_(std::move(name)), n_(n), blocks_(blocks) {}
    std::string name() const override { return name_; }
    std::string intent() const override {
        return blocks_ > 0 ? "small_grid: a copy on " + std::to_string(blocks_) + " blocks"
                           : "memory/dram: DRAM roof reference (one 16-byte load and store per thread)";
    }
    void setup(std::mt19937_64& rng) override {
        host_ = random_floats(rng, n_);
        in_ = device_buffer<float>(n_);
        out_ = device_buffer<float>(n_);
        in_.upload(host_);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        unsigned blocks = blocks_ > 0 ? unsigned(blocks_) : unsigned((n_ / 4 + 255) / 256);
        auto* in = reinterpret_cast<const float4*>(in_.get());
        auto* out = reinterpret_cast<float4*>(out_.get());
        if (blocks_ > 0) copy_few_blocks<<<blocks, 256, 0, s>>>(in, out, n_ / 4);
        else copy_vec4<<<blocks, 256, 0, s>>>(in, out, n_ / 4);
    }
    double check() override {
        auto out = out_.download();
        std::vector<double> a(out.begin(), out.end()), b(host_.begin(), host_.end());
        return relative_error(a, b);
    }
    double min_bytes() const override { return 2.0 * n_ * sizeof(float); }

private:
    std::string name_;
    size_t n_;
    int blocks_;
    std::vector<float> host_;
    device_buffer<float> in_, out_;
};

enum class transpose_form { naive, padded, unpadded };

class transpose_case : public kernel_case {
public:
    transpose_case(transpose_form form, int n) : form_(form), n_(n) {}
    std::string name() const override {
        return form_ == transpose_form::naive ? "transpose_naive" : form_ == transpose_form::padded ? "transpose_smem" : "transpose_unpadded";
    }
    std::string intent() const override {
        return form_ == transpose_form::naive    ? "uncoalesced global stores (32 sectors per warp store)"
               : form_ == transpose_form::padded ? "memory/dram: coalesced transpose through a padded shared tile"
                                                 : "shared-memory bank conflicts: 32-way on the tile's column reads";
    }
    void setup(std::mt19937_64& rng) override {
        size_t count = size_t(n_) * n_;
        host_ = random_floats(rng, count);
        in_ = device_buffer<float>(count);
        out_ = device_buffer<float>(count);
        in_.upload(host_);
    }
    void poison() override { out_.poison(); }
    void launch(cudaStream_t s) override {
        dim3 grid(n_ / 32, n_ / 32), block(32, 8);
        if (form_ == transpose_form::padded) transpose_smem<<<grid, block, 0, s>>>(in_.get(), out_.get(), n_);
        else if (form_ == transpose_form::unpadded) transpose_unpadded<<<grid, block, 0, s>>>(in_.get(), out_.get(), n_);
        else transpose_naive<<<grid, block, 0, s>>>(in_.get(), out_.get(), n_);
    }
    double check() override {
        auto out = out_.download();
        std::vector<double> a(out.begin(), out.end()), b(out.size());
        for (size_t y = 0; y < size_t(n_); ++y)
            for (size_t x = 0; x < size_t(n_); ++x) b[x * n_ + y] = host_[y * n_ + x];
        return relative_error(a, b);
    }
    double min_bytes() const override { return 2.0 * n_ * double(n_) * sizeof(float); }

private:
    transpose_form form_;
    int n_;
    std::vector<float> host_;
    device_buffer<float> in_, out_;
};

}  // namespace

void add_memory_cases(case_list& out) {
    out.push_back(std::make_unique<copy_case>("copy_vec4", scaled_count(size_t(64) << 20), 0));
    out.push_back(std::make_unique<transpose_case>(transpose_form::naive, scaled_dim(8192, 32)));
    out.push_back(std::make_unique<transpose_case>(transpose_form::padded, scaled_dim(8192, 32)));
    out.push_back(std::make_unique<copy_case>("small_grid_copy", scaled_count(size_t(64) << 20), 4));
    out.push_back(std::make_unique<transpose_case>(transpose_form::unpadded, scaled_dim(8192, 32)));
}

}  // namespace roofline::kernels
