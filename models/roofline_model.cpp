#include "roofline_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace roofline {

const resource_use* kernel_roofline::find(const std::string& id) const {
    for (const auto& r : resources)
        if (r.id == id) return &r;
    return nullptr;
}

std::optional<double> kernel_roofline::intensity(const std::string& level) const {
    const std::optional<double>& b = level == "dram" ? bytes_dram : level == "l2" ? bytes_l2 : bytes_l1;
    if (!b || *b <= 0 || !flops_counted) return std::nullopt;
    return flops / *b;
}

namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

// A peak from the spec, scaled from the clock it holds at to the clock the capture ran at.
struct spec_peak {
    double per_second = 0;
    std::string source;
};

std::optional<spec_peak> scaled_spec_peak(const gpu_spec& spec, const std::string& precision, double sm_clock_hz) {
    auto it = spec.peaks_tflops.find(precision);
    if (it == spec.peaks_tflops.end() || !it->second.value) return std::nullopt;
    double at_mhz = it->second.at_clock_mhz.value_or(*spec.boost_clock_mhz.value);
    double scale = sm_clock_hz > 0 ? sm_clock_hz / (at_mhz * 1e6) : 1.0;
    spec_peak p;
    p.per_second = *it->second.value * 1e12 * scale;
    p.source = "spec " + spec.file + ": " + fmt("%g", *it->second.value) + " TFLOP/s at " + fmt("%g", at_mhz) +
               " MHz, scaled to the capture's SM clock (" + it->second.source + ")";
    return p;
}

struct precision_def {
    const char* id;
    const char* formula;
    // CUDA-core precisions: weighted instruction rates (per cycle) and the peak instruction.
    std::vector<std::pair<const char*, double>> inst_rates;
    const char* peak_inst = nullptr;
    double flops_per_peak_inst = 0;
    // Tensor precisions: the op counter and the source tag of the dense op paths.
    const char* tensor_ops = nullptr;
    const char* tensor_src = nullptr;
};

