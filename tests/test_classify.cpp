#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"
#include "models/classify.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace roofline;
using namespace roofline::test;

namespace {
kernel_roofline roof(double duration_ns, std::vector<std::pair<std::string, double>> uses) {
    kernel_roofline k;
    k.placed = true;
    k.duration_ns = duration_ns;
    for (auto& [id, u] : uses) {
        resource_use r;
        r.id = resource_named(id).value();
        r.utilisation = u;
        k.resources.push_back(r);
        if (u * 100 > k.pct_of_roof) {
            k.pct_of_roof = u * 100;
            k.binding = r.id;
        }
    }
    return k;
}
launch_shape big_grid() { return launch_shape{10000, 10, 132, 1}; }
}  // namespace

TEST_CASE("60% of a roof is the line between throughput-bound and the rest") {
    CHECK(classify(roof(1e6, {{"dram", 0.60}, {"sm", 0.1}}), big_grid()).bound == roofline::bound::memory);
    CHECK(classify(roof(1e6, {{"dram", 0.599}, {"sm", 0.1}}), big_grid()).bound == roofline::bound::latency);
}

TEST_CASE("memory against compute: the higher utilisation wins, memory on a tie") {
    auto c = classify(roof(1e6, {{"dram", 0.5}, {"l2", 0.75}, {"sm", 0.74}}), big_grid());
    CHECK(c.bound == roofline::bound::memory);
    CHECK(c.limiter == roofline::resource::l2);
    CHECK(classify(roof(1e6, {{"dram", 0.7}, {"sm", 0.71}}), big_grid()).bound == roofline::bound::compute);
    CHECK(classify(roof(1e6, {{"dram", 0.7}, {"sm", 0.7}}), big_grid()).bound == roofline::bound::memory);
}

TEST_CASE("DRAM is named over a busier L2 when it carries at least 90% of L2's load") {
    CHECK(classify(roof(1e6, {{"dram", 0.67}, {"l2", 0.75}}), big_grid()).limiter == roofline::resource::l2);  // 0.893
    CHECK(classify(roof(1e6, {{"dram", 0.68}, {"l2", 0.75}}), big_grid()).limiter ==
          roofline::resource::dram);  // 0.907
    CHECK(classify(roof(1e6, {{"dram", 0.68}, {"l2", 0.70}, {"l1", 0.75}}), big_grid()).limiter ==
          roofline::resource::dram);
    CHECK(classify(roof(1e6, {{"dram", 0.10}, {"l2", 0.70}, {"l1", 0.75}}), big_grid()).limiter ==
          roofline::resource::l2);
}

TEST_CASE("the compute limiter is the precision or pipe that explains 80% of the SM's load") {
    CHECK(classify(roof(1e6, {{"sm", 0.93}, {"fp32", 0.85}, {"pipe_fma", 0.85}}), big_grid()).limiter ==
          roofline::resource::fp32);
    CHECK(classify(roof(1e6, {{"sm", 0.93}, {"fp32", 0.70}, {"pipe_alu", 0.80}}), big_grid()).limiter ==
          roofline::resource::pipe_alu);
    CHECK(classify(roof(1e6, {{"sm", 0.93}, {"fp32", 0.70}, {"pipe_alu", 0.70}}), big_grid()).limiter ==
          roofline::resource::sm);
}

TEST_CASE("below every roof: launch under 5 us per launch, then small grid, then latency") {
    CHECK(classify(roof(4999, {{"l1", 0.2}}), big_grid()).bound == roofline::bound::launch);
    CHECK(classify(roof(5000, {{"l1", 0.2}}), big_grid()).bound == roofline::bound::latency);
    // 8 launches of 2.9 us each: launch-bound although the total is 23 us.
    CHECK(classify(roof(23000, {{"l1", 0.2}}), launch_shape{4, 0.03, 132, 8}).bound == roofline::bound::launch);
    CHECK(classify(roof(1e6, {{"l1", 0.2}}), launch_shape{131, 0.99, 132, 1}).bound == roofline::bound::small_grid);
    // Under one wave with a block on every SM: no SM is idle, only fewer warps are resident (latency).
    CHECK(classify(roof(1e6, {{"l1", 0.2}}), launch_shape{132, 0.5, 132, 1}).bound == roofline::bound::latency);
    CHECK(classify(roof(1e6, {{"l1", 0.2}}), launch_shape{2048, 0.97, 132, 1}).bound == roofline::bound::latency);
    CHECK(classify(roof(1e6, {{"l1", 0.2}}), launch_shape{132, 1.0, 132, 1}).bound == roofline::bound::latency);
}

