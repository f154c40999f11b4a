#include "models/roofline_model.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

const resource_use* kernel_roofline::find(resource id) const {
    for (const auto& r : resources)
        if (r.id == id) return &r;
    return nullptr;
}

std::optional<double> kernel_roofline::intensity(resource level) const {
    const std::optional<double>& b = level == resource::dram ? bytes_dram : level == resource::l2 ? bytes_l2 : bytes_l1;
    if (!b || *b <= 0 || !flops_counted) return std::nullopt;
    return flops / *b;
}

namespace {

// A peak from the spec, scaled from the clock it holds at to the clock the capture ran at.
struct spec_peak {
    double per_second = 0;
    std::string source;
};

std::optional<spec_peak> scaled_spec_peak(const gpu_spec& spec, resource precision, double sm_clock_hz) {
    auto it = spec.peaks_tflops.find(precision);
    if (it == spec.peaks_tflops.end() || !it->second.value) return std::nullopt;
    double at_mhz = it->second.at_clock_mhz.value_or(spec.boost_clock_mhz.value);
    double scale = sm_clock_hz > 0 ? sm_clock_hz / (at_mhz * 1e6) : 1.0;
    spec_peak p;
    p.per_second = *it->second.value * 1e12 * scale;
    p.source = "spec " + spec.file + ": " + general(*it->second.value, 6) + " TFLOP/s at " + general(at_mhz, 6) +
               " MHz, scaled to the capture's SM clock (" + it->second.source + ")";
    return p;
}

struct precision_def {
    resource id;
    const char* formula;
    // CUDA-core precisions: weighted instruction rates (per cycle) and the peak instruction.
    std::vector<std::pair<const char*, double>> inst_rates;
    const char* peak_inst = nullptr;
    double flops_per_peak_inst = 0;
    // Tensor precisions: the op counters (the first the capture holds; several are summed when
    // the capture splits the count by sparsity) and the source tag of the dense op paths.
    std::vector<std::vector<const char*>> tensor_ops;
    const char* tensor_src = nullptr;
};

const std::vector<precision_def>& precision_defs() {
    static const std::vector<precision_def> defs = {
        {resource::fp64, "(DADD + DMUL + 2 x DFMA) thread instructions",
         {{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", 2}},
         "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", 2, {}, nullptr},
        {resource::fp32, "(FADD + FMUL + 2 x FFMA) thread instructions",
         {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", 2}},
         "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 2, {}, nullptr},
        // Packed half2: ncu's own charts count HADD/HMUL as 2 FLOPs and HFMA as 4.
        {resource::fp16, "(2 x HADD + 2 x HMUL + 4 x HFMA) thread instructions (half2 packs two lanes)",
         {{"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", 2},
          {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", 2},
          {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", 4}},
         "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", 4, {}, nullptr},
        {resource::tensor_fp64, "tensor ops with FP64 sources", {}, nullptr, 0, {{"sm__ops_path_tensor_src_fp64.sum"}}, "src_fp64"},
        {resource::tensor_tf32, "tensor ops with TF32 sources", {}, nullptr, 0, {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum"}}, "src_tf32"},
        {resource::tensor_fp16, "tensor ops with FP16 sources", {}, nullptr, 0, {{"sm__ops_path_tensor_src_fp16.sum"}}, "src_fp16"},
        {resource::tensor_bf16, "tensor ops with BF16 sources", {}, nullptr, 0, {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum"}}, "src_bf16"},
        // --set full on Hopper splits the FP8 count by sparsity and has no plain src_fp8 total.
        {resource::tensor_fp8, "tensor ops with FP8 sources", {}, nullptr, 0,
         {{"sm__ops_path_tensor_src_fp8.sum"}, {"sm__ops_path_tensor_src_fp8_sparsity_off.sum", "sm__ops_path_tensor_src_fp8_sparsity_on.sum"}},
         "src_fp8"},
        {resource::tensor_int8, "tensor ops with INT8 sources", {}, nullptr, 0, {{"sm__ops_path_tensor_src_int8.sum"}}, "src_int8"},
        {resource::tensor_fp4, "tensor ops with FP4 sources", {}, nullptr, 0, {{"sm__ops_path_tensor_src_fp4.sum"}}, "src_fp4"},
    };
    return defs;
}

// The dense tensor peak (ops/cycle) for a source type: the fastest instruction path with
// sparsity off. The plain src_* peaks count 2:4 sparse rates, twice the dense ones.
std::optional<std::pair<double, std::string>> dense_tensor_peak(const metric_view& m, const std::string& src) {
    std::optional<std::pair<double, std::string>> best;
    for (const auto& [id, v] : m.numbers) {
        if (id.rfind("sm__ops_path_tensor_op_", 0) != 0) continue;
        if (id.find("_" + src) == std::string::npos) continue;
        const std::string tail = "sparsity_off.sum.peak_sustained";
        if (id.size() < tail.size() || id.compare(id.size() - tail.size(), tail.size(), tail) != 0) continue;
        if (!best || v > best->first) best = std::make_pair(v, id);
    }
    if (!best && src == "src_fp64")  // DMMA has no sparse mode
        if (auto v = m.find("sm__ops_path_tensor_src_fp64.sum.peak_sustained")) best = std::make_pair(*v, std::string("sm__ops_path_tensor_src_fp64.sum.peak_sustained"));
    // Hopper's --set full has no per-instruction FP8 path; its dense total carries the peak.
    if (!best && src == "src_fp8")
        if (auto v = m.find("sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained"))
            best = std::make_pair(*v, std::string("sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained"));
    return best;
}

void check_against_spec(kernel_roofline& k, const std::string& what, double measured, double spec_value) {
    if (spec_value <= 0 || measured <= 0) return;
    double ratio = measured / spec_value;
    if (std::fabs(ratio - 1.0) > 0.10)
        k.warnings.push_back(what + ": the capture's measured peak " + general(measured, 4) + " differs from the spec's " +
                             general(spec_value, 4) + " (at the same clock) by " + signed_fixed((ratio - 1.0) * 100, 0) + "%" +
                             "; the measured peak is used");
}

// Real half-precision instructions on the FMA pipe. HFMA2.MMA (a register move nvcc emits in
// ordinary FP32 code, issued on the tensor pipe) also counts as an HFMA thread instruction: where
// the FMA pipe ran no FP16 instruction at all, every HFMA/HADD/HMUL counted was such a move.
bool fp16_counts_are_moves(const metric_view& m) {
    auto fp16_on_fma = m.find("sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_elapsed");
    return fp16_on_fma && *fp16_on_fma <= 0.0;
}

std::optional<double> tensor_op_count(const metric_view& m, const precision_def& d) {
    for (const auto& alternative : d.tensor_ops) {
        std::optional<double> total;
        for (const char* id : alternative)
            if (auto v = m.find(id)) total = total.value_or(0.0) + *v;
        if (total) return total;
    }
    return std::nullopt;
}

void add_precisions(kernel_roofline& k, const metric_view& m, const gpu_spec& spec) {
    const double t_s = k.duration_ns * 1e-9;
    const double cycles = k.sm_clock_hz * t_s;
    for (const auto& d : precision_defs()) {
        resource_use r;
        r.id = d.id;
        bool have_counter = false;
        if (!d.tensor_ops.empty()) {
            if (auto ops = tensor_op_count(m, d)) {
                have_counter = true;
                r.work = *ops;
            }
        } else {
            for (const auto& [metric, weight] : d.inst_rates)
                if (auto rate = m.find(metric)) {
                    have_counter = true;
                    r.work += weight * *rate * cycles;
                }
        }
        k.flops_counted = k.flops_counted || have_counter;
        if (r.id == resource::fp16 && r.work > 0 && fp16_counts_are_moves(m)) {
            k.notes.push_back("fp16: the " + general(r.work, 3) +
                              " FP16 'FLOPs' of the HFMA/HADD/HMUL counters are HFMA2.MMA register moves (sm__inst_executed_pipe_fma_type_fp16 "
                              "is 0: the FMA pipe ran no half-precision instruction); they are not counted");
            continue;
        }
        if (!have_counter || r.work <= 0) continue;
        auto spec_p = scaled_spec_peak(spec, d.id, k.sm_clock_hz);
        std::optional<double> measured;
        std::string measured_from;
        if (d.peak_inst) {
            if (auto pi = m.find(d.peak_inst)) {
                measured = *pi * d.flops_per_peak_inst * k.sm_clock_hz;
                measured_from = general(d.flops_per_peak_inst, 6) + " x " + d.peak_inst;
            }
        } else if (auto dp = dense_tensor_peak(m, d.tensor_src)) {
            measured = dp->first * k.sm_clock_hz;
            measured_from = dp->second;
        }
        if (measured) {
            r.peak = *measured;
            r.peak_source = "measured: " + measured_from + " x SM clock";
            if (spec_p) check_against_spec(k, std::string(name(r.id)) + " peak", *measured, spec_p->per_second);
        } else if (spec_p) {
            r.peak = spec_p->per_second;
            r.peak_source = spec_p->source;
        } else {
            k.warnings.push_back(std::string(name(d.id)) + ": the kernel did " + general(r.work, 3) +
                                 " FLOPs but neither the capture nor the spec gives a peak; it is left off the roofline");
            continue;
        }
        r.utilisation = r.useful = r.work / (r.peak * t_s);
        r.formula = std::string(d.formula) + " / (peak x duration)";
        k.flops += r.work;
        k.resources.push_back(std::move(r));
    }
}

// Pipe utilisations as ncu reports them: warp instructions executed over the pipe's peak rate,
// over elapsed cycles. Instructions are the work, so busy and useful are the same share.
void add_pipes(kernel_roofline& k, const metric_view& m) {
    auto add = [&](resource id, double pct, std::string formula) {
        resource_use r;
        r.id = id;
        r.utilisation = r.useful = pct / 100.0;
        r.formula = std::move(formula);
        k.resources.push_back(std::move(r));
    };
    // Every pipe of the vocabulary but the tensor pipe, whose instruction count would include
    // HFMA2.MMA moves: sm__inst_executed_pipe_<alu, fma, ...>.
    for (const auto& p : all_resources()) {
        if (!p.pipe || p.id == resource::pipe_tensor) continue;
        std::string metric = std::string("sm__inst_executed_") + p.name + ".avg.pct_of_peak_sustained_elapsed";
        if (auto v = m.find(metric)) add(p.id, *v, metric);
    }
    // The tensor pipe's MMA cycles only (HMMA/HGMMA/QGMMA/IMMA/IGMMA/BMMA/BGMMA, plus DMMA): the
    // plain sm__pipe_tensor_cycles_active also counts HFMA2.MMA moves. It names what is busy;
    // the tensor precisions carry the floor (their FLOPs at the fastest path's rate).
    if (auto mma = m.find("sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed")) {
        double dmma = m.find("sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed").value_or(0.0);
        add(resource::pipe_tensor, *mma + dmma,
            "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active + sm__pipe_tensor_op_dmma_cycles_active "
            "(MMA cycles only, avg.pct_of_peak_sustained_elapsed)");
    }
    // Issue slots: one warp instruction per cycle per scheduler.
    if (auto v = m.find("sm__inst_issued.avg.pct_of_peak_sustained_elapsed"))
        add(resource::issue, *v, "sm__inst_issued.avg.pct_of_peak_sustained_elapsed (one instruction per scheduler per cycle)");
    if (auto v = m.find("sm__throughput.avg.pct_of_peak_sustained_elapsed"))
        add(resource::sm, *v, "sm__throughput.avg.pct_of_peak_sustained_elapsed (ncu's SM speed of light: the busiest SM sub-unit)");
}

// The L1/shared data path split by what it carries: wgmma's operand reads from shared memory (the
// tensor pipe's feed, not LSU work), bank-conflict replays and the excess of uncoalesced global
// accesses.
std::optional<l1_traffic> split_l1(const metric_view& m) {
    auto lsu = m.find("l1tex__data_pipe_lsu_wavefronts.sum.pct_of_peak_sustained_elapsed");
    if (!lsu) return std::nullopt;
    l1_traffic s;
    s.lsu = *lsu;
    s.shared = std::min(s.lsu, m.find("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed").value_or(0.0));
    s.shared_ld = m.find("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum.pct_of_peak_sustained_elapsed").value_or(0.0);
    const double st = m.find("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum.pct_of_peak_sustained_elapsed").value_or(0.0);
    s.shared_atom = m.find("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum.pct_of_peak_sustained_elapsed").value_or(0.0);
    if (m.find("sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed").value_or(0.0) > 0.0)
        s.gmma_feed = std::max(0.0, s.shared - s.shared_ld - st - s.shared_atom);
    auto wavefronts = m.find("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum");
    if (auto excess = m.find("derived__memory_l1_wavefronts_shared_excessive"); excess && wavefronts && *wavefronts > 0)
        s.shared_excess = std::min(s.shared - s.gmma_feed, s.shared * *excess / *wavefronts);
    auto ld_waves = m.find("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
    if (auto conflicts = m.find("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"); conflicts && ld_waves && *ld_waves > 0)
        s.shared_ld_conflicts = s.shared_ld * std::min(1.0, *conflicts / *ld_waves);
    s.global = std::max(0.0, s.lsu - s.shared);
    const double sectors = m.find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum").value_or(0.0) +
                           m.find("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum").value_or(0.0);
    const double requests = m.find("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum").value_or(0.0) +
                            m.find("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum").value_or(0.0);
    auto excess = m.find("derived__memory_l2_theoretical_sectors_global_excessive");
    if (excess && sectors > 0) {
        auto cycles = m.find("l1tex__cycles_elapsed.avg");
        auto sms = m.first_of({"launch__sm_count", "device__attribute_multiprocessor_count"});
        if (cycles && sms && s.global > 0) {
            const double measured = s.global / 100.0 * *cycles * *sms;
            const double ideal = std::max(requests, (sectors - *excess) / 4.0);
            if (measured > 0) s.global_ideal_share = std::clamp(ideal / measured, 0.0, 1.0);
        }
    }
    return s;
}

void add_memory(kernel_roofline& k, const metric_view& m, const gpu_spec& spec) {
    const double t_s = k.duration_ns * 1e-9;
    // DRAM: bytes over the peak bandwidth at the DRAM clock the capture ran at.
    std::optional<double> bytes;
    std::string bytes_from;
    if (auto r = m.find("dram__bytes_read.sum")) {
        bytes = *r + m.find("dram__bytes_write.sum").value_or(0.0);
        bytes_from = "(dram__bytes_read.sum + dram__bytes_write.sum)";
    } else if (auto b = m.find("dram__bytes.sum")) {
        bytes = *b;
        bytes_from = "dram__bytes.sum";
    } else if (auto rate = m.find("dram__bytes.sum.per_second")) {
        bytes = *rate * t_s;
        bytes_from = "dram__bytes.sum.per_second x duration";
    }
    double spec_bw = spec.dram_bandwidth_tbs.value * 1e12;
    auto peak_per_cycle = m.find("dram__bytes.sum.peak_sustained");
    resource_use dram;
    dram.id = resource::dram;
    if (peak_per_cycle && k.dram_clock_hz > 0) {
        dram.peak = *peak_per_cycle * k.dram_clock_hz;
        dram.peak_source = "measured: dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second";
        check_against_spec(k, "dram bandwidth", dram.peak, spec_bw);
    } else {
        dram.peak = spec_bw;
        dram.peak_source = "spec " + spec.file + ": " + general(spec.dram_bandwidth_tbs.value, 6) + " TB/s (" +
                           spec.dram_bandwidth_tbs.source + ")";
    }
    if (bytes) {
        k.bytes_dram = *bytes;
        dram.work = *bytes;
        dram.utilisation = dram.useful = *bytes / (dram.peak * t_s);
        dram.formula = bytes_from + " / (peak x duration)";
        k.resources.push_back(dram);
    } else if (auto pct = m.find("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")) {
        dram.utilisation = dram.useful = *pct / 100.0;
        dram.formula = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
        k.resources.push_back(dram);
    }
    if (auto v = m.find("derived__lts__lts2xbar_bytes.sum.per_second")) k.bytes_l2 = *v * t_s;
    if (auto v = m.find("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second")) k.bytes_l1 = *v * t_s;
    k.l1 = split_l1(m);
    const std::optional<l1_traffic>& l1s = k.l1;
    // Excess sectors reach L2 only where L1 did not absorb them: at most what L2 saw beyond the ideal.
    auto sectors = m.find("lts__t_sectors_srcunit_tex.sum");
    auto g_excess = m.find("derived__memory_l2_theoretical_sectors_global_excessive");
    if (sectors && g_excess && *sectors > 0) {
        const double g_sectors = m.find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum").value_or(0.0) +
                                 m.find("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum").value_or(0.0);
        k.l2_excess_share = std::min(*g_excess, std::max(0.0, *sectors - (g_sectors - *g_excess))) / *sectors;
    }
    // L2: busy is ncu's speed of light (tag lookups, DRAM fills and write-backs included); the
    // useful share is the sectors the SMs asked of L2, less the excess sectors of uncoalesced
    // accesses that reached it.
    if (auto pct = m.find("lts__throughput.avg.pct_of_peak_sustained_elapsed")) {
        resource_use r;
        r.id = resource::l2;
        r.work = k.bytes_l2.value_or(0.0);
        r.utilisation = r.useful = *pct / 100.0;
        r.formula = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
        // Useful: the sectors the SMs asked of L2, less the excess of uncoalesced accesses that
        // reached it. The fills and write-backs of the kernel's DRAM traffic, which lts__throughput
        // also counts, are the dram resource's work.
        auto asked = m.find("lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed");
        if (asked && k.l2_excess_share) {
            r.useful = *asked / 100.0 * (1.0 - *k.l2_excess_share);
            r.useful_formula = "lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed x (1 - excess global sectors that reached L2 / "
                               "lts__t_sectors_srcunit_tex.sum); the fills and write-backs of DRAM traffic are the dram resource's work";
        }
        k.resources.push_back(std::move(r));
    }
    // L1 over elapsed cycles of every SM: the "active" form (all the details page has) counts
    // only SMs with work, so four busy blocks on a 132-SM GPU read as a busy L1.
    resource_use l1;
    l1.id = resource::l1;
    l1.work = k.bytes_l1.value_or(0.0);
    bool have_l1 = false;
    if (auto pct = m.find("l1tex__throughput.avg.pct_of_peak_sustained_elapsed")) {
        have_l1 = true;
        l1.utilisation = *pct / 100.0;
        l1.formula = "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
    } else if (auto active = m.find("l1tex__throughput.avg.pct_of_peak_sustained_active")) {
        have_l1 = true;
        auto busy = m.find("sm__cycles_active.avg");
        auto elapsed = m.find("sm__cycles_elapsed.max");
        if (busy && elapsed && *elapsed > 0) {
            l1.utilisation = *active / 100.0 * std::min(1.0, *busy / *elapsed);
            l1.formula = "l1tex__throughput.avg.pct_of_peak_sustained_active x sm__cycles_active.avg / sm__cycles_elapsed.max";
        } else {
            l1.utilisation = *active / 100.0;
            l1.formula = "l1tex__throughput.avg.pct_of_peak_sustained_active (over active cycles only)";
        }
    }
    if (have_l1) {
        l1.useful = l1.utilisation;
        if (l1s) {
            // wgmma reads A and B from shared memory through the L1 data banks: that is the tensor
            // pipe's operand feed, busy exactly when the tensor pipe is. Where the LSU data stage is
            // L1's busiest sub-unit, the feed is taken off L1's busy share and given to the tensor pipe.
            if (l1s->gmma_feed > 0.0 && l1.utilisation * 100.0 <= l1s->lsu + 0.5) {
                l1.utilisation = std::max(0.0, l1s->lsu - l1s->gmma_feed) / 100.0;
                l1.formula = "l1tex__data_pipe_lsu_wavefronts.sum.pct_of_peak_sustained_elapsed less wgmma's operand reads from shared memory";
                k.notes.push_back("l1: " + fixed(l1s->gmma_feed, 1) +
                                  "% of the L1 data path's peak are wgmma operand reads from shared memory (shared-memory wavefronts that are no "
                                  "load, store or atomic): the tensor pipe's feed, counted with it, not as L1 load");
            }
            l1.useful = std::max(0.0, (l1s->shared - l1s->gmma_feed - l1s->shared_excess) + l1s->global * l1s->global_ideal_share) / 100.0;
            l1.useful_formula = "LSU data-stage wavefronts (l1tex__data_pipe_lsu_wavefronts, pct of peak) less wgmma operand reads and "
                                "shared-memory excess wavefronts (derived__memory_l1_wavefronts_shared_excessive), with global wavefronts at "
                                "what a coalesced pattern needs: max(requests, ideal sectors / 4)";
        }
        k.resources.push_back(std::move(l1));
    }
}

// The L2 and L1 ceilings: bytes per cycle at their peak (ncu's own counters) x their clock; the
// issue ceiling: one warp instruction per scheduler (four per SM) per cycle.
void add_chart_ceilings(kernel_roofline& k, const metric_view& m, const gpu_spec& spec) {
    auto product = [&](const char* per_cycle, const char* clock) -> std::optional<double> {
        auto a = m.find(per_cycle), b = m.find(clock);
        if (a && b && *a * *b > 0) return *a * *b;
        return std::nullopt;
    };
    k.peak_l2_bytes_per_s = product("derived__lts__lts2xbar_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second");
    k.peak_l1_bytes_per_s = product("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained", "l1tex__cycles_elapsed.avg.per_second");
    if (auto n = m.find("smsp__inst_executed.sum"); n && *n > 0) k.warp_instructions = *n;
    if (k.sm_clock_hz > 0) k.issue_peak_per_s = 4.0 * spec.sm_count.value * k.sm_clock_hz;
}

}  // namespace

std::optional<double> spec_peak_per_second(const gpu_spec& spec, resource precision, double sm_clock_hz) {
    auto p = scaled_spec_peak(spec, precision, sm_clock_hz);
    return p ? std::optional<double>(p->per_second) : std::nullopt;
}

std::pair<double, std::string> practical_share_of(const gpu_spec& spec, resource r) {
    auto it = spec.practical_fraction.find(r);
    if (it != spec.practical_fraction.end() && it->second.value) return {*it->second.value, it->second.source};
    if (info(r).tensor) {
        double sum = 0.0;
        std::string from;
        int n = 0;
        for (const auto& [id, share] : spec.practical_fraction)
            if (info(id).tensor && share.value) {
                sum += *share.value;
                from += (from.empty() ? "" : ", ") + std::string(name(id));
                ++n;
            }
        if (n > 0)
            return {sum / n, "none measured for " + std::string(name(r)) + "; the mean of this GPU's measured tensor shares (" + from +
                                 "): the same pipe and the same operand feed"};
    }
    return {1.0, "none measured: the raw peak (estimates stay upper bounds)"};
}

kernel_roofline build_roofline(const metric_view& m, const gpu_spec& spec) {
    kernel_roofline k;
    auto duration = m.find("gpu__time_duration.sum");
    if (!duration || *duration <= 0) {
        k.missing = "gpu__time_duration.sum (collect it with --section SpeedOfLight or --metrics gpu__time_duration.sum)";
        return k;
    }
    k.placed = true;
    k.duration_ns = *duration;
    if (auto clk = m.first_of({"sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second"})) {
        k.sm_clock_hz = *clk;
        k.sm_clock_source = "sm__cycles_elapsed.avg.per_second";
    } else {
        k.sm_clock_hz = spec.boost_clock_mhz.value * 1e6;
        k.sm_clock_source = "spec boost clock (the capture holds no SM clock)";
    }
    k.dram_clock_hz = m.find("dram__cycles_elapsed.avg.per_second").value_or(0.0);
    add_precisions(k, m, spec);
    add_pipes(k, m);
    add_memory(k, m, spec);
    add_chart_ceilings(k, m, spec);
    const resource_use* top = nullptr;
    const resource_use* top_practical = nullptr;
    for (auto& r : k.resources) {
        auto [share, source] = practical_share_of(spec, r.id);
        r.practical = share;
        r.practical_source = source;
        r.floor_ns = r.useful * k.duration_ns / share;
        if (!info(r.id).in_floor) continue;
        if (!top || r.useful > top->useful) top = &r;
        if (!top_practical || r.floor_ns > top_practical->floor_ns) top_practical = &r;
    }
    if (top) {
        k.binding = top->id;
        k.pct_of_roof = top->useful * 100.0;
        k.floor_ns = top->useful * k.duration_ns;
        k.binding_practical = top_practical->id;
        k.practical_floor_ns = top_practical->floor_ns;
    }
    for (const auto& r : k.resources)
        if (r.useful > 1.0)
            k.warnings.push_back(std::string(name(r.id)) + " is above its roof: " + format_percent(r.useful) + " of " +
                                 (r.peak > 0 ? r.peak_source : r.formula) + "; the peak or the work count is wrong, so treat this point with suspicion");
    return k;
}

}  // namespace roofline