const std::vector<precision_def>& precision_defs() {
    static const std::vector<precision_def> defs = {
        {"fp64", "(DADD + DMUL + 2 x DFMA) thread instructions",
         {{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", 2}},
         "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", 2},
        {"fp32", "(FADD + FMUL + 2 x FFMA) thread instructions",
         {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", 1},
          {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", 2}},
         "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 2},
        // Packed half2: ncu's own charts count HADD/HMUL as 2 FLOPs and HFMA as 4.
        {"fp16", "(2 x HADD + 2 x HMUL + 4 x HFMA) thread instructions (half2 packs two lanes)",
         {{"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", 2},
          {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", 2},
          {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", 4}},
         "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", 4},
        {"tensor_fp64", "tensor ops with FP64 sources", {}, nullptr, 0, "sm__ops_path_tensor_src_fp64.sum", "src_fp64"},
        {"tensor_tf32", "tensor ops with TF32 sources", {}, nullptr, 0, "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "src_tf32"},
        {"tensor_fp16", "tensor ops with FP16 sources", {}, nullptr, 0, "sm__ops_path_tensor_src_fp16.sum", "src_fp16"},
        {"tensor_bf16", "tensor ops with BF16 sources", {}, nullptr, 0, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "src_bf16"},
        {"tensor_fp8", "tensor ops with FP8 sources", {}, nullptr, 0, "sm__ops_path_tensor_src_fp8.sum", "src_fp8"},
        {"tensor_int8", "tensor ops with INT8 sources", {}, nullptr, 0, "sm__ops_path_tensor_src_int8.sum", "src_int8"},
        {"tensor_fp4", "tensor ops with FP4 sources", {}, nullptr, 0, "sm__ops_path_tensor_src_fp4.sum", "src_fp4"},
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
    return best;
}

void check_against_spec(kernel_roofline& k, const std::string& what, double measured, double spec_value) {
    if (spec_value <= 0 || measured <= 0) return;
    double ratio = measured / spec_value;
    if (std::fabs(ratio - 1.0) > 0.10)
        k.warnings.push_back(what + ": the capture's measured peak " + fmt("%.4g", measured) + " differs from the spec's " +
                             fmt("%.4g", spec_value) + " (at the same clock) by " + fmt("%+.0f%%", (ratio - 1.0) * 100) +
                             "; the measured peak is used");
}

void add_precisions(kernel_roofline& k, const metric_view& m, const gpu_spec& spec) {
    const double t_s = k.duration_ns * 1e-9;
    const double cycles = k.sm_clock_hz * t_s;
    for (const auto& d : precision_defs()) {
        resource_use r;
        r.id = d.id;
        r.is_precision = true;
        bool have_counter = false;
        if (d.tensor_ops) {
            if (auto ops = m.find(d.tensor_ops)) {
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
        if (!have_counter || r.work <= 0) continue;
        auto spec_p = scaled_spec_peak(spec, d.id, k.sm_clock_hz);
        std::optional<double> measured;
        std::string measured_from;
        if (d.peak_inst) {
            if (auto pi = m.find(d.peak_inst)) {
                measured = *pi * d.flops_per_peak_inst * k.sm_clock_hz;
                measured_from = fmt("%g", d.flops_per_peak_inst) + " x " + d.peak_inst;
            }
        } else if (auto dp = dense_tensor_peak(m, d.tensor_src)) {
            measured = dp->first * k.sm_clock_hz;
            measured_from = dp->second;
        }
        if (measured) {
            r.peak = *measured;
            r.peak_source = "measured: " + measured_from + " x SM clock";
            if (spec_p) check_against_spec(k, r.id + " peak", *measured, spec_p->per_second);
        } else if (spec_p) {
            r.peak = spec_p->per_second;
            r.peak_source = spec_p->source;
        } else {
            k.warnings.push_back(std::string(d.id) + ": the kernel did " + fmt("%.3g", r.work) +
                                 " FLOPs but neither the capture nor the spec gives a peak; it is left off the roofline");
            continue;
        }
        r.utilisation = r.work / (r.peak * t_s);
        r.formula = std::string(d.formula) + " / (peak x duration)";
        k.flops += r.work;
        k.resources.push_back(std::move(r));
    }
}

// Pipe utilisations as ncu reports them (fraction of the pipe's peak over elapsed cycles).
void add_pipes(kernel_roofline& k, const metric_view& m) {
    static const char* pipes[] = {"alu", "fma", "fp64", "xu", "lsu", "uniform", "adu", "cbu", "tex", "tma"};
    for (const char* p : pipes) {
        std::string metric = std::string("sm__inst_executed_pipe_") + p + ".avg.pct_of_peak_sustained_elapsed";
        if (auto v = m.find(metric)) {
            resource_use r;
            r.id = std::string("pipe_") + p;
            r.utilisation = *v / 100.0;
            r.formula = metric;
            k.resources.push_back(std::move(r));
        }
    }
    if (auto v = m.find("sm__throughput.avg.pct_of_peak_sustained_elapsed")) {
        resource_use r;
        r.id = "sm";
        r.utilisation = *v / 100.0;
        r.formula = "sm__throughput.avg.pct_of_peak_sustained_elapsed (ncu's SM speed of light: the busiest SM sub-unit)";
        k.resources.push_back(std::move(r));
    }
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
    double spec_bw = *spec.dram_bandwidth_tbs.value * 1e12;
    auto peak_per_cycle = m.find("dram__bytes.sum.peak_sustained");
    resource_use dram;
    dram.id = "dram";
    dram.kind = resource_kind::memory;
    if (peak_per_cycle && k.dram_clock_hz > 0) {
        dram.peak = *peak_per_cycle * k.dram_clock_hz;
        dram.peak_source = "measured: dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second";
        check_against_spec(k, "dram bandwidth", dram.peak, spec_bw);
    } else {
        dram.peak = spec_bw;
        dram.peak_source = "spec " + spec.file + ": " + fmt("%g", *spec.dram_bandwidth_tbs.value) + " TB/s (" +
                           spec.dram_bandwidth_tbs.source + ")";
    }
    if (bytes) {
        k.bytes_dram = *bytes;
        dram.work = *bytes;
        dram.utilisation = *bytes / (dram.peak * t_s);
        dram.formula = bytes_from + " / (peak x duration)";
        k.resources.push_back(dram);
    } else if (auto pct = m.find("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")) {
        dram.utilisation = *pct / 100.0;
        dram.formula = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
        k.resources.push_back(dram);
    }
    // L2 and L1: ncu's speed-of-light percentages (the busiest sub-unit of each), which also
    // see tag lookups and bank conflicts that a byte count alone misses. The byte counts
    // below only place the kernel on the hierarchical chart (intensity per level).
    if (auto v = m.find("derived__lts__lts2xbar_bytes.sum.per_second")) k.bytes_l2 = *v * t_s;
    if (auto v = m.find("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second")) k.bytes_l1 = *v * t_s;
    auto add_level = [&](const char* id, double pct, std::string formula, std::optional<double> level_bytes) {
        resource_use r;
        r.id = id;
        r.kind = resource_kind::memory;
        r.utilisation = pct / 100.0;
        r.work = level_bytes.value_or(0.0);
        r.formula = std::move(formula);
        k.resources.push_back(std::move(r));
    };
    if (auto pct = m.find("lts__throughput.avg.pct_of_peak_sustained_elapsed"))
        add_level("l2", *pct, "lts__throughput.avg.pct_of_peak_sustained_elapsed", k.bytes_l2);
    // L1 over elapsed cycles of every SM: the "active" form (all the details page has) counts
    // only SMs with work, so four busy blocks on a 132-SM GPU read as a busy L1.
    if (auto pct = m.find("l1tex__throughput.avg.pct_of_peak_sustained_elapsed")) {
        add_level("l1", *pct, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed", k.bytes_l1);
    } else if (auto active = m.find("l1tex__throughput.avg.pct_of_peak_sustained_active")) {
        auto busy = m.find("sm__cycles_active.avg");
        auto elapsed = m.find("sm__cycles_elapsed.max");
        if (busy && elapsed && *elapsed > 0)
            add_level("l1", *active * std::min(1.0, *busy / *elapsed),
                      "l1tex__throughput.avg.pct_of_peak_sustained_active x sm__cycles_active.avg / sm__cycles_elapsed.max", k.bytes_l1);
        else
            add_level("l1", *active, "l1tex__throughput.avg.pct_of_peak_sustained_active (over active cycles only)", k.bytes_l1);
    }
}

}  // namespace

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
        k.sm_clock_hz = *spec.boost_clock_mhz.value * 1e6;
        k.sm_clock_source = "spec boost clock (the capture holds no SM clock)";
    }
    k.dram_clock_hz = m.find("dram__cycles_elapsed.avg.per_second").value_or(0.0);
    add_precisions(k, m, spec);
    add_pipes(k, m);
    add_memory(k, m, spec);
    const resource_use* top = nullptr;
    for (const auto& r : k.resources)
        if (!top || r.utilisation > top->utilisation) top = &r;
    if (top) {
        k.binding = top->id;
        k.pct_of_roof = top->utilisation * 100.0;
        k.floor_ns = top->utilisation * k.duration_ns;
    }
    for (const auto& r : k.resources)
        if (r.utilisation > 1.0)
            k.warnings.push_back(r.id + " is above its roof: " + fmt("%.1f%%", r.utilisation * 100) + " of " +
                                 (r.peak > 0 ? r.peak_source : r.formula) + "; the peak or the work count is wrong, so treat this point with suspicion");
    return k;
}

}  // namespace roofline