TEST_CASE("the real H100 capture: each kernel gets the bound it was written to show") {
    auto a = analyze_example("examples/h100/kernels_raw.csv");
    auto verdict = [&](const char* name) { return verdict_text(kernel_named(a, name).verdict); };
    CHECK(verdict("copy_vec4") == "memory / dram");
    CHECK(verdict("transpose_smem") == "memory / dram");
    CHECK(verdict("transpose_naive") == "memory / l2");
    CHECK(verdict("fma_chain<float>") == "compute / fp32");
    CHECK(verdict("fma_chain<double>") == "compute / fp64");
    CHECK(verdict("fma_chain<__half2>") == "compute / fp16");
    CHECK(verdict("copy_few_blocks") == "small_grid");
    CHECK(verdict("tiny_add") == "launch");
}

TEST_CASE(
    "raw and details exports of one capture: the same verdict where the details page decides it, else it says what it "
    "lacks") {
    std::size_t decided = 0;
    for (const char* base : {"examples/h100/kernels", "examples/h100/torch_ops"}) {
        auto raw = analyze_example(std::string(base) + "_raw.csv");
        auto det = analyze_example(std::string(base) + "_details.csv");
        REQUIRE(raw.kernels.size() == det.kernels.size());
        CHECK(raw.gpu.id == det.gpu.id);
        for (std::size_t i = 0; i < raw.kernels.size(); ++i) {
            const auto& r = raw.kernels[i].verdict;
            const auto& d = det.kernels[i].verdict;
            CAPTURE(raw.kernels[i].group.name);
            CHECK(raw.kernels[i].group.name == det.kernels[i].group.name);
            CHECK(r.decided());  // the raw page of --set full holds every counter the verdict reads
            // The raw page's verdict is always among what the details page leaves possible.
            CHECK(std::find(d.possible_bounds.begin(), d.possible_bounds.end(), r.bound) != d.possible_bounds.end());
            if (r.limiter && !d.possible_limiters.empty())
                CHECK(std::find(d.possible_limiters.begin(), d.possible_limiters.end(), *r.limiter) !=
                      d.possible_limiters.end());
            if (d.possible_bounds.size() == 1) {
                ++decided;
                CHECK(r.bound == d.bound);
                // Memory limiters are measured the same way in both.
                if (r.bound == roofline::bound::memory) CHECK(r.limiter == d.limiter);
            } else {
                CHECK_FALSE(d.missing.empty());  // an open verdict names what would close it
            }
        }
    }
    CHECK(decided >= 8);
}

TEST_CASE("the real H200 capture: same kernels, same bounds as on the H100") {
    auto raw = analyze_example("examples/h200/kernels_raw.csv");
    auto det = analyze_example("examples/h200/kernels_details.csv");
    CHECK(raw.gpu.id == "h200");
    CHECK(det.gpu.id == "h200");  // no device name on the details page: told apart by the DRAM clock
    CHECK(det.gpu_how.how == gpu_match_reason::kind::cc_sms_dram_clock);
    CHECK(gpu_match_text(det.gpu_how).find("DRAM clock") != std::string::npos);
    auto bound = [&](const analysis& a, const char* kernel) {
        return std::string(name(kernel_named(a, kernel).verdict.bound));
    };
    for (const auto* a : {&raw, &det}) {
        CHECK(bound(*a, "copy_vec4") == "memory");
        CHECK(bound(*a, "transpose_smem") == "memory");
        CHECK(bound(*a, "transpose_naive") == "memory");
        CHECK(bound(*a, "fma_chain<float>") == "compute");
        CHECK(bound(*a, "copy_few_blocks") == "small_grid");
        CHECK(bound(*a, "tiny_add") == "launch");
    }
    CHECK(verdict_text(kernel_named(raw, "fma_chain<double>").verdict) == "compute / fp64");
    // The H200's measured DRAM peak agrees with its 4.8 TB/s datasheet figure: no warning.
    const auto* dram = kernel_named(raw, "copy_vec4").roof.find(roofline::resource::dram);
    REQUIRE(dram);
    CHECK(dram->peak == doctest::Approx(4.8e12).epsilon(0.01));
    CHECK(kernel_named(raw, "copy_vec4").roof.warnings.empty());
}

TEST_CASE("the resource and bound vocabulary: one table, names round-trip, precisions are what specs list") {
    for (const auto& r : all_resources()) {
        CAPTURE(r.name);
        CHECK(&info(r.id) == &r);  // the table is in enum order
        CHECK(resource_named(r.name) == r.id);
        CHECK(r.precision == (r.work_unit == std::string("FLOP") || r.work_unit == std::string("OP")));
        if (r.tensor) CHECK(r.precision);
    }
    CHECK_FALSE(resource_named("l3").has_value());
    CHECK(precisions().size() == 10);
    for (bound b : all_bounds()) CHECK(bound_named(name(b)) == b);
    CHECK(verdict_text(classification{bound::memory, resource::dram, {}}) == "memory / dram");
    CHECK(verdict_text(classification{bound::memory, resource::dram, {}}, "/") == "memory/dram");
    CHECK(verdict_text(classification{bound::latency, std::nullopt, {}}) == "latency");
}
