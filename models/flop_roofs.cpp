// The FLOP roofs: each precision's work from its instruction or tensor-op counters, and its peak
// measured by ncu or scaled from the spec to the capture's SM clock.
#include "models/roofline_parts.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {
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
        {resource::fp64,
         "(DADD + DMUL + 2 x DFMA) thread instructions",
         {{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", 2}},
         "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
         2,
         {},
         nullptr},
        {resource::fp32,
         "(FADD + FMUL + 2 x FFMA) thread instructions",
         {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", 2}},
         "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
         2,
         {},
         nullptr},
        // Packed half2: ncu's own charts count HADD/HMUL as 2 FLOPs and HFMA as 4.
        {resource::fp16,
         "(2 x HADD + 2 x HMUL + 4 x HFMA) thread instructions (half2 packs two lanes)",
         {{"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", 2},
          {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", 2},
          {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", 4}},
         "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
         4,
         {},
         nullptr},
        {resource::tensor_fp64, "tensor ops with FP64 sources", {}, nullptr, 0, {{"sm__ops_path_tensor_src_fp64.sum"}}, "src_fp64"},
        {resource::tensor_tf32,
         "tensor ops with TF32 sources",
         {},
         nullptr,
         0,
         {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum"}},
         "src_tf32"},
        {resource::tensor_fp16, "tensor ops with FP16 sources", {}, nullptr, 0, {{"sm__ops_path_tensor_src_fp16.sum"}}, "src_fp16"},
        {resource::tensor_bf16,
         "tensor ops with BF16 sources",
         {},
         nullptr,
         0,
         {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum"}},
         "src_bf16"},
        // --set full on Hopper splits the FP8 count by sparsity and has no plain src_fp8 total.
        {resource::tensor_fp8,
         "tensor ops with FP8 sources",
         {},
         nullptr,
         0,
         {{"sm__ops_path_tensor_src_fp8.sum"},
          {"sm__ops_path_tensor_src_fp8_sparsity_off.sum", "sm__ops_path_tensor_src_fp8_sparsity_on.sum"}},
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
    for (const auto& [key, v] : m.numbers.entries()) {
        const std::string& id = metric_name(key);
        if (id.rfind("sm__ops_path_tensor_op_", 0) != 0) continue;
        if (id.find("_" + src) == std::string::npos) continue;
        const std::string tail = "sparsity_off.sum.peak_sustained";
        if (id.size() < tail.size() || id.compare(id.size() - tail.size(), tail.size(), tail) != 0) continue;
        if (!best || v > best->first || (v == best->first && id < best->second)) best = std::make_pair(v, id);  // ties: the first name
    }
    if (!best && src == "src_fp64")  // DMMA has no sparse mode
        if (auto v = m.find("sm__ops_path_tensor_src_fp64.sum.peak_sustained"))
            best = std::make_pair(*v, std::string("sm__ops_path_tensor_src_fp64.sum.peak_sustained"));
    // Hopper's --set full has no per-instruction FP8 path; its dense total carries the peak.
    if (!best && src == "src_fp8")
        if (auto v = m.find("sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained"))
            best = std::make_pair(*v, std::string("sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained"));
    return best;
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

}  // namespace

std::optional<double> spec_peak_per_second(const gpu_spec& spec, resource precision, double sm_clock_hz) {
    auto p = scaled_spec_peak(spec, precision, sm_clock_hz);
    return p ? std::optional<double>(p->per_second) : std::nullopt;
}

namespace detail {

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
            k.notes.push_back(
                "fp16: the " + general(r.work, 3) +
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
            if (spec_p) detail::check_against_spec(k, std::string(name(r.id)) + " peak", *measured, spec_p->per_second);
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

}  // namespace detail
}  // namespace roofline
