// What Nsight Compute's own rules state in words on a details page, read back as the counters they name.
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/read/ncu_rule_values.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

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
    // The named pipe's own metric, and the bound the figure puts on every math pipe.
    REQUIRE(alu.size() == 2);
    CHECK(alu[0] == std::pair<std::string, double>{"derived__pipe_highest_pct", 49.8});
    CHECK(alu[1] ==
          std::pair<std::string, double>{"sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed", 49.8});
    const auto tensor = metrics_stated_by(rule("HighPipeUtilization",
                                               "Tensor is the highest-utilized pipeline (82.6%) based on elapsed "
                                               "cycles in the workload, taking into account "
                                               "the rates of its different instructions. It is the logical aggregation "
                                               "of individual tensor pipelines. It's "
                                               "dominated by its Tensor (FP) sub-pipeline."),
                                          "9.0");
    REQUIRE(tensor.size() == 2);
    CHECK(tensor[1].second == 82.6);
    // Not on another generation: its tensor pipe is made of other sub-pipelines.
    const auto other_generation = metrics_stated_by(rule("HighPipeUtilization",
                                                         "Tensor is the highest-utilized pipeline (82.6%). It's "
                                                         "dominated by its Tensor (FP) sub-pipeline."),
                                                    "10.0");
    REQUIRE(other_generation.size() == 1);
    CHECK(other_generation[0].first == "derived__pipe_highest_pct");
    // FMA is not read as its own metric: on half2 code ncu's figure is twice sm__inst_executed_pipe_fma's
    // (examples/h100/kernels). It still bounds the other pipes.
    const auto fma = metrics_stated_by(rule("HighPipeUtilization",
                                            "FMA is the highest-utilized pipeline (83.0%) based on "
                                            "elapsed cycles in the workload."),
                                       "9.0");
    REQUIRE(fma.size() == 1);
    CHECK(fma[0] == std::pair<std::string, double>{"derived__pipe_highest_pct", 83.0});
    // The instruction-based comparison, where ncu writes it.
    const auto compared = metrics_stated_by(
        rule("HighPipeUtilization",
             "FMA is the highest-utilized pipeline (77.0%) based on elapsed cycles in the workload, taking into "
             "account the rates of its different instructions. Based on the number of executed instructions, the "
             "highest utilized pipeline (76.9%) is FMA."),
        "9.0");
    REQUIRE(compared.size() == 2);
    CHECK(compared[1] == std::pair<std::string, double>{"derived__pipe_highest_inst_pct", 76.9});
}

TEST_CASE("the Shared pipe dominated by its Tensor (FP) sub-pipeline gives the MMA cycles on CC 9.0") {
    // Copied from examples/h100/cublas_ref_details.csv (ncu 2025.3.1); the raw page of the same report
    // holds 89.770817 for the MMA cycles.
    const std::string text =
        "Shared is the highest-utilized pipeline (89.8%) based on elapsed cycles in the workload, taking into "
        "account the rates of its different instructions. It is the logical sum of several other pipelines which "
        "can't achieve full utilization on their own. It executes 64-bit floating point and tensor operations. It's "
        "dominated by its Tensor (FP) sub-pipeline.";
    const auto v = metrics_stated_by(rule("HighPipeUtilization", text), "9.0");
    REQUIRE(v.size() == 2);
    CHECK(v[0] == std::pair<std::string, double>{"derived__pipe_highest_pct", 89.8});
    CHECK(v[1] == std::pair<std::string, double>{
                      "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_"
                      "sustained_elapsed",
                      89.8});
    // Where its FP64 sub-pipeline dominates, the figure is not the tensor pipe's (only the bound on every pipe).
    const auto fp64 = metrics_stated_by(rule("HighPipeUtilization",
                                             "Shared is the highest-utilized pipeline (89.8%). It's dominated by its "
                                             "FP64 sub-pipeline."),
                                        "9.0");
    REQUIRE(fp64.size() == 1);
    CHECK(fp64[0].first == "derived__pipe_highest_pct");
}

