// The FLOP roofs: each precision's work from its instruction or tensor-op counters, and its peak
// measured by ncu or scaled from the spec to the capture's SM clock.
#include "models/roofline_parts.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace roofline {
namespace {

// A peak from the spec, scaled from the clock it holds at to the clock the capture ran at.
struct spec_peak {
    double per_second = 0;
    peak_origin from;
    bool estimated = false;  // the figure, or the clock it is scaled from, is an estimate
};

peak_figure counters(const std::string& expression) {
    peak_figure figure;
    figure.from = peak_figure::kind::counters;
    figure.what = expression + " x SM clock";
    return figure;
}

std::optional<spec_peak> scaled_spec_peak(const gpu_spec& spec, resource precision, double sm_clock_hz) {
    auto it = spec.peaks_tflops.find(precision);
    if (it == spec.peaks_tflops.end() || !it->second.value) return std::nullopt;
    double at_mhz = it->second.at_clock_mhz.value_or(spec.boost_clock_mhz.value);
    double scale = sm_clock_hz > 0 ? sm_clock_hz / (at_mhz * 1e6) : 1.0;
    spec_peak peak;
    peak.per_second = *it->second.value * 1e12 * scale;
    peak.estimated = it->second.estimated || (!it->second.at_clock_mhz && spec.boost_clock_mhz.estimated);
    peak_figure figure;
    figure.from = peak_figure::kind::spec;
    figure.estimated = peak.estimated;
    figure.what = spec.file;
    figure.source = it->second.source;
    figure.figure = *it->second.value;
    figure.at_mhz = at_mhz;
    peak.from.figure = peak_origin::pooled(figure);
    return peak;
}

struct precision_def {
    resource id;
    const char* formula;
    // CUDA-core precisions: weighted instruction rates (per cycle) and the peak instruction.
    std::vector<std::pair<const char*, double>> inst_rates;
    const char* peak_inst = nullptr;
    double flops_per_peak_inst = 0;
    // Tensor precisions: the op count (a catalogue quantity: the reader maps each chip's counters onto
    // it, analyzer/read/chip_names.hpp) and the source types of the tensor paths whose dense peaks
    // carry its rate (sm__ops_path_tensor_[op_<instruction>_]src_<source>[_dst_<type>]).
    const char* tensor_ops = nullptr;
    std::vector<const char*> path_sources{};
    // Tensor precisions whose rate depends on the accumulate type: the ops that accumulate in FP16
    // (every other op of the precision accumulates in FP32).
    const char* fp16_accumulate_ops = nullptr;
    // Where a details page lacks the instruction counters, the FLOP rate as a whole percent of the peak
    // that ncu's SOLFPRoofline rule states (analyzer/read/ncu_rule_values.hpp): the work within 0.5 point.
    const char* stated_pct = nullptr;
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
         nullptr,
         {},
         nullptr,
         "derived__roofline_fp64_flops_pct_of_peak"},
        {resource::fp32,
         "(FADD + FMUL + 2 x FFMA) thread instructions",
         {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", 2}},
         "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
         2,
         nullptr,
         {},
         nullptr,
         "derived__roofline_fp32_flops_pct_of_peak"},
        // Packed half2: ncu's own charts count HADD/HMUL as 2 FLOPs and HFMA as 4.
        {resource::fp16,
         "(2 x HADD + 2 x HMUL + 4 x HFMA) thread instructions (half2 packs two lanes)",
         {{"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", 2},
          {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", 2},
          {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", 4}},
         "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
         4},
        {resource::tensor_fp64,
         "tensor ops with FP64 sources",
         {},
         nullptr,
         0,
         "sm__ops_path_tensor_src_fp64.sum",
         {"fp64"}},
        {resource::tensor_tf32,
         "tensor ops with TF32 sources",
         {},
         nullptr,
         0,
         "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
         {"tf32"}},
        {resource::tensor_fp16,
         "tensor ops with FP16 sources",
         {},
         nullptr,
         0,
         "sm__ops_path_tensor_src_fp16.sum",
         {"fp16"},
         "sm__ops_path_tensor_src_fp16_dst_fp16.sum"},
        {resource::tensor_bf16,
         "tensor ops with BF16 sources",
         {},
         nullptr,
         0,
         "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
         {"bf16"}},
        // The FP8-rate path: FP8 on every chip that has it, and on Blackwell the FP6 and FP4 operands of
        // kind::f8f6f4 MMAs, which run at the FP8 rate (GB100 counts them as one source type,
        // src_fp4_fp6_fp8; GB20x splits them into src_fp8 with any partner and src_fp4_fp6).
        {resource::tensor_fp8,
         "tensor ops on the FP8-rate path (FP8; FP6 and FP4 in kind::f8f6f4 MMAs on Blackwell)",
         {},
         nullptr,
         0,
         "sm__ops_path_tensor_src_fp8.sum",
         {"fp8", "fp4_fp6_fp8", "fp4_fp6"},
         "sm__ops_path_tensor_src_fp8_dst_fp16.sum"},
        {resource::tensor_int8,
         "tensor ops with INT8 sources",
         {},
         nullptr,
         0,
         "sm__ops_path_tensor_src_int8.sum",
         {"int8"}},
        // Block-scaled FP4 (kind::mxf4 / mxf4nvf4 on Blackwell), at twice the FP8 rate.
        {resource::tensor_fp4,
         "tensor ops of block-scaled FP4 MMAs",
         {},
         nullptr,
         0,
         "sm__ops_path_tensor_src_fp4.sum",
         {"fp4"}},
    };
    return defs;
}

bool ends_with(const std::string& whole, const std::string& tail) {
    return whole.size() >= tail.size() && whole.compare(whole.size() - tail.size(), tail.size(), tail) == 0;
}

// The source and accumulate types of a dense tensor path's peak:
// sm__ops_path_tensor_[op_<instruction>_]src_<source>[_dst_<type>]_sparsity_off.sum.peak_sustained.
struct tensor_path {
    std::string source, dst;  // dst "" where the path does not split by accumulate type
};

std::optional<tensor_path> dense_path_of(const std::string& id) {
    static const std::string prefix = "sm__ops_path_tensor_", dense = "_sparsity_off.sum.peak_sustained";
    if (id.rfind(prefix, 0) != 0 || !ends_with(id, dense)) return std::nullopt;
    const std::size_t src = id.find("src_", prefix.size());
    if (src == std::string::npos) return std::nullopt;
    const std::string body = id.substr(src + 4, id.size() - dense.size() - src - 4);
    const std::size_t dst = body.find("_dst_");
    if (dst == std::string::npos) return tensor_path{body, ""};
    return tensor_path{body.substr(0, dst), body.substr(dst + 5)};
}

// The fastest dense path (ops/cycle) of a precision's source types, of one accumulate type where `dst`
// is given: the instruction paths (sm__ops_path_tensor_op_*, Hopper and Blackwell) and the
// source-type paths (sm__ops_path_tensor_src_*_sparsity_off: Ampere, Ada, Hopper's FP8, GB20x's FP8
// and FP4). The plain src_* peaks count 2:4 sparse rates, twice the dense ones.
std::optional<std::pair<double, std::string>> fastest_dense_path(const metric_view& metrics, const precision_def& def,
                                                                 const char* dst = nullptr) {
    std::optional<std::pair<double, std::string>> best;
    for (const auto& [key, value] : metrics.metrics.entries()) {
        const std::string& id = metric_name(key);
        auto path = dense_path_of(id);
        if (!path ||
            std::find(def.path_sources.begin(), def.path_sources.end(), path->source) == def.path_sources.end())
            continue;
        if (dst && path->dst != dst) continue;
        metric_read_log::note(id);  // read by name, though not through find(): `roofline metrics` counts it
        if (!best || value > best->first || (value == best->first && id < best->second))
            best = std::make_pair(value, id);  // ties: the first name
    }
    return best;
}

// The dense tensor peak (ops/cycle) of a precision: its fastest path.
std::optional<std::pair<double, std::string>> dense_tensor_peak(const metric_view& metrics, const precision_def& def) {
    std::optional<std::pair<double, std::string>> best = fastest_dense_path(metrics, def);
    if (!best && def.id == resource::tensor_fp64)  // DMMA has no sparse mode
        if (auto value = metrics.find("sm__ops_path_tensor_src_fp64.sum.peak_sustained"))
            best = std::make_pair(*value, std::string("sm__ops_path_tensor_src_fp64.sum.peak_sustained"));
    return best;
}

// Real half-precision instructions on the FMA pipe. HFMA2.MMA (a register move nvcc emits in
// ordinary FP32 code, issued on the tensor pipe) also counts as an HFMA thread instruction: where
// the FMA pipe ran no FP16 instruction at all, every HFMA/HADD/HMUL counted was such a move.
constexpr const char* fp16_on_fma_pipe = "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_elapsed";

bool fp16_counts_are_moves(const metric_view& metrics) {
    auto fp16_on_fma = metrics.find(fp16_on_fma_pipe);
    return fp16_on_fma && *fp16_on_fma <= 0.0;
}

std::optional<double> tensor_op_count(const metric_view& metrics, const precision_def& def) {
    return metrics.find(def.tensor_ops);
}

// GeForce parts run FP16- and FP8-source MMA with FP32 accumulate at half the FP16-accumulate
// rate (Ada whitepaper, RTX 4090: 165.2 against 330.3 dense TFLOP/s; RTX Blackwell whitepaper,
// RTX 5090: 209.5 against 419); data-center parts run both at one rate. Where the two differ, each
// accumulate type's ops go over their own rate, so the roof is the rate the kernel's own mix can
// reach: ops / (ops16 / rate16 + ops32 / rate32).
struct accumulate_rates {
    double fp16 = 0.0, fp32 = 0.0;  // per second
    peak_figure fp16_from, fp32_from;
};

// Rates closer than this are one rate (the dense peaks of the two paths on the H100 are equal).
constexpr double rates_differ_above = 0.01;

std::optional<accumulate_rates> measured_accumulate_rates(const metric_view& metrics, const precision_def& def,
                                                          double sm_clock_hz) {
    if (!def.fp16_accumulate_ops) return std::nullopt;
    auto p16 = fastest_dense_path(metrics, def, "fp16");
    auto p32 = fastest_dense_path(metrics, def, "fp32");
    if (!p16 || !p32 || p32->first <= 0 || p32->first >= p16->first * (1.0 - rates_differ_above)) return std::nullopt;
    return accumulate_rates{p16->first * sm_clock_hz, p32->first * sm_clock_hz, counters(p16->second),
                            counters(p32->second)};
}

std::optional<accumulate_rates> spec_accumulate_rates(const gpu_spec& spec, resource precision, double sm_clock_hz) {
    auto alt = spec.fp16_accumulate.find(precision);
    auto main = scaled_spec_peak(spec, precision, sm_clock_hz);
    if (alt == spec.fp16_accumulate.end() || !main) return std::nullopt;
    const double figure = *spec.peaks_tflops.at(precision).value;
    const double scale = main->per_second / (figure * 1e12);  // the clock scaling of the main figure
    auto scaled = [&](peak_figure::accumulate acc, double tflops, const std::string& source) {
        peak_figure scaled_figure;
        scaled_figure.from = peak_figure::kind::spec;
        scaled_figure.acc = acc;
        scaled_figure.what = spec.file;
        scaled_figure.source = source;
        scaled_figure.figure = tflops;
        return scaled_figure;
    };
    return accumulate_rates{alt->second.value * 1e12 * scale, main->per_second,
                            scaled(peak_figure::accumulate::fp16, alt->second.value, alt->second.source),
                            scaled(peak_figure::accumulate::fp32, figure, spec.peaks_tflops.at(precision).source)};
}

// The rate `ops` reach when `ops16` of them accumulate in FP16, and where each part's rate comes from.
// Without the capture's per-accumulate counter every op is FP32 accumulate.
std::pair<double, std::shared_ptr<const accumulate_mix>> combined_rate(double ops, std::optional<double> ops16,
                                                                       const accumulate_rates& rates) {
    const double in16 = std::clamp(ops16.value_or(0.0), 0.0, ops);
    const double rate = ops / (in16 / rates.fp16 + (ops - in16) / rates.fp32);
    auto mix = std::make_shared<accumulate_mix>();
    mix->fp16 = rates.fp16_from;
    mix->fp32 = rates.fp32_from;
    mix->rate16 = rates.fp16;
    mix->rate32 = rates.fp32;
    mix->ops = ops;
    mix->ops16 = ops16;
    return {rate, mix};
}

// Where this GPU runs BF16 half2 instructions on the CUDA cores slower than FP16 ones (A100: 39
// against 78 TFLOP/s), the note a kernel with half-precision CUDA-core work gets. ncu counts BF16
// (HFMA2.BF16_V2, HADD2.BF16_V2) in the same HFMA/HADD/HMUL counters as FP16 (checked on the H100:
// __hfma2 chains on __half2 and __nv_bfloat162 give identical counters), so the counters cannot say
// which the kernel ran: the roof stays FP16's, the rate ncu's own HFMA peak measures.
std::optional<roof_note> bf16_note(const gpu_spec& spec) {
    const auto& fp16 = spec.peaks_tflops.at(resource::fp16);
    if (!spec.fp16_bf16 || !fp16.value || spec.fp16_bf16->value >= *fp16.value * (1.0 - rates_differ_above))
        return std::nullopt;
    return roof_note{roof_note_kind::bf16_rate, *fp16.value, spec.fp16_bf16->value, spec.fp16_bf16->source};
}

}  // namespace

std::optional<double> spec_peak_per_second(const gpu_spec& spec, resource precision, double sm_clock_hz) {
    auto peak = scaled_spec_peak(spec, precision, sm_clock_hz);
    return peak ? std::optional<double>(peak->per_second) : std::nullopt;
}

namespace detail {

void add_precisions(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec) {
    const double t_s = roof.duration_ns * 1e-9;
    const double cycles = roof.sm_clock_hz * t_s;
    for (const auto& def : precision_defs()) {
        resource_use use;
        use.id = def.id;
        // The precision's work needs every counter of it: without one the work is unknown, and the
        // precision is unmeasured (its share bounded by the SM's speed of light, set by build_roofline).
        std::vector<pooled_string> lacking;
        if (def.tensor_ops) {
            if (auto ops = tensor_op_count(metrics, def))
                use.work = *ops;
            else
                lacking.emplace_back(def.tensor_ops);
        } else {
            for (const auto& [metric, weight] : def.inst_rates)
                if (auto rate = metrics.find(metric))
                    use.work += weight * *rate * cycles;
                else
                    lacking.emplace_back(metric);
        }
        // The rate ncu states in whole percent: the work is known within half a point, not exactly.
        const std::optional<double> stated_at =
            lacking.empty() || !def.stated_pct ? std::nullopt : metrics.find(def.stated_pct);
        const bool stated = stated_at.has_value();
        const double stated_pct = stated_at.value_or(0.0);
        if (!lacking.empty() && !stated) {
            roof.unmeasured.push_back({def.id, 1.0, 1.0, std::move(lacking)});
            continue;
        }
        if (stated) {
            use.missing = std::move(lacking);
            use.work = 1.0;  // set from the peak below
        }
        if (use.id == resource::fp16 && use.work > 0) {
            if (fp16_counts_are_moves(metrics)) {
                roof.notes.push_back({roof_note_kind::fp16_moves, use.work, 0.0, {}});
                continue;
            }
            // Without the FMA pipe's half-precision count, the HFMA counts may all be HFMA2.MMA moves:
            // the work is at most what they count.
            if (!metrics.find(fp16_on_fma_pipe)) use.missing.emplace_back(fp16_on_fma_pipe);
        }
        if (use.work <= 0) continue;
        auto spec_p = scaled_spec_peak(spec, def.id, roof.sm_clock_hz);
        std::optional<double> measured;
        peak_figure measured_from;
        if (def.peak_inst) {
            if (auto pi = metrics.find(def.peak_inst)) {
                measured = *pi * def.flops_per_peak_inst * roof.sm_clock_hz;
                measured_from = counters(significant(def.flops_per_peak_inst, 6) + " x " + def.peak_inst);
            }
        } else if (auto dp = dense_tensor_peak(metrics, def)) {
            measured = dp->first * roof.sm_clock_hz;
            measured_from = counters(dp->second);
        }
        std::shared_ptr<const accumulate_mix> measured_mix;
        // Where the two accumulate rates differ and the capture does not split the ops by accumulate
        // type, the rate lies between them: the peak below is the FP32-accumulate one (the largest
        // share), and the FP16-accumulate one gives the smallest.
        double all_fp16_scale = 1.0;
        if (def.fp16_accumulate_ops) {
            const auto ops16 = metrics.find(def.fp16_accumulate_ops);
            if (auto rates = measured_accumulate_rates(metrics, def, roof.sm_clock_hz)) {
                std::tie(measured, measured_mix) = combined_rate(use.work, ops16, *rates);
                if (!ops16) all_fp16_scale = rates->fp32 / rates->fp16;
            }
            if (auto rates = spec_accumulate_rates(spec, def.id, roof.sm_clock_hz); rates && spec_p) {
                auto [rate, mix] = combined_rate(use.work, ops16, *rates);
                spec_p->per_second = rate;
                spec_p->from.mix = mix;
                if (!ops16 && !measured) all_fp16_scale = rates->fp32 / rates->fp16;
            }
            if (all_fp16_scale < 1.0) use.missing.emplace_back(def.fp16_accumulate_ops);
        }
        if (use.id == resource::fp16)
            if (auto note = bf16_note(spec)) roof.notes.push_back(*note);
        if (measured && measured_mix) {
            use.peak = *measured;
            use.peak_from.mix = measured_mix;
            if (spec_p) detail::check_against_spec(roof, use.id, *measured, spec_p->per_second);
        } else if (measured) {
            use.peak = *measured;
            use.peak_from.figure = peak_origin::pooled(measured_from);
            if (spec_p) detail::check_against_spec(roof, use.id, *measured, spec_p->per_second);
        } else if (spec_p) {
            use.peak = spec_p->per_second;
            use.peak_from = spec_p->from;
            use.peak_estimated = spec_p->estimated;
        } else {
            roof.warnings.push_back({roof_warning_kind::no_peak, def.id, use.work, 0.0, {}, {}});
            continue;
        }
        if (stated) {
            constexpr double rounding = 0.5;  // points: ncu writes the share as a whole percent
            use.work = stated_pct / 100.0 * use.peak * t_s;
            use.utilisation = use.useful = (stated_pct + rounding) / 100.0;
            use.useful_lo = std::max(0.0, stated_pct - rounding) / 100.0;
            use.useful_from = useful_basis::stated_rate;
            use.formula = std::string(def.formula) + " / (peak x duration), as ncu's SOLFPRoofline rule states it (" +
                          def.stated_pct + ", to 0.5 point)";
            roof.flops += use.work;
            roof.resources.push_back(std::move(use));
            continue;
        }
        use.utilisation = use.useful = use.work / (use.peak * t_s);
        use.useful_lo = use.missing.empty() ? use.useful : use.id == resource::fp16 ? 0.0 : use.useful * all_fp16_scale;
        use.formula = std::string(def.formula) + " / (peak x duration)";
        roof.flops += use.work;
        roof.resources.push_back(std::move(use));
    }
    // FLOPs are counted where every precision is: a precision without counters leaves the total open.
    roof.flops_counted =
        std::none_of(roof.unmeasured.begin(), roof.unmeasured.end(),
                     [](const unmeasured_resource& unmeasured) { return info(unmeasured.id).precision; });
}

}  // namespace detail
}  // namespace roofline
