#include "analyzer/read/ncu_rule_values.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <string_view>

namespace roofline {
namespace {

// ncu's words for each stall reason in its CPIStall rule (Nsight Compute 2025.3; checked on the
// details pages of examples/), and the reason's metric.
constexpr std::array<std::pair<std::string_view, std::string_view>, 16> stall_words = {{
    {"a scoreboard dependency on a L1TEX", "long_scoreboard"},
    {"a scoreboard dependency on a MIO", "short_scoreboard"},
    {"the micro scheduler to select the warp", "not_selected"},
    {"the L1 instruction queue for local and global (LG)", "lg_throttle"},
    {"the execution pipe to be available", "math_pipe_throttle"},
    {"sibling warps at a CTA barrier", "barrier"},
    {"the MIO (memory input/output) instruction queue", "mio_throttle"},
    {"to be selected to fetch an instruction", "no_instruction"},
    {"an immediate constant cache (IMC) miss", "imc_miss"},
    {"a fixed latency execution dependency", "wait"},
    {"a memory barrier", "membar"},
    {"a branch target", "branch_resolving"},
    {"the dispatcher", "dispatch_stall"},
    {"all memory instructions to complete", "drain"},
    {"the TEX pipe", "tex_throttle"},
    {"GMMA", "gmma"},
}};

// The number right after `after`: "58720256" in "a total of 58720256 excessive".
std::optional<double> number_after(std::string_view text, std::string_view after) {
    const auto at = text.find(after);
    if (at == std::string_view::npos) return std::nullopt;
    const char* start = text.data() + at + after.size();
    double value = 0.0;
    const auto parsed = std::from_chars(start, text.data() + text.size(), value);
    if (parsed.ec != std::errc()) return std::nullopt;
    return value;
}

}  // namespace

std::vector<std::pair<std::string, double>> metrics_stated_by(const ncu_rule& rule, std::string_view cc) {
    std::vector<std::pair<std::string, double>> out;
    const std::string_view description = rule.description;
    if (rule.name == "CPIStall") {
        const auto cycles = number_after(description, "spends ");
        const auto waiting = description.find("being stalled waiting ");
        if (!cycles || waiting == std::string_view::npos) return out;
        for (const auto& [words, reason] : stall_words)
            if (description.find(words, waiting) != std::string_view::npos) {
                out.emplace_back("smsp__average_warps_issue_stalled_" + std::string(reason) + "_per_issue_active.ratio",
                                 *cycles);
                break;
            }
    } else if (rule.name == "HighPipeUtilization") {
        // "<pipe> is the highest-utilized pipeline (p%) based on elapsed cycles": no pipe is busier, so p bounds
        // every pipe's share, whichever it names; "Based on the number of executed instructions, the highest
        // utilized pipeline (q%) is <pipe>" bounds every pipe's instruction-based share the same way.
        if (const auto at = description.find(" is the highest-utilized pipeline ("); at != std::string_view::npos)
            if (const auto pct = number_after(description.substr(at), " is the highest-utilized pipeline ("))
                out.emplace_back("derived__pipe_highest_pct", *pct);
        if (const auto pct = number_after(description, "the highest utilized pipeline ("))
            out.emplace_back("derived__pipe_highest_inst_pct", *pct);
        // "ALU is the highest-utilized pipeline (49.8%) based on elapsed cycles": the pipe's share of its peak
        // issue rate over the elapsed cycles. Only the pipes whose value was checked against the raw page of
        // the same report (examples/h100 and h200 kernels and pairs, user_level gemm: equal to 0.1 point):
        // ALU and FP64 are sm__inst_executed_pipe_<pipe>; Tensor, where its FP (HMMA/HGMMA) sub-pipeline
        // dominates, is the tensor pipe's active cycles. FMA is not: on half2 code ncu's figure is twice
        // sm__inst_executed_pipe_fma's.
        for (const auto& [pipe, metric] : std::array<std::pair<std::string_view, std::string_view>, 2>{
                 {{"ALU", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed"},
                  {"FP64", "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed"}}})
            if (description.rfind(std::string(pipe) + " is the highest-utilized pipeline (", 0) == 0)
                if (const auto pct =
                        number_after(description, std::string(pipe) + " is the highest-utilized pipeline ("))
                    out.emplace_back(metric, *pct);
        // The tensor pipe's sub-pipelines differ by generation: read where it was checked, CC 9.0 (H100, H200).
        // ncu names it "Tensor", or "Shared" (the pipe FP64 and tensor work share on GH100) where that is
        // busier; either way, where its Tensor (FP) sub-pipeline dominates, the figure equalled the MMA
        // cycles of the raw page on all 20 kernels of examples/ that state it (to 0.05 point).
        if (cc == "9.0" && description.find("dominated by its Tensor (FP) sub-pipeline") != std::string_view::npos)
            for (std::string_view pipe :
                 {"Tensor is the highest-utilized pipeline (", "Shared is the highest-utilized pipeline ("})
                if (description.rfind(pipe, 0) == 0)
                    if (const auto pct = number_after(description, pipe)) {
                        out.emplace_back(
                            "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_"
                            "peak_sustained_elapsed",
                            *pct);
                        // "Comparing the two, the overall pipeline utilization appears to be caused by high-latency
                        // instructions": the tensor pipe is busy for many more cycles than its instruction count
                        // over the highest pipe's issue rate allows, so each MMA instruction holds it for many
                        // cycles, which is warpgroup MMA (one HGMMA is a 64 x N x 16 product; one HMMA of mma.sync
                        // a 16 x 8 x 16). On examples/, every kernel whose rule says so ran HGMMA on its raw page
                        // (sm__inst_executed_pipe_tensor_op_gmma above 0: nvjet, sm90_xmma, wgmma_tma), and no
                        // mma.sync kernel's rule does (wmma_staged, pytorch_flash's flash_fwd_kernel).
                        if (description.find("caused by high-latency instructions") != std::string_view::npos)
                            out.emplace_back("derived__tensor_pipe_wgmma", 1.0);
                    }
    } else if (rule.name == "SOLFPRoofline") {
        // "The workload achieved 67% of this device's FP32 peak performance and 0% of its FP64 peak
        // performance" ("close to 0%" where it is not zero): ncu's roofline chart's FLOP rates, (FADD + FMUL +
        // 2 x FFMA) and the same in FP64, over twice the FFMA (DFMA) peak, rounded to a whole percent.
        // Checked against the raw page's counters on every kernel of examples/ that has both: within 0.5 point.
        static constexpr std::string_view fp32 = "% of this device's FP32 peak", fp64 = "% of its FP64 peak";
        const auto achieved = description.find("achieved ");
        const auto f32 = description.find(fp32), f64 = description.find(fp64);
        if (achieved != std::string_view::npos && f32 != std::string_view::npos && f64 != std::string_view::npos) {
            const auto pct_before = [&](std::size_t end) -> std::optional<double> {
                std::size_t start = end;
                while (start > 0 && (std::isdigit(static_cast<unsigned char>(description[start - 1])) ||
                                     description[start - 1] == '.'))
                    --start;
                double value = 0.0;
                const auto parsed = std::from_chars(description.data() + start, description.data() + end, value);
                if (start == end || parsed.ec != std::errc() || parsed.ptr != description.data() + end)
                    return std::nullopt;
                return value;
            };
            const auto p32 = pct_before(f32), p64 = pct_before(f64);
            if (p32 && p64) {
                out.emplace_back("derived__roofline_fp32_flops_pct_of_peak", *p32);
                out.emplace_back("derived__roofline_fp64_flops_pct_of_peak", *p64);
            }
        }
    } else if (rule.name == "SharedMemoryConflicts") {
        // "This results in N bank conflicts,  which represent P% of the overall W wavefronts for shared loads."
        const auto conflicts = number_after(description, "This results in ");
        const auto wavefronts = number_after(description, "% of the overall ");
        if (conflicts && wavefronts && description.find("wavefronts for shared loads") != std::string_view::npos) {
            out.emplace_back("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", *conflicts);
            out.emplace_back("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", *wavefronts);
        }
    } else if (rule.name == "UncoalescedGlobalAccess") {
        if (const auto excessive = number_after(description, "resulting in a total of "))
            out.emplace_back("derived__memory_l2_theoretical_sectors_global_excessive", *excessive);
    }
    return out;
}

std::optional<stated_sectors> uncoalesced_sectors_stated(const std::vector<ncu_rule>& rules) {
    for (const auto& rule : rules) {
        if (rule.name != "UncoalescedGlobalAccess") continue;
        const auto excessive = number_after(rule.description, "resulting in a total of ");
        const auto total = number_after(rule.description, "% of the total ");
        if (excessive && total && *total > 0) return stated_sectors{*excessive, *total};
    }
    return std::nullopt;
}

std::vector<std::pair<std::string, double>> metrics_of_silent_rules(const std::set<std::string, std::less<>>& sections,
                                                                    const std::vector<ncu_rule>& rules) {
    // ncu's Source Counters rules state the excess of uncoalesced accesses whenever there is any: on the
    // details/raw pairs of examples/ (Nsight Compute 2025.3, H100 and H200) UncoalescedGlobalAccess spoke
    // on all 68 kernels with excess global sectors, down to 1.7% of them, and was silent on 214 kernels, every
    // one with none on the raw page; UncoalescedSharedAccess spoke on all 21 with excess shared wavefronts
    // (down to 3.7%) and was silent on 276, all with none. Public reports show it speaking at 0.4% ("0% of
    // the total"). Where the section ran and the rule is silent, the excess is zero.
    struct silent_rule {
        std::string_view section, rule, metric;
    };
    static constexpr std::array<silent_rule, 2> silent = {{
        {"Source Counters", "UncoalescedGlobalAccess", "derived__memory_l2_theoretical_sectors_global_excessive"},
        {"Source Counters", "UncoalescedSharedAccess", "derived__memory_l1_wavefronts_shared_excessive"},
    }};
    std::vector<std::pair<std::string, double>> out;
    // Silence means "nothing to say" only where the rules ran: a launch no rule spoke for at all (a report
    // profiled with --apply-rules no; every launch of examples/' 671 details-page launches has some) says nothing.
    if (rules.empty()) return out;
    for (const silent_rule& entry : silent) {
        if (!sections.count(entry.section)) continue;
        if (std::any_of(rules.begin(), rules.end(), [&entry](const ncu_rule& rule) { return rule.name == entry.rule; }))
            continue;
        out.emplace_back(std::string(entry.metric), 0.0);
    }
    return out;
}

}  // namespace roofline