TEST_CASE("SOLFPRoofline gives the FP32 and FP64 FLOP rates in percent of their peaks") {
    const auto v = metrics_stated_by(
        rule("SOLFPRoofline",
             "The ratio of peak float (FP32) to double (FP64) performance on this device is 2:1. The workload "
             "achieved 67% of this device's FP32 peak performance and 0% of its FP64 peak performance."),
        "9.0");
    REQUIRE(v.size() == 2);
    CHECK(v[0] == std::pair<std::string, double>{"derived__roofline_fp32_flops_pct_of_peak", 67.0});
    CHECK(v[1] == std::pair<std::string, double>{"derived__roofline_fp64_flops_pct_of_peak", 0.0});
    const auto close = metrics_stated_by(
        rule("SOLFPRoofline",
             "The workload achieved  close to 1% of this device's FP32 peak performance and 0% of its FP64 peak "
             "performance."),
        "9.0");
    REQUIRE(close.size() == 2);
    CHECK(close[0].second == 1.0);
    CHECK(metrics_stated_by(rule("SOLFPRoofline",
                                 "The workload achieved some of this device's FP32 peak performance "
                                 "and 0% of its FP64 peak performance."),
                            "9.0")
              .empty());
}

TEST_CASE("on every report with both pages, the stated FLOP rates are the raw page's counters to half a point") {
    std::size_t checked = 0;
    for (const char* p :
         {"examples/h100/kernels", "examples/h100/pairs", "examples/h100/torch_ops", "examples/h100/cublas_ref",
          "examples/h200/kernels", "examples/h200/pairs", "examples/h200/torch_ops", "examples/h200/cublas_ref",
          "examples/h200/forms/kernels_full", "examples/h200/forms/layer_full"}) {
        CAPTURE(p);
        const analysis details = analyze_example(std::string(p) + "_details.csv", keeping_metrics());
        const analysis raw = analyze_example(std::string(p) + "_raw.csv", keeping_metrics());
        for (const auto& k : details.kernels) {
            if (k.group.launches != 1) continue;
            CAPTURE(k.group.name);
            const analysed_kernel* twin = nullptr;
            for (const auto& r : raw.kernels)
                if (r.group.name == k.group.name && r.group.grid_size == k.group.grid_size &&
                    r.group.block_size == k.group.block_size && r.group.launches == 1)
                    twin = &r;
            if (!twin) continue;
            for (const auto& [prec, add, mul, fma] :
                 {std::tuple{"fp32", "fadd", "fmul", "ffma"}, std::tuple{"fp64", "dadd", "dmul", "dfma"}}) {
                const auto stated =
                    k.group.metrics.find(std::string("derived__roofline_") + prec + "_flops_pct_of_peak");
                if (!stated) continue;
                auto rate = [&](const char* op) {
                    return twin->group.metrics.find(std::string("smsp__sass_thread_inst_executed_op_") + op +
                                                    "_pred_on.sum.per_cycle_elapsed");
                };
                const auto peak = twin->group.metrics.find(std::string("sm__sass_thread_inst_executed_op_") + fma +
                                                           "_pred_on.sum.peak_sustained");
                REQUIRE((rate(add) && rate(mul) && rate(fma) && peak));
                const double pct = 100.0 * (*rate(add) + *rate(mul) + 2.0 * *rate(fma)) / (2.0 * *peak);
                CHECK(std::abs(pct - *stated) <= 0.5);
                ++checked;
            }
        }
    }
    CHECK(checked >= 100);
}

TEST_CASE("the busiest pipe a details page states bounds every pipe and precision of the raw page of the same report") {
    std::size_t checked = 0, stated_pages = 0;
    for (const std::string& p : details_raw_reports()) {
        CAPTURE(p);
        const analysis details = analyze_example(p + "_details.csv", keeping_metrics());
        const analysis raw = analyze_example(p + "_raw.csv", keeping_metrics());
        for (const auto& kernel : details.kernels) {
            const auto highest = kernel.group.metrics.find("derived__pipe_highest_pct");
            if (!highest) continue;
            ++stated_pages;
            CAPTURE(kernel.group.name);
            const analysed_kernel* twin = nullptr;
            for (const auto& candidate : raw.kernels)
                if (candidate.group.name == kernel.group.name && candidate.group.grid_size == kernel.group.grid_size &&
                    candidate.group.block_size == kernel.group.block_size &&
                    candidate.group.launches == kernel.group.launches)
                    twin = &candidate;
            if (!twin) continue;
            const auto by_instructions = kernel.group.metrics.find("derived__pipe_highest_inst_pct");
            // 0.1 point: ncu prints the figure to one decimal; a precision's FLOP share against the MMA cycles,
            // half a point (its peak is at the spec's clock ratio). The pipes fed through MIO (LSU, ADU, XU, TEX,
            // TMA) are not in the rule's comparison: on these pages LSU, ADU and XU ran above its figure.
            for (const auto& use : twin->roof.resources) {
                const resource_info& what = info(use.id);
                const bool math_pipe = use.id == resource::pipe_alu || use.id == resource::pipe_fma ||
                                       use.id == resource::pipe_fp64 || use.id == resource::pipe_uniform ||
                                       use.id == resource::pipe_cbu || use.id == resource::pipe_tensor;
                if (!(math_pipe || what.precision)) continue;
                const std::string pipe_name = what.name;
                CAPTURE(pipe_name);
                const double slack = what.precision ? 0.5 : 0.1;
                CHECK(use.utilisation * 100.0 <= *highest + slack);
                if (what.precision) CHECK(use.useful * 100.0 <= *highest + slack);
                if (by_instructions && math_pipe && use.id != resource::pipe_tensor)
                    CHECK(use.utilisation * 100.0 <= *by_instructions + 0.1);
                ++checked;
            }
        }
    }
    MESSAGE(stated_pages << " kernels state their busiest pipe; " << checked << " pipes and precisions checked");
    CHECK(checked >= 500);
}

