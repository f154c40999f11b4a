// What Nsight Compute's own rules state in words on a details page, read back as the counters they name.
#include "analyzer/read/ncu_rule_values.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace roofline;
using namespace roofline::test;

namespace {

ncu_rule rule(const std::string& name, const std::string& text) {
    ncu_rule r;
    r.name = name;
    r.description = text;
    return r;
}

}  // namespace

TEST_CASE("a CPIStall rule gives its stall reason's cycles per issued instruction, under the reason's metric") {
    // Copied from examples/h100/kernels_details.csv (ncu 2025.3.1).
    const auto v = metrics_stated_by(
        rule(
            "CPIStall",
            "On average, each warp of this workload spends 306.6 cycles being stalled waiting for a scoreboard "
            "dependency "
            "on a L1TEX (local, global, surface, texture) operation. Find the instruction producing the data being "
            "waited "
            "upon to identify the culprit. This stall type represents about 97.6% of the total average of 314.3 cycles "
            "between issuing two instructions."),
        "9.0");
    REQUIRE(v.size() == 1);
    CHECK(v[0].first == "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
    CHECK(v[0].second == doctest::Approx(306.6));
    const auto barrier = metrics_stated_by(
        rule("CPIStall",
             "On average, each warp of this workload spends 12.5 cycles being stalled waiting for sibling warps "
             "at a CTA barrier. A high number of warps waiting at a barrier is commonly caused by diverging "
             "code paths before a barrier."),
        "9.0");
    REQUIRE(barrier.size() == 1);
    CHECK(barrier[0].first == "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio");
    // A reason the table does not know states nothing.
    CHECK(metrics_stated_by(rule("CPIStall",
                                 "On average, each warp of this workload spends 3.0 cycles being stalled "
                                 "waiting for something new."),
                            "9.0")
              .empty());
}

TEST_CASE("SharedMemoryConflicts and UncoalescedGlobalAccess give their counts") {
    const auto conflicts = metrics_stated_by(
        rule("SharedMemoryConflicts",
             "The memory access pattern for shared loads might not be optimal and causes on average a 32.3 - way bank "
             "conflict across all 2097152 shared load requests.This results in 65596758 bank conflicts,  which "
             "represent 96.90% of the overall 67693910 wavefronts for shared loads."),
        "9.0");
    REQUIRE(conflicts.size() == 2);
    CHECK(conflicts[0] ==
          std::pair<std::string, double>{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 65596758.0});
    CHECK(conflicts[1] ==
          std::pair<std::string, double>{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 67693910.0});
    const std::vector<ncu_rule> rules = {
        rule("UncoalescedGlobalAccess",
             "This kernel has uncoalesced global accesses resulting in a total of 58720256 excessive sectors (78% of "
             "the total 75497472 sectors). Check the L2 Theoretical Sectors Global Excessive table.")};
    const auto sectors = uncoalesced_sectors_stated(rules);
    REQUIRE(sectors.has_value());
    CHECK(sectors->excessive == 58720256.0);
    CHECK(sectors->total == 75497472.0);
    CHECK_FALSE(uncoalesced_sectors_stated({rule("UncoalescedGlobalAccess", "no numbers here")}).has_value());
}

TEST_CASE("on a real details page, the stated stall reaches the rule trees as its metric") {
    const analysis a = analyze_example("examples/h100/kernels_details.csv", keeping_metrics());
    std::size_t stated = 0;
    for (const auto& k : a.kernels) {
        if (k.group.launches != 1) continue;  // over several launches the kernel's value is their weighted mean
        for (const auto& r : k.group.rules)
            for (const auto& [metric, value] : metrics_stated_by(r, k.group.cc)) {
                CAPTURE(metric);
                const auto got = k.group.metrics.find(metric);
                REQUIRE(got.has_value());
                CHECK(*got == doctest::Approx(value));
                ++stated;
            }
    }
    CHECK(stated > 0);
}

TEST_CASE("HighPipeUtilization gives the top pipe's share where it was checked against the raw page") {
    const auto alu =
        metrics_stated_by(rule("HighPipeUtilization",
                               "ALU is the highest-utilized pipeline (49.8%) based on elapsed cycles in the workload, "
                               "taking into account the rates of its different instructions."),
                          "9.0");
    REQUIRE(alu.size() == 1);
    CHECK(alu[0] ==
          std::pair<std::string, double>{"sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed", 49.8});
    const auto tensor = metrics_stated_by(rule("HighPipeUtilization",
                                               "Tensor is the highest-utilized pipeline (82.6%) based on elapsed "
                                               "cycles in the workload, taking into account "
                                               "the rates of its different instructions. It is the logical aggregation "
                                               "of individual tensor pipelines. It's "
                                               "dominated by its Tensor (FP) sub-pipeline."),
                                          "9.0");
    REQUIRE(tensor.size() == 1);
    CHECK(tensor[0].second == 82.6);
    // Not on another generation: its tensor pipe is made of other sub-pipelines.
    CHECK(metrics_stated_by(rule("HighPipeUtilization",
                                 "Tensor is the highest-utilized pipeline (82.6%). It's "
                                 "dominated by its Tensor (FP) sub-pipeline."),
                            "10.0")
              .empty());
    // FMA is not read: on half2 code ncu's figure is twice sm__inst_executed_pipe_fma's (examples/h100/kernels).
    CHECK(metrics_stated_by(rule("HighPipeUtilization",
                                 "FMA is the highest-utilized pipeline (83.0%) based on "
                                 "elapsed cycles in the workload."),
                            "9.0")
              .empty());
}
