// The model's arithmetic against numbers worked by hand from examples/h100/kernels_raw_base.csv.
#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/read/chip_names.hpp"
#include "analyzer/report/text.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace roofline;
using namespace roofline::test;

TEST_CASE("copy_vec4: DRAM bytes over the measured peak at the capture's DRAM clock") {
    auto a = analyze_example("examples/h100/kernels_raw_base.csv");
    const auto& k = kernel_named(a, "copy_vec4").roof;
    // read 268,456,960 B; written 250,120,192 B, but the stores put 8,388,608 sectors x 32 = 268,435,456 B
    // in L2: the 18 MB still dirty at the end are written back after the kernel and are its work too
    // (under L2's 50 MiB). bytes = 268,456,960 + 268,435,456 = 536,892,416;
    // peak = 1,280 byte/cycle x 2,618,006,318.01 Hz; u = 536,892,416 / (3.351048e12 x 182,336e-9) = 0.878686
    const resource_use* dram = k.find(roofline::resource::dram);
    REQUIRE(dram);
    CHECK(k.bytes_dram_written == 250120192);
    CHECK(k.bytes_stored == 268435456);
    CHECK(k.bytes_dram_owed_write == 268435456);
    CHECK(dram->work == 536892416);
    CHECK(dram->peak == doctest::Approx(1280 * 2618006318.01));
    CHECK(dram->utilisation == doctest::Approx(0.878686).epsilon(1e-5));
    CHECK(dram->peak_from.figure->from == peak_figure::kind::counters);
    CHECK(peak_source_text(dram->peak_from) ==
          "measured: dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second");
    CHECK(k.binding == roofline::resource::dram);
    CHECK(k.floor_ns == doctest::Approx(0.878686 * 182336).epsilon(1e-5));
    CHECK(k.pct_of_roof == doctest::Approx(87.8686).epsilon(1e-5));
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
        for (const auto& w : k.roof.warnings) CHECK(w.kind != roof_warning_kind::peak_differs);
    }
}

TEST_CASE("a wrong spec is reported, and a point above its roof is flagged") {
    auto specs = load_gpu_specs();
    gpu_spec spec = *std::find_if(specs.begin(), specs.end(), [](const gpu_spec& s) { return s.id == "h100-sxm"; });
    spec.dram_bandwidth_tbs.value = 2.0;  // as if someone typed the PCIe figure
    std::map<std::string, double> m = {{"gpu__time_duration.sum", 1000},
                                       {"dram__bytes_read.sum", 3e6},
                                       {"dram__bytes_write.sum", 0},
                                       {"dram__bytes.sum.peak_sustained", 1280},
                                       {"dram__cycles_elapsed.avg.per_second", 2.618e9}};
    auto k = build_roofline(metric_view{m, 1}, spec);
    bool disagreement = false;
    for (const auto& w : k.warnings)
        disagreement |= w.kind == roof_warning_kind::peak_differs && w.id == roofline::resource::dram &&
                        w.spec_value == doctest::Approx(2e12) &&
                        warning_text(w).rfind("dram bandwidth: the capture's measured peak 3.35T differs", 0) == 0 &&
                        warning_text(w).find("+68%") != std::string::npos;
    CHECK(disagreement);
    // Without the capture's peak the spec is used, and 3 MB in 1 us at 2 TB/s is 150%: flagged.
    m.erase("dram__bytes.sum.peak_sustained");
    k = build_roofline(metric_view{m, 1}, spec);
    REQUIRE(k.find(roofline::resource::dram) != nullptr);
    CHECK(k.find(roofline::resource::dram)->utilisation == doctest::Approx(1.5));
    bool above = false;
    for (const auto& w : k.warnings)
        above |= w.kind == roof_warning_kind::above_roof && w.id == roofline::resource::dram &&
                 w.value == doctest::Approx(1.5) &&
                 warning_text(w).rfind("dram is above its roof: 150.0% of spec ", 0) == 0;
    CHECK(above);
}