TEST_CASE("ncu's Mem Pipes Busy bounds the LSU, ADU and TEX pipes on every raw page of examples/") {
    // The bound the model puts on those pipes where a details page lacks them (roofline_model.cpp,
    // bound_unmeasured): sm__memory_throughput is the largest of their shares, never under one.
    std::size_t checked = 0;
    for (const char* capture :
         {"examples/h100/kernels_raw.csv", "examples/h100/pairs_raw.csv", "examples/h100/torch_ops_raw.csv",
          "examples/h200/pairs_raw.csv", "examples/h200/forms/layer_full_raw.csv", "examples/user_level/elem_raw.csv",
          "examples/user_level/sdpa_raw.csv", "examples/heldout/step_raw.csv", "examples/heldout_vision/step_raw.csv",
          "examples/heldout_decode/step_raw.csv", "examples/heldout_moe/step_raw.csv",
          "examples/heldout_unet/step_raw.csv", "examples/heldout_bert/step_raw.csv"}) {
        CAPTURE(capture);
        for (const auto& kernel : analyze_example(capture, keeping_metrics()).kernels) {
            const auto memory_pipes =
                kernel.group.metrics.find("sm__memory_throughput.avg.pct_of_peak_sustained_elapsed");
            if (!memory_pipes) continue;
            CAPTURE(kernel.group.name);
            for (resource pipe : {resource::pipe_lsu, resource::pipe_adu, resource::pipe_tex})
                if (const resource_use* use = kernel.roof.find(pipe)) {
                    CHECK(use->utilisation * 100.0 <= *memory_pipes + 0.1);
                    ++checked;
                }
        }
    }
    CHECK(checked >= 300);
}

TEST_CASE("a details page's stated FP64 rate and the shared FP64/tensor pipe decide fp64-slow-pipe as the raw page") {
    const analysis a = analyze_example("examples/h100/pairs_details.csv", {});
    const analysed_kernel* k = nullptr;
    for (const auto& x : a.kernels)
        if (x.group.name.find("fma_chain<double>") != std::string::npos) k = &x;
    REQUIRE(k != nullptr);
    const resource_use* fp64 = k->roof.find(resource::fp64);
    REQUIRE(fp64 != nullptr);
    CHECK_FALSE(fp64->exact());  // a whole percent: an interval, never a count
    CHECK(fp64->useful_lo == doctest::Approx(0.985));
    CHECK(fp64->useful == doctest::Approx(0.995));
    // The FP64 pipe at 98.8% leaves the tensor cores (DMMA included) at most 1.2% of the shared pipe.
    const unmeasured_resource* dmma = k->roof.find_unmeasured(resource::tensor_fp64);
    REQUIRE(dmma != nullptr);
    CHECK(dmma->hi <= 0.0121);
    REQUIRE_FALSE(k->diagnosis.findings.empty());
    CHECK(k->diagnosis.findings.front().id == "fp64-slow-pipe");
}

