// Checks a GEMM result on sampled outputs against float64 dot products: a full CPU GEMM of the
// sizes the pairs use takes minutes. Every output must also be finite (written, not poisoned).
#pragma once

#include "kernel_case.hpp"

#include <cmath>

namespace roofline::kernels {

// How B is stored: K x N row-major (C = A * B), or N x K row-major (C = A * B^T, both operands
// K-major, as tensor-core GEMMs and torch.nn.Linear prefer).
enum class b_layout { k_by_n, n_by_k };

template <class In, class ToDouble>
double sampled_gemm_error(const std::vector<In>& a, const std::vector<In>& b, const std::vector<float>& c, int n,
                          ToDouble to_double, std::mt19937_64& rng, int samples = 512,
                          b_layout layout = b_layout::k_by_n) {
    for (float v : c)
        if (!std::isfinite(v)) return INFINITY;
    std::uniform_int_distribution<int> pick(0, n - 1);
    std::vector<double> got, want;
    for (int s = 0; s < samples; ++s) {
        int r = pick(rng), col = pick(rng);
        double dot = 0;
        for (int k = 0; k < n; ++k) {
            size_t bi = layout == b_layout::k_by_n ? size_t(k) * n + col : size_t(col) * n + k;
            dot += to_double(a[size_t(r) * n + k]) * to_double(b[bi]);
        }
        want.push_back(dot);
        got.push_back(c[size_t(r) * n + col]);
    }
    return relative_error(got, want);
}

}  // namespace roofline::kernels
