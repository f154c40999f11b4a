// One runnable kernel of the validation set: it owns its buffers, fills them with fresh random
// inputs, launches, and checks its output against a CPU reference.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#define ROOFLINE_CUDA_CHECK(expr)                                                              \
    do {                                                                                       \
        cudaError_t err_ = (expr);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,          \
                         cudaGetErrorString(err_));                                            \
            std::exit(3);                                                                      \
        }                                                                                      \
    } while (0)

namespace roofline::kernels {

class kernel_case {
public:
    virtual ~kernel_case() = default;
    virtual std::string name() const = 0;
    // What the kernel is built to show, e.g. "memory/dram: DRAM roof reference".
    virtual std::string intent() const = 0;
    // Allocates device buffers and writes fresh random inputs.
    virtual void setup(std::mt19937_64& rng) = 0;
    // Overwrites every output element with a value no correct kernel produces.
    virtual void poison() = 0;
    virtual void launch(cudaStream_t stream) = 0;
    // Copies the output back and returns ||out - ref|| / ||ref|| against a CPU reference.
    virtual double check() = 0;
    // The fewest bytes the kernel must move through DRAM, and the FLOPs it must do.
    virtual double min_bytes() const = 0;
    virtual double flops() const { return 0.0; }
    // Launches per run: a launch-bound chain launches many times.
    virtual int launches_per_run() const { return 1; }
    virtual double tolerance() const { return 1e-5; }
    // False for cases that only make sense timed (a CUDA graph replays kernels ncu profiles anyway).
    virtual bool profiled() const { return true; }
    // Non-empty when this GPU cannot run the kernel (wgmma needs compute capability 9.0): the
    // runner prints it and goes on with the other cases.
    virtual std::string skip_reason() const { return {}; }
};

using case_list = std::vector<std::unique_ptr<kernel_case>>;

// Device buffer that frees itself.
template <class T>
class device_buffer {
public:
    device_buffer() = default;
    explicit device_buffer(size_t n) : n_(n) { ROOFLINE_CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T))); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    device_buffer(device_buffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
    device_buffer& operator=(device_buffer&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        return *this;
    }
    ~device_buffer() { if (p_) cudaFree(p_); }
    T* get() const { return p_; }
    size_t size() const { return n_; }
    void upload(const std::vector<T>& h) {
        ROOFLINE_CUDA_CHECK(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> download() const {
        std::vector<T> h(n_);
        ROOFLINE_CUDA_CHECK(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
    // 0xFF bytes: NaN for floating types.
    void poison() { ROOFLINE_CUDA_CHECK(cudaMemset(p_, 0xFF, n_ * sizeof(T))); }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

std::vector<float> random_floats(std::mt19937_64& rng, size_t n, float lo = -1.0f, float hi = 1.0f);

// ||a - b|| / ||b||; NaN anywhere in a gives infinity.
double relative_error(const std::vector<double>& a, const std::vector<double>& b);

// The same accumulated element by element, for outputs too large to copy into vectors of double.
class error_sum {
public:
    void add(double got, double want) {
        if (!std::isfinite(got)) bad_ = true;
        num_ += (got - want) * (got - want);
        den_ += want * want;
    }
    double value() const {
        if (bad_) return INFINITY;
        return den_ > 0 ? std::sqrt(num_ / den_) : std::sqrt(num_);
    }

private:
    double num_ = 0.0, den_ = 0.0;
    bool bad_ = false;
};

// Butterfly reductions over a warp: every lane ends with the warp's result.
__device__ __forceinline__ float warp_sum_all(float v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warp_max_all(float v) {
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// --scale: problem sizes are the defaults times this factor (vectors) or its square root
// (matrix dimensions), rounded to what the kernels tile by. 1.0 gives the sizes profiled in examples/.
extern double size_scale;
size_t scaled_count(size_t n);             // a multiple of 65,536 elements
int scaled_dim(int n, int multiple);       // a multiple of `multiple`

// Each translation unit adds its cases here.
void add_memory_cases(case_list& out);
void add_compute_cases(case_list& out);
void add_launch_cases(case_list& out);
void add_memory_pair_cases(case_list& out);
void add_sync_pair_cases(case_list& out);
void add_compute_pair_cases(case_list& out);
void add_tensor_pair_cases(case_list& out);
void add_wgmma_cases(case_list& out);
void add_occupancy_pair_cases(case_list& out);
void add_sweep_cases(case_list& out);
void add_progression_cases(case_list& out);
void add_step_cases(case_list& out);
void add_failure_cases(case_list& out);

}  // namespace roofline::kernels