TEST_CASE("ncu's 'high-latency instructions' on a Hopper tensor pipe marks the wgmma path") {
    // Copied from examples/h100/cublas_ref_details.csv (ncu 2025.3.1): an nvjet HGMMA kernel.
    const std::string text =
        "Shared is the highest-utilized pipeline (89.8%) based on elapsed cycles in the workload, taking into "
        "account the rates of its different instructions. It is the logical sum of several other pipelines which "
        "can't achieve full utilization on their own. It executes 64-bit floating point and tensor operations. It's "
        "dominated by its Tensor (FP) sub-pipeline. The pipeline is over-utilized and likely a performance "
        "bottleneck. Based on the number of executed instructions, the highest utilized pipeline (10.5%) is Uniform. "
        "Comparing the two, the overall pipeline utilization appears to be caused by high-latency instructions.";
    const auto v = metrics_stated_by(rule("HighPipeUtilization", text), "9.0");
    REQUIRE(v.size() == 4);  // the bounds on every pipe (by cycles, by instructions), the MMA cycles, wgmma
    CHECK(v[1] == std::pair<std::string, double>{"derived__pipe_highest_inst_pct", 10.5});
    CHECK(v[3] == std::pair<std::string, double>{"derived__tensor_pipe_wgmma", 1.0});
    // Not on another generation, where it was not checked: the bounds alone.
    const auto other_generation = metrics_stated_by(rule("HighPipeUtilization", text), "8.0");
    REQUIRE(other_generation.size() == 2);
    CHECK(other_generation[0].first == "derived__pipe_highest_pct");
    CHECK(other_generation[1].first == "derived__pipe_highest_inst_pct");
}

TEST_CASE("on the wgmma path a details page gives the tensor floor the raw page measures") {
    // examples/h100/torch_ops: cuBLAS's bf16 nvjet GEMM. The raw page counts 90.3% of the BF16 peak and
    // calls it near-roof; the details page states only the MMA cycles (90.3%) and the high-latency sentence.
    const analysis details = analyze_example("examples/h100/torch_ops_details.csv", {});
    const analysis raw = analyze_example("examples/h100/torch_ops_raw.csv", {});
    auto nvjet = [](const analysis& a) {
        for (const auto& k : a.kernels)
            if (k.group.name.rfind("nvjet_sm90", 0) == 0) return &k;
        return static_cast<const analysed_kernel*>(nullptr);
    };
    const analysed_kernel* d = nvjet(details);
    const analysed_kernel* r = nvjet(raw);
    REQUIRE(d != nullptr);
    REQUIRE(r != nullptr);
    REQUIRE(d->roof.stated_tensor_floor_ns.has_value());
    CHECK_FALSE(r->roof.stated_tensor_floor_ns.has_value());  // the raw page counts the precision itself
    // The largest practical tensor share (BF16's 0.903) gives the smallest floor the details page proves:
    // here BF16 is the kernel's precision, so the two pages agree.
    CHECK(d->roof.practical_floor_ns == doctest::Approx(r->roof.practical_floor_ns).epsilon(0.01));
    REQUIRE_FALSE(d->diagnosis.findings.empty());
    CHECK(d->diagnosis.findings.front().id == r->diagnosis.findings.front().id);
    CHECK(d->diagnosis.findings.front().id == "near-roof");
}

TEST_CASE("a tensor pipe kept busy by mma.sync is not read as the wgmma path, and does two thirds of the work") {
    // examples/h100/hmma_check: mma.sync alone, 99% MMA cycles. ncu's rule names Tensor (FP) as the top pipe by
    // executed instructions too, and says nothing of high-latency instructions.
    const analysis details = analyze_example("examples/h100/hmma_check/hmma_details.csv", {});
    REQUIRE(details.kernels.size() == 1);
    CHECK_FALSE(details.kernels[0].group.metrics.find("derived__tensor_pipe_wgmma").has_value());
    CHECK_FALSE(details.kernels[0].roof.stated_tensor_floor_ns.has_value());
    const analysis raw = analyze_example("examples/h100/hmma_check/hmma_raw.csv", {});
    REQUIRE(raw.kernels.size() == 1);
    const resource_use* fp16 = raw.kernels[0].roof.find(resource::tensor_fp16);
    const resource_use* pipe = raw.kernels[0].roof.find(resource::pipe_tensor);
    REQUIRE(fp16 != nullptr);
    REQUIRE(pipe != nullptr);
    CHECK(fp16->utilisation / pipe->utilisation == doctest::Approx(2.0 / 3.0).epsilon(0.02));
}