TEST_CASE("a kernel mixing tensor and CUDA-core work is bound by the unit with the most time") {
    auto specs = load_gpu_specs();
    const gpu_spec& spec =
        *std::find_if(specs.begin(), specs.end(), [](const gpu_spec& s) { return s.id == "h100-sxm"; });
    // 1 ms at 1.5 GHz: tensor bf16 at 40% of 540,672 ops/cycle, FP32 at 60% of 33,792 FLOP/cycle.
    const double clk = 1.5e9, t = 1e-3;
    std::map<std::string, double> m = {
        {"gpu__time_duration.sum", 1e6},
        {"sm__cycles_elapsed.avg.per_second", clk},
        {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 0.4 * 540672 * clk * t},
        {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained", 540672},
        {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", 0.6 * 16896},
        {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", 0},
        {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", 0},
        {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 16896}};
    auto k = build_roofline(metric_view{m, 1}, spec);
    REQUIRE(k.find(roofline::resource::fp32) != nullptr);
    REQUIRE(k.find(roofline::resource::tensor_bf16) != nullptr);
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
    CHECK(k.missing == lacking_input::duration);
    CHECK(lacking_text(k.missing).rfind("gpu__time_duration.sum (collect it with", 0) == 0);
}

namespace {

const gpu_spec& shipped(const std::string& id) {
    static const auto specs = load_gpu_specs();
    auto it = std::find_if(specs.begin(), specs.end(), [&](const gpu_spec& s) { return s.id == id; });
    if (it == specs.end()) throw std::runtime_error("no spec " + id);
    return *it;
}

// A synthetic capture of the GPU of `spec` as the reader hands it on: the chip's counter names mapped
// onto the catalogue's quantities (analyzer/read/chip_names.hpp).
metric_values as_read(const std::map<std::string, double>& m, const gpu_spec& spec) {
    metric_values v(m);
    resolve_chip_names(v, chip_for_cc(spec.compute_capability));
    return v;
}

kernel_roofline built(const std::map<std::string, double>& m, const gpu_spec& spec) {
    const metric_values v = as_read(m, spec);
    return build_roofline(metric_view{v, 1}, spec);
}

}  // namespace

TEST_CASE("GeForce FP16 tensor work: each accumulate type over its own rate, and the source says which") {
    // An RTX 5090-like capture at 2 GHz for 1 ms: the FP16-accumulate path peaks at 419 TFLOP/s at
    // the 2407 MHz boost, the FP32-accumulate one at half that (RTX Blackwell whitepaper).
    const double clk = 2e9, t = 1e-3, p16 = 419e12 / 2407e6, p32 = p16 / 2;
    const double ops16 = 0.25 * p16 * clk * t, ops32 = 0.5 * p32 * clk * t;  // a quarter and a half of each path's time
    std::map<std::string, double> m = {
        {"gpu__time_duration.sum", 1e6},
        {"sm__cycles_elapsed.avg.per_second", clk},
        {"sm__ops_path_tensor_src_fp16_dst_fp16.sum", ops16},
        {"sm__ops_path_tensor_src_fp16_dst_fp32.sum", ops32},
        {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_off.sum.peak_sustained", p16},
        {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum.peak_sustained", p32}};
    auto k = built(m, shipped("rtx-5090"));
    const resource_use* t16 = k.find(roofline::resource::tensor_fp16);
    REQUIRE(t16);
    CHECK(t16->work == doctest::Approx(ops16 + ops32));
    // The time the work needs is 0.25 + 0.5 of the duration; the fastest path alone would say 0.5.
    CHECK(t16->utilisation == doctest::Approx(0.75));
    CHECK(t16->peak == doctest::Approx((ops16 + ops32) / (ops16 / p16 + ops32 / p32) * clk));
    REQUIRE(t16->peak_from.mix);
    CHECK(t16->peak_from.mix->ops16 == ops16);
    CHECK(t16->peak_from.mix->fp32.from == peak_figure::kind::counters);
    const std::string why = peak_source_text(t16->peak_from);
    CHECK(why.find("with FP16 accumulate at") != std::string::npos);
    CHECK(why.find("with FP32 accumulate at") != std::string::npos);
    CHECK(why.find("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum.peak_sustained") !=
          std::string::npos);
    // The spec's two rates, combined the same way, agree with the capture's: no disagreement reported.
    for (const auto& w : k.warnings) CHECK(w.kind != roof_warning_kind::peak_differs);

    // Without the capture's peaks the spec's two figures play the same part, at the capture's clock.
    m.erase("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_off.sum.peak_sustained");
    m.erase("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum.peak_sustained");
    k = built(m, shipped("rtx-5090"));
    t16 = k.find(roofline::resource::tensor_fp16);
    REQUIRE(t16);
    const double scale = clk / 2407e6;
    CHECK(t16->peak == doctest::Approx((ops16 + ops32) / (ops16 / (419e12 * scale) + ops32 / (209.5e12 * scale))));
    REQUIRE(t16->peak_from.mix);
    CHECK(t16->peak_from.mix->fp16.figure == 419);
    CHECK(t16->peak_from.mix->fp16.acc == peak_figure::accumulate::fp16);
    CHECK(peak_source_text(t16->peak_from).find("419 TFLOP/s with FP16 accumulate") != std::string::npos);
    CHECK(peak_source_text(t16->peak_from).find("209.5 TFLOP/s with FP32 accumulate") != std::string::npos);

    // Without one of the two counts the FP16-source work itself is unknown (a part is not the whole):
    // the precision is unmeasured, and says which counter it lacks.
    m.erase("sm__ops_path_tensor_src_fp16_dst_fp16.sum");
    k = built(m, shipped("rtx-5090"));
    CHECK(k.find(roofline::resource::tensor_fp16) == nullptr);
    REQUIRE(k.find_unmeasured(roofline::resource::tensor_fp16) != nullptr);
    CHECK(k.find_unmeasured(roofline::resource::tensor_fp16)->missing ==
          std::vector<pooled_string>{"sm__ops_path_tensor_src_fp16.sum"});
}

TEST_CASE(
    "Ada counts FP8 tensor ops in one total: the rate lies between its two accumulate rates, and the share is "
    "bounded") {
    // An RTX 4090-like capture at 2 GHz for 1 ms: FP8 ops of a quarter of the FP16-accumulate path's time.
    const double clk = 2e9, t = 1e-3, scale = clk / 2520e6;
    const double r16 = 660.6e12 * scale, r32 = 330.3e12 * scale, ops = 0.25 * r16 * t;
    std::map<std::string, double> m = {{"gpu__time_duration.sum", 1e6},
                                       {"sm__cycles_elapsed.avg.per_second", clk},
                                       {"sm__ops_path_tensor_src_fp8.sum", ops}};
    const auto& rtx4090 = shipped("rtx-4090");
    REQUIRE(rtx4090.boost_clock_mhz.value == 2520);
    auto k = built(m, rtx4090);
    const resource_use* t8 = k.find(roofline::resource::tensor_fp8);
    REQUIRE(t8);
    CHECK_FALSE(t8->exact());
    // All at FP32 accumulate is the largest share (0.5 of the duration), all at FP16 the smallest (0.25).
    CHECK(t8->useful == doctest::Approx(ops / (r32 * t)));
    CHECK(t8->useful_lo == doctest::Approx(ops / (r16 * t)));
    CHECK(t8->missing.front() == pooled_string("sm__ops_path_tensor_src_fp8_dst_fp16.sum"));
    // No counter of AD10x splits FP8 ops by accumulate type: nothing can narrow it there.
    CHECK(find_metric("sm__ops_path_tensor_src_fp8_dst_fp16.sum")->form_on(find_chip("ad10x")).what ==
          chip_form::kind::none);
}

TEST_CASE(
    "where both accumulate types run at one rate (A100, L4, H100) the fastest path is the roof, and split counts add "
    "up") {
    // An A100-like capture: no per-instruction paths, the FP16-source ops counted per accumulate type.
    const double clk = 1.4e9, t = 1e-3, p = 312e12 / 1410e6;  // the dense FP16 rate, ops per cycle
    std::map<std::string, double> m = {{"gpu__time_duration.sum", 1e6},
                                       {"sm__cycles_elapsed.avg.per_second", clk},
                                       {"sm__ops_path_tensor_src_fp16_dst_fp16.sum", 0.1 * p * clk * t},
                                       {"sm__ops_path_tensor_src_fp16_dst_fp32.sum", 0.6 * p * clk * t},
                                       {"sm__ops_path_tensor_src_fp16_dst_fp16_sparsity_off.sum.peak_sustained", p},
                                       {"sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.sum.peak_sustained", p}};
    auto k = built(m, shipped("a100-sxm4-80gb"));
    const resource_use* t16 = k.find(roofline::resource::tensor_fp16);
    REQUIRE(t16);
    CHECK(t16->utilisation == doctest::Approx(0.7));
    CHECK(t16->peak == doctest::Approx(p * clk));
    CHECK(peak_source_text(t16->peak_from).rfind("measured: sm__ops_path_tensor_src_fp16_dst_fp", 0) == 0);
    for (const auto& w : k.warnings) CHECK(w.kind != roof_warning_kind::peak_differs);
    // The kernel table keeps these counters (the catalogue lists them), or the model would never see them.
    for (const char* id : {"sm__ops_path_tensor_src_fp16_dst_fp16.sum", "sm__ops_path_tensor_src_fp16_dst_fp32.sum",
                           "sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.sum.peak_sustained",
                           "sm__ops_path_tensor_src_fp8_dst_fp32.sum",
                           "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum", "dram__bytes_op_read.sum"}) {
        CAPTURE(id);
        CHECK(engine_reads(id));
    }
}

TEST_CASE("half-precision CUDA-core work on an A100 says what its roof would be for BF16") {
    // HFMA thread instructions at half the peak rate for 1 ms; the FMA pipe ran half-precision work.
    const double clk = 1.41e9;
    std::map<std::string, double> m = {
        {"gpu__time_duration.sum", 1e6},
        {"sm__cycles_elapsed.avg.per_second", clk},
        {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", 0.5 * 128 * 108},
        {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", 0},
        {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", 0},
        // GA100 runs half precision on its FP16 pipe (GA10x and later: the FMA pipe's fp16 type).
        {"sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_elapsed", 50}};
    auto k = built(m, shipped("a100-sxm4-80gb"));
    const resource_use* fp16 = k.find(roofline::resource::fp16);
    REQUIRE(fp16);
    CHECK(fp16->exact());
    CHECK(fp16->peak == doctest::Approx(78e12 * clk / 1410e6));  // FP16's rate: the counters cannot tell BF16 apart
    bool said = false;
    for (const auto& n : k.notes)
        said |= n.kind == roof_note_kind::bf16_rate && n.value == 78 && n.spec_value == 39 &&
                note_text(n).find("BF16 on the CUDA cores at 39") != std::string::npos &&
                note_text(n).find("2x those shown") != std::string::npos;
    CHECK(said);
    // Hopper runs both at one rate: no such note. Without its FMA pipe's fp16 count, the HFMA counts may be
    // HFMA2.MMA moves: the share is bounded, and says what would decide it.
    m.erase("sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_elapsed");
    k = built(m, shipped("h100-sxm"));
    REQUIRE(k.find(roofline::resource::fp16));
    CHECK(k.find(roofline::resource::fp16)->useful_lo == 0.0);
    CHECK(k.find(roofline::resource::fp16)->missing ==
          std::vector<pooled_string>{"sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_elapsed"});
    for (const auto& n : k.notes) CHECK(n.kind != roof_note_kind::bf16_rate);
}

TEST_CASE("FLOPs without a peak in the capture or the spec are left off the roofline, with a warning") {
    // FP8 tensor ops on a T4, whose spec has no FP8 peak (Turing has none), without the capture's peak counters.
    std::map<std::string, double> m = {{"gpu__time_duration.sum", 1e6}, {"sm__ops_path_tensor_src_fp8.sum", 2e9}};
    auto k = build_roofline(metric_view{m, 1}, shipped("t4"));
    CHECK(k.find(roofline::resource::tensor_fp8) == nullptr);
    REQUIRE(k.warnings.size() == 1);
    CHECK(k.warnings[0].kind == roof_warning_kind::no_peak);
    CHECK(k.warnings[0].id == roofline::resource::tensor_fp8);
    CHECK(
        warning_text(k.warnings[0]) ==
        "tensor_fp8: the kernel did 2.00G FLOPs but neither the capture nor the spec gives a peak; it is left off the "
        "roofline");
}
