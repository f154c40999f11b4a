// The model's arithmetic against numbers worked by hand from examples/h100/kernels_raw_base.csv.
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace roofline;
using namespace roofline::test;

TEST_CASE("copy_vec4: DRAM bytes over the measured peak at the capture's DRAM clock") {
    auto a = analyze_example("examples/h100/kernels_raw_base.csv");
    const auto& k = kernel_named(a, "copy_vec4").roof;
    // bytes = 268,456,960 + 250,120,192; peak = 1,280 byte/cycle x 2,618,006,318.01 Hz;
    // u = 518,577,152 / (3.351048e12 x 182,336e-9) = 0.848712
    const resource_use* dram = k.find(roofline::resource::dram);
    REQUIRE(dram);
    CHECK(dram->work == 518577152);
    CHECK(dram->peak == doctest::Approx(1280 * 2618006318.01));
    CHECK(dram->utilisation == doctest::Approx(0.848712).epsilon(1e-5));
    CHECK(dram->peak_source.rfind("measured", 0) == 0);
    CHECK(k.binding == roofline::resource::dram);
    CHECK(k.floor_ns == doctest::Approx(0.848712 * 182336).epsilon(1e-5));
    CHECK(k.pct_of_roof == doctest::Approx(84.8712).epsilon(1e-5));
    CHECK(k.flops_counted);
    CHECK(k.intensity(roofline::resource::dram) == 0.0);
}

TEST_CASE("fma_chain<float>: FP32 FLOPs match what the kernel was written to do") {
    auto a = analyze_example("examples/h100/kernels_raw_base.csv");
    const auto& k = kernel_named(a, "fma_chain<float>").roof;
    const resource_use* fp32 = k.find(roofline::resource::fp32);
    REQUIRE(fp32);
    // (6.58 + 2 x 14,371.80) inst/cycle x 1,588,849,004.15 Hz x 775,872 ns
    CHECK(fp32->work == doctest::Approx(35441596212.07).epsilon(1e-9));
    // The kernel: 132 SMs x 16 blocks x 256 threads x 8 chains x 4096 steps x 2 FLOPs.
    CHECK(fp32->work == doctest::Approx(35433480192.0).epsilon(1e-3));
    CHECK(fp32->peak == doctest::Approx(2 * 16896 * 1588849004.15));
    CHECK(fp32->utilisation == doctest::Approx(28750.18 / 33792).epsilon(1e-6));
    // The issue slots (93.1% busy) are fuller than the FP32 roof: they set the useful floor; at
    // the practical shares the FP32 roof (74.6% practical) sets it.
    CHECK(k.binding == roofline::resource::issue);
    CHECK(k.pct_of_roof == doctest::Approx(93.1).epsilon(1e-3));
    CHECK(k.binding_practical == roofline::resource::fp32);
}

TEST_CASE("the bf16 GEMM uses the dense tensor peak, not the sparse one") {
    auto a = analyze_example("examples/h100/torch_ops_raw_base.csv");
    const auto& k = kernel_named(a, "nvjet").roof;
    const resource_use* t = k.find(roofline::resource::tensor_bf16);
    REQUIRE(t);
    CHECK(t->work == 137438953472.0);  // 2 x 4096^3
    // sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained = 540,672 per cycle,
    // half of the src_bf16 path's 1,081,344 (which counts 2:4 sparse rates).
    CHECK(t->peak == doctest::Approx(540672 * k.sm_clock_hz));
    CHECK(t->utilisation == doctest::Approx(0.9029).epsilon(2e-3));  // ncu's own pct_of_peak: 90.29%
    CHECK(k.intensity(roofline::resource::dram).has_value());
}

TEST_CASE("measured peaks agree with the H100 spec at the capture's clock: no warning") {
    auto a = analyze_example("examples/h100/kernels_raw_base.csv");
    for (const auto& k : a.kernels) {
        CAPTURE(k.group.name);
        for (const auto& w : k.roof.warnings) CHECK(w.find("differs from the spec") == std::string::npos);
    }
}

TEST_CASE("a wrong spec is reported, and a point above its roof is flagged") {
    auto specs = load_gpu_specs();
    gpu_spec spec = *std::find_if(specs.begin(), specs.end(), [](const gpu_spec& s) { return s.id == "h100-sxm"; });
    spec.dram_bandwidth_tbs.value = 2.0;  // as if someone typed the PCIe figure
    std::map<std::string, double> m = {{"gpu__time_duration.sum", 1000},
                                       {"dram__bytes_read.sum", 3e6},
                                       {"dram__bytes.sum.peak_sustained", 1280},
                                       {"dram__cycles_elapsed.avg.per_second", 2.618e9}};
    auto k = build_roofline(metric_view{m, 1}, spec);
    bool disagreement = false;
    for (const auto& w : k.warnings) disagreement |= w.find("dram bandwidth") != std::string::npos && w.find("+68%") != std::string::npos;
    CHECK(disagreement);
    // Without the capture's peak the spec is used, and 3 MB in 1 us at 2 TB/s is 150%: flagged.
    m.erase("dram__bytes.sum.peak_sustained");
    k = build_roofline(metric_view{m, 1}, spec);
    CHECK(k.find(roofline::resource::dram)->utilisation == doctest::Approx(1.5));
    bool above = false;
    for (const auto& w : k.warnings) above |= w.find("dram is above its roof: 150.0%") != std::string::npos;
    CHECK(above);
}

TEST_CASE("a kernel mixing tensor and CUDA-core work is bound by the unit with the most time") {
    auto specs = load_gpu_specs();
    const gpu_spec& spec = *std::find_if(specs.begin(), specs.end(), [](const gpu_spec& s) { return s.id == "h100-sxm"; });
    // 1 ms at 1.5 GHz: tensor bf16 at 40% of 540,672 ops/cycle, FP32 at 60% of 33,792 FLOP/cycle.
    const double clk = 1.5e9, t = 1e-3;
    std::map<std::string, double> m = {{"gpu__time_duration.sum", 1e6},
                                       {"sm__cycles_elapsed.avg.per_second", clk},
                                       {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 0.4 * 540672 * clk * t},
                                       {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained", 540672},
                                       {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", 0.6 * 16896},
                                       {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 16896}};
    auto k = build_roofline(metric_view{m, 1}, spec);
    CHECK(k.find(roofline::resource::tensor_bf16)->utilisation == doctest::Approx(0.4));
    CHECK(k.find(roofline::resource::fp32)->utilisation == doctest::Approx(0.6));
    CHECK(k.binding == roofline::resource::fp32);
    CHECK(k.flops == doctest::Approx(0.4 * 540672 * clk * t + 0.6 * 33792 * clk * t));
}

TEST_CASE("without a duration a kernel is not placed, and says what to collect") {
    auto specs = load_gpu_specs();
    std::map<std::string, double> m = {{"dram__bytes_read.sum", 1e6}};
    auto k = build_roofline(metric_view{m, 1}, specs.front());
    CHECK_FALSE(k.placed);
    CHECK(k.missing.find("gpu__time_duration.sum") == 0);
}