TEST_CASE("a Source Counters rule that is silent where its section ran says there is no excess") {
    const std::set<std::string, std::less<>> with_section = {"GPU Speed Of Light Throughput", "Source Counters"};
    // Some rule spoke for the launch (the rules ran), none of the two.
    const std::vector<ncu_rule> others = {rule("SOLBottleneck", "This workload exhibits low compute throughput.")};
    const auto silent = metrics_of_silent_rules(with_section, others);
    REQUIRE(silent.size() == 2);
    CHECK(silent[0] == std::pair<std::string, double>{"derived__memory_l2_theoretical_sectors_global_excessive", 0.0});
    CHECK(silent[1] == std::pair<std::string, double>{"derived__memory_l1_wavefronts_shared_excessive", 0.0});
    // The rule spoke: its words say how much (metrics_stated_by), silence says nothing more.
    const auto spoke =
        metrics_of_silent_rules(with_section, {rule("UncoalescedGlobalAccess",
                                                    "This kernel has uncoalesced global accesses resulting in a "
                                                    "total of 256 excessive sectors (37% of the total 688 sectors).")});
    REQUIRE(spoke.size() == 1);
    CHECK(spoke[0].first == "derived__memory_l1_wavefronts_shared_excessive");
    // Without the section the rule never ran: nothing is known.
    CHECK(metrics_of_silent_rules({"GPU Speed Of Light Throughput"}, others).empty());
    // Nor where no rule spoke at all (a report profiled with --apply-rules no).
    CHECK(metrics_of_silent_rules(with_section, {}).empty());
}

TEST_CASE("where a details page's Source Counters rules are silent, the raw page of the same report has no excess") {
    std::size_t silent_global = 0, silent_shared = 0;
    for (const std::string& pair : details_raw_reports()) {
        CAPTURE(pair);
        const analysis details = analyze_example(pair + "_details.csv", keeping_metrics());
        const analysis raw = analyze_example(pair + "_raw.csv", keeping_metrics());
        for (const auto& k : details.kernels) {
            CAPTURE(k.group.name);
            auto spoke = [&](const char* name) {
                return std::any_of(k.group.rules.begin(), k.group.rules.end(),
                                   [&](const ncu_rule& r) { return r.name == name; });
            };
            for (const auto& raw_kernel : raw.kernels) {
                if (raw_kernel.group.name != k.group.name || raw_kernel.group.grid_size != k.group.grid_size ||
                    raw_kernel.group.block_size != k.group.block_size)
                    continue;
                for (const auto& [rule_name, metric, count] :
                     {std::tuple{"UncoalescedGlobalAccess", "derived__memory_l2_theoretical_sectors_global_excessive",
                                 &silent_global},
                      std::tuple{"UncoalescedSharedAccess", "derived__memory_l1_wavefronts_shared_excessive",
                                 &silent_shared}}) {
                    const auto inferred = k.group.metrics.find(metric);
                    if (spoke(rule_name) || !inferred) continue;
                    CHECK(*inferred == 0.0);
                    const auto measured = raw_kernel.group.metrics.find(metric);
                    REQUIRE(measured.has_value());
                    CHECK(*measured == 0.0);
                    ++*count;
                }
            }
        }
    }
    MESSAGE(silent_global << " kernels with no global excess and " << silent_shared
                          << " with no shared excess, read from a silent rule");
    CHECK(silent_global >= 150);
    CHECK(silent_shared >= 150);
}

TEST_CASE("a stall reason ncu's CPIStall rule leaves out, where it names others, is under 31% on the raw page") {
    // The bound the rule trees read for an unnamed reason (kernel_facts.cpp, unstated_stall).
    std::size_t checked = 0;
    for (const std::string& pair : details_raw_reports()) {
        CAPTURE(pair);
        const analysis details = analyze_example(pair + "_details.csv", keeping_metrics());
        const analysis raw = analyze_example(pair + "_raw.csv", keeping_metrics());
        for (const auto& k : details.kernels) {
            if (k.group.launches != 1) continue;  // a group of launches states each launch's reasons
            const bool named_some = std::any_of(k.group.rules.begin(), k.group.rules.end(), [](const ncu_rule& r) {
                return r.name == "CPIStall" && r.description.find("being stalled waiting") != std::string::npos;
            });
            if (!named_some) continue;
            CAPTURE(k.group.name);
            for (const auto& twin : raw.kernels) {
                if (twin.group.name != k.group.name || twin.group.grid_size != k.group.grid_size ||
                    twin.group.block_size != k.group.block_size || twin.group.launches != 1)
                    continue;
                const auto total = twin.group.metrics.find("smsp__average_warp_latency_per_inst_issued.ratio");
                REQUIRE(total.has_value());
                for (const std::string& id : diagnose::catch_all_metrics()) {
                    if (id.find("_issue_stalled_") == std::string::npos) continue;  // the total, not a reason
                    if (k.group.metrics.find(id)) continue;                         // named: its cycles are stated
                    const auto cycles = twin.group.metrics.find(id);
                    if (!cycles) continue;
                    CAPTURE(id);
                    CHECK(*cycles < 0.31 * *total);
                    ++checked;
                }
            }
        }
    }
    MESSAGE(checked << " unnamed stall reasons checked");
    CHECK(checked >= 1000);
}
