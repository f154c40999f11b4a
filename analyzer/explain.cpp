#include "explain.hpp"

#include "input_error.hpp"
#include "rules/kernel_facts.hpp"

#include <functional>
#include <sstream>

namespace roofline {
namespace {

// The ncu metrics models/roofline_model reads, with what it does with each.
struct metric_doc {
    const char* id;
    const char* unit;
    const char* use;
};

constexpr metric_doc model_metrics[] = {
    {"gpu__time_duration.sum", "ns", "the kernel's duration; every utilisation is a share of it"},
    {"sm__cycles_elapsed.avg.per_second", "hz", "the SM clock the capture ran at; compute peaks are per-cycle peaks times this clock"},
    {"dram__cycles_elapsed.avg.per_second", "hz", "the DRAM clock; the DRAM peak is dram__bytes.sum.peak_sustained times this clock"},
    {"dram__bytes_read.sum", "byte", "DRAM work: read plus written bytes over (peak x duration) is the DRAM utilisation"},
    {"dram__bytes_write.sum", "byte", "DRAM work, with dram__bytes_read.sum"},
    {"dram__bytes.sum.peak_sustained", "byte/cycle", "the measured DRAM peak per DRAM cycle (1,280 on the H100 = 3.35 TB/s at 2.618 GHz)"},
    {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", "inst/cycle", "FP32 work: FMA counts 2 FLOPs (FADD and FMUL 1)"},
    {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", "inst/cycle", "FP64 work: DFMA counts 2 FLOPs (DADD and DMUL 1)"},
    {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", "inst/cycle", "FP16 work: HFMA counts 4 FLOPs (packed half2), HADD and HMUL 2, as ncu's charts do"},
    {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "inst/cycle", "the FP32 peak: 2 FLOPs x this x the SM clock"},
    {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", "inst/cycle", "the FP64 peak: 2 FLOPs x this x the SM clock"},
    {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", "inst/cycle", "the FP16 peak: 4 FLOPs x this x the SM clock"},
    {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "ops", "tensor work with BF16 sources; ops are FLOPs (a 4096^3 GEMM counts 2 x 4096^3); other src_* counters likewise"},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "the SM's speed of light (its busiest sub-unit): the `sm` resource"},
    {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "%", "L2's speed of light: the `l2` resource"},
    {"l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "%", "L1's speed of light over elapsed cycles of every SM: the `l1` resource"},
    {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%", "DRAM utilisation where the export has no byte counts (the details page's DRAM Throughput)"},
    {"launch__grid_size", "block", "blocks in the grid: fewer than SMs makes a kernel small_grid when nothing is near a roof"},
    {"launch__waves_per_multiprocessor", "", "waves the grid fills: under one makes a kernel small_grid when nothing is near a roof"},
};

// Warp stall reasons (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio).
struct stall_doc {
    const char* reason;
    const char* meaning;
};

constexpr stall_doc stalls[] = {
    {"barrier", "waiting at a __syncthreads for the other warps of the block"},
    {"branch_resolving", "waiting for a branch target to be computed"},
    {"dispatch_stall", "the dispatcher could not issue the selected instruction"},
    {"drain", "waiting at exit for memory stores to drain"},
    {"gmma", "waiting for warpgroup MMA (wgmma) resources"},
    {"imc_miss", "waiting for an immediate-constant cache miss"},
    {"lg_throttle", "the local/global memory queue is full: too many memory instructions in flight"},
    {"long_scoreboard", "waiting for the result of a global, local or texture memory access"},
    {"math_pipe_throttle", "the math pipe the instruction needs is busy"},
    {"membar", "waiting at a memory barrier"},
    {"mio_throttle", "the memory input/output queue is full: shared memory, special functions, or bank-conflict replays"},
    {"misc", "other reasons"},
    {"no_instruction", "no instruction fetched yet (instruction cache miss, or after a branch)"},
    {"not_selected", "ready, but the scheduler picked another warp: not a problem in itself"},
    {"selected", "issuing: the warp was picked this cycle"},
    {"short_scoreboard", "waiting for the result of a shared-memory access or a special function"},
    {"sleeping", "the warp is sleeping (nanosleep or a yield)"},
    {"tex_throttle", "the texture queue is full"},
    {"wait", "a fixed-latency dependency between instructions"},
};

std::string finding_text(const rules::rule_tree& t, const rules::rule_node& n) {
    std::ostringstream o;
    o << "# Finding `" << n.finding << "`\n\n" << n.title << ". " << n.explain << "\n\n";
    o << "- Tree: `" << t.id << "` (" << t.file << "), node `" << n.id << "`\n";
    o << "- Fires when: `" << n.when.text() << "`\n";
    for (const auto& e : n.evidence) o << "- Shows: `" << e.text() << "`\n";
    if (n.fixed_time) o << "- Time once fixed (the estimate): `" << n.fixed_time->text() << "` ns\n";
    for (const auto& f : n.fixes) o << "- Fix" << (f.when ? " (when `" + f.when->text() + "`)" : std::string()) << ": " << f.text << "\n";
    return o.str();
}

}  // namespace

std::optional<std::string> explain(const std::string& name, const std::vector<rules::rule_tree>& trees) {
    std::optional<std::string> found;
    std::function<void(const rules::rule_tree&, const rules::rule_node&)> visit = [&](const rules::rule_tree& t, const rules::rule_node& n) {
        if (!found && (n.finding == name || n.id == name) && !n.finding.empty()) found = finding_text(t, n);
        for (const auto& c : n.children) visit(t, c);
    };
    for (const auto& t : trees)
        for (const auto& r : t.roots) visit(t, r);
    if (found) return found;
    if (name == "fusion-candidate")
        return "# Finding `fusion-candidate`\n\nConsecutive DRAM-bound kernels pass a buffer through DRAM. Found across kernels, not by a "
               "tree (analyzer/rules/fusion.cpp): launches in a row on the same grid and block, each bound by DRAM, where each reads "
               "from DRAM within 25% of the bytes the one before wrote.\n\n"
               "- Time once fixed (the estimate): (DRAM bytes of the run - 2 x the bytes passed between them) / (peak_dram x "
               "practical_dram), for the whole run\n"
               "- Fix: fuse the run into one kernel that reads once, applies every step in registers, and writes once\n"
               "- Caveat: counters cannot tell that the next kernel reads this one's output; the source can\n";
    for (const auto& m : model_metrics)
        if (name == m.id)
            return "# Metric `" + name + "`" + (std::string(m.unit).empty() ? "" : " (" + std::string(m.unit) + ")") + "\n\n" + m.use + "\n";
    for (const auto& s : stalls)
        if (name == s.reason || name == "stall_" + std::string(s.reason))
            return "# Stall reason `" + std::string(s.reason) + "`\n\nThe warp is " + s.meaning +
                   ".\n\nMetric: `smsp__average_warps_issue_stalled_" + s.reason +
                   "_per_issue_active.ratio` (cycles a warp spends in this state per issued instruction; divide by "
                   "`smsp__average_warp_latency_per_inst_issued.ratio` for its share of all waiting).\n";
    for (const auto& [fact, doc] : rules::derived_fact_docs())
        if (fact == name || (fact.find('<') != std::string::npos && name.rfind(fact.substr(0, fact.find('<')), 0) == 0 &&
                             rules::fact_type(name)))
            return "# Derived value `" + name + "`\n\n" + doc + " (rules can read it; see rules/README.md).\n";
    for (int c = int(error_code::io); c <= int(error_code::usage); ++c)
        if (name == error_code_name(error_code(c)))
            return "# Error `" + name + "`\n\n" + std::string(error_code_summary(error_code(c))) + ". Exit code 2; no output file is written.\n";
    return std::nullopt;
}

}  // namespace roofline
