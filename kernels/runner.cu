// roofline-kernels: lists, checks and times the validation kernels.
//   roofline-kernels --list
//   roofline-kernels [--once] [--reps N] [--seed S] [--scale F] NAME|all ...
// Every run first poisons the output, launches once and checks the result against a CPU
// reference; a wrong result exits 1. --once stops there (one launch per kernel, for ncu).
#include "kernel_case.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace rk = roofline::kernels;

namespace roofline::kernels {

double size_scale = 1.0;
void add_step_physics_cases(case_list& out);  // kernels/steps_physics.cu

size_t scaled_count(size_t n) {
    const size_t unit = size_t(1) << 16;
    size_t units = size_t(std::llround(double(n) * size_scale / double(unit)));
    return std::max<size_t>(units, 1) * unit;
}

int scaled_dim(int n, int multiple) {
    long m = std::lround(double(n) * std::sqrt(size_scale) / multiple);
    return int(std::max(m, 1L)) * multiple;
}

std::vector<float> random_floats(std::mt19937_64& rng, size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = u(rng);
    return v;
}

double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return INFINITY;
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i])) return INFINITY;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace roofline::kernels

namespace {

rk::case_list all_cases() {
    rk::case_list cases;
    rk::add_memory_cases(cases);
    rk::add_compute_cases(cases);
    rk::add_launch_cases(cases);
    rk::add_memory_pair_cases(cases);
    rk::add_sync_pair_cases(cases);
    rk::add_compute_pair_cases(cases);
    rk::add_tensor_pair_cases(cases);
    rk::add_wgmma_cases(cases);
    rk::add_occupancy_pair_cases(cases);
    rk::add_sweep_cases(cases);
    rk::add_progression_cases(cases);
    rk::add_step_cases(cases);
    rk::add_step_physics_cases(cases);
    rk::add_failure_cases(cases);
    return cases;
}

// Median of `reps` event-timed runs after `warmup` untimed ones, in milliseconds.
float median_ms(rk::kernel_case& c, int warmup, int reps) {
    cudaEvent_t start, stop;
    ROOFLINE_CUDA_CHECK(cudaEventCreate(&start));
    ROOFLINE_CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; ++i) c.launch(nullptr);
    std::vector<float> ms(reps);
    for (auto& m : ms) {
        ROOFLINE_CUDA_CHECK(cudaEventRecord(start));
        c.launch(nullptr);
        ROOFLINE_CUDA_CHECK(cudaEventRecord(stop));
        ROOFLINE_CUDA_CHECK(cudaEventSynchronize(stop));
        ROOFLINE_CUDA_CHECK(cudaEventElapsedTime(&m, start, stop));
    }
    ROOFLINE_CUDA_CHECK(cudaGetLastError());
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::nth_element(ms.begin(), ms.begin() + reps / 2, ms.end());
    return ms[reps / 2];
}

int usage() {
    std::fprintf(stderr, "usage: roofline-kernels --list | [--once] [--reps N] [--seed S] [--scale F] NAME|all ...\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    bool once = false;
    int reps = 21;
    unsigned long long seed = std::random_device{}();
    std::vector<std::string> names;
    bool list = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--list") {
            list = true;
        } else if (a == "--scale" && i + 1 < argc) {
            rk::size_scale = std::atof(argv[++i]);
            if (!(rk::size_scale > 0)) return usage();
        } else if (a == "--once") {
            once = true;
        } else if (a == "--reps" && i + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--seed" && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (!a.empty() && a[0] == '-') {
            return usage();
        } else {
            names.push_back(a);
        }
    }
    auto cases = all_cases();
    if (list) {
        for (auto& c : cases) std::printf("%-22s %s\n", c->name().c_str(), c->intent().c_str());
        return 0;
    }
    if (names.empty()) return usage();
    for (auto& n : names) {
        if (n != "all" && std::none_of(cases.begin(), cases.end(), [&](auto& c) { return c->name() == n; })) {
            std::fprintf(stderr, "roofline-kernels: unknown kernel '%s' (see --list)\n", n.c_str());
            return 2;
        }
    }
    std::mt19937_64 rng(seed);
    std::printf("seed %llu\n%-18s %10s %12s %10s %10s %12s\n", seed, "kernel", "rel_err", "median_us",
                "launches", "GB/s", "GFLOP/s");
    int failures = 0;
    for (auto& c : cases) {
        // "all" means every case ncu can profile meaningfully under --once.
        bool wanted = (std::find(names.begin(), names.end(), "all") != names.end() && (c->profiled() || !once)) ||
                      std::find(names.begin(), names.end(), c->name()) != names.end();
        if (!wanted) continue;
        if (std::string why = c->skip_reason(); !why.empty()) {
            std::printf("%-18s skipped: %s\n", c->name().c_str(), why.c_str());
            continue;
        }
        c->setup(rng);
        c->poison();
        c->launch(nullptr);
        ROOFLINE_CUDA_CHECK(cudaGetLastError());
        ROOFLINE_CUDA_CHECK(cudaDeviceSynchronize());
        double err = c->check();
        bool ok = err <= c->tolerance();
        failures += !ok;
        if (once) {
            std::printf("%-18s %10.2e %12s %10d %10s %12s%s\n", c->name().c_str(), err, "-",
                        c->launches_per_run(), "-", "-", ok ? "" : "  WRONG RESULT");
        } else {
            double us = 1e3 * median_ms(*c, 3, reps);
            std::printf("%-18s %10.2e %12.2f %10d %10.1f %12.1f%s\n", c->name().c_str(), err, us,
                        c->launches_per_run(), c->min_bytes() / us / 1e3, c->flops() / us / 1e3,
                        ok ? "" : "  WRONG RESULT");
        }
        c.reset();
    }
    return failures ? 1 : 0;
}
