#include "kernel_facts.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::rules {
namespace {

const std::vector<std::string>& bound_names() {
    static const std::vector<std::string> b = {"memory", "compute", "latency", "small_grid", "launch"};
    return b;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& derived_fact_docs() {
    static const std::vector<std::pair<std::string, std::string>> docs = {
        {"duration_ns", "total GPU time of the kernel over its launches"},
        {"per_launch_ns", "mean duration of one launch"},
        {"launches", "number of launches"},
        {"pct_of_roof", "floor / duration x 100: how close the binding resource is to its peak"},
        {"floor_ns", "the largest time-at-peak over every resource"},
        {"flops", "FLOPs over all precisions"},
        {"grid_blocks", "launch__grid_size"},
        {"waves", "launch__waves_per_multiprocessor"},
        {"tail_idle_share", "(ceil(waves) - waves) / ceil(waves): the share of block slots the last, partial wave leaves idle over the run"},
        {"sm_count", "SMs on the GPU"},
        {"util_<resource>", "utilisation of a resource (dram, l2, l1, sm, fp32, tensor_bf16, pipe_alu, ...), 0..1"},
        {"peak_<resource>", "the peak of a roofline resource at the capture's clock, per second (dram: bytes, others: FLOP)"},
        {"practical_<resource>", "the share of that roof real kernels reach on this GPU (dram, fp32, fp64, fp16; hwspecs practical_fraction)"},
        {"bytes_dram", "bytes moved to and from DRAM"},
        {"compute_floor_ns", "the time the kernel's FLOPs need on the busiest precision at its practical share (the raw roof where no share is known); 0 when the export counts no FLOPs"},
        {"bound_memory, bound_compute, bound_latency, bound_small_grid, bound_launch", "the classification, true/false"},
        {"limiter_<resource>", "true when the classification names that resource (dram, l2, fp32, ...) as the limiter"},
        {"limiter_tensor", "true when the limiter is a tensor-core precision (tensor_fp16, tensor_bf16, ...)"},
    };
    return docs;
}

std::optional<value_type> fact_type(const std::string& name) {
    static const std::vector<std::string> numbers = {"duration_ns", "per_launch_ns", "launches", "pct_of_roof", "floor_ns",
                                                     "flops", "grid_blocks", "waves", "sm_count", "tail_idle_share", "compute_floor_ns"};
    if (std::find(numbers.begin(), numbers.end(), name) != numbers.end()) return value_type::number;
    // util_<resource>: the resources models/roofline_model can measure.
    static const std::vector<std::string> resources = {
        "fp64", "fp32", "fp16", "tensor_fp64", "tensor_tf32", "tensor_fp16", "tensor_bf16", "tensor_fp8", "tensor_int8",
        "tensor_fp4", "dram", "l2", "l1", "sm", "pipe_alu", "pipe_fma", "pipe_fp64", "pipe_xu", "pipe_lsu", "pipe_uniform",
        "pipe_adu", "pipe_cbu", "pipe_tex", "pipe_tma"};
    for (const char* prefix : {"util_", "peak_", "practical_", "limiter_"}) {
        std::string p = prefix;
        if (name.rfind(p, 0) == 0 && std::find(resources.begin(), resources.end(), name.substr(p.size())) != resources.end())
            return p == "limiter_" ? value_type::boolean : value_type::number;
    }
    if (name == "bytes_dram") return value_type::number;
    if (name == "limiter_tensor") return value_type::boolean;
    for (const auto& b : bound_names())
        if (name == "bound_" + b) return value_type::boolean;
    if (name.find("__") != std::string::npos) return value_type::number;  // an ncu metric id
    return std::nullopt;
}

name_values kernel_facts(const kernel_result& k, const gpu_spec& spec) {
    return [&k, &spec](const std::string& name) -> std::optional<double> {
        const kernel_roofline& r = k.roof;
        if (name == "duration_ns") return r.duration_ns;
        if (name == "per_launch_ns") return r.duration_ns / double(k.group.launches ? k.group.launches : 1);
        if (name == "launches") return double(k.group.launches);
        if (name == "pct_of_roof") return r.placed ? std::optional<double>(r.pct_of_roof) : std::nullopt;
        if (name == "floor_ns") return r.placed ? std::optional<double>(r.floor_ns) : std::nullopt;
        if (name == "flops") return r.flops_counted ? std::optional<double>(r.flops) : std::nullopt;
        if (name == "grid_blocks") return k.shape.grid_blocks > 0 ? std::optional<double>(k.shape.grid_blocks) : std::nullopt;
        if (name == "waves") return k.shape.waves > 0 ? std::optional<double>(k.shape.waves) : std::nullopt;
        if (name == "tail_idle_share") {
            if (k.shape.waves <= 0) return std::nullopt;
            const double whole = std::ceil(k.shape.waves - 1e-9);
            return (whole - k.shape.waves) / whole;
        }
        if (name == "limiter_tensor") return double(k.verdict.limiter.rfind("tensor_", 0) == 0);
        if (name.rfind("limiter_", 0) == 0) return double(k.verdict.limiter == name.substr(8));
        if (name == "sm_count") return k.shape.sm_count > 0 ? std::optional<double>(k.shape.sm_count) : std::nullopt;
        if (name.rfind("util_", 0) == 0) {
            const resource_use* u = r.find(name.substr(5));
            return u ? std::optional<double>(u->utilisation) : std::nullopt;
        }
        if (name.rfind("bound_", 0) == 0) return double(k.verdict.bound == name.substr(6));
        if (name.rfind("peak_", 0) == 0) {
            const std::string res = name.substr(5);
            if (const resource_use* u = r.find(res); u && u->peak > 0) return u->peak;
            // A precision the kernel does not use: the spec's figure at the capture's SM clock,
            // so a rule can ask what the same FLOPs would take on another unit.
            auto it = spec.peaks_tflops.find(res);
            if (it == spec.peaks_tflops.end() || !it->second.value || r.sm_clock_hz <= 0) return std::nullopt;
            double at_hz = it->second.at_clock_mhz.value_or(*spec.boost_clock_mhz.value) * 1e6;
            return *it->second.value * 1e12 * r.sm_clock_hz / at_hz;
        }
        if (name.rfind("practical_", 0) == 0) {
            auto it = spec.practical_fraction.find(name.substr(10));
            return it != spec.practical_fraction.end() ? it->second.value : std::nullopt;
        }
        if (name == "bytes_dram") return r.bytes_dram;
        if (name == "compute_floor_ns") {
            double floor = 0.0;
            for (const auto& u : r.resources) {
                if (!u.is_precision || u.work <= 0 || u.peak <= 0) continue;
                auto share = spec.practical_fraction.find(u.id);
                const double p = share != spec.practical_fraction.end() && share->second.value ? *share->second.value : 1.0;
                floor = std::max(floor, 1e9 * u.work / (u.peak * p));
            }
            return floor;
        }
        auto it = k.group.numbers.find(name);
        if (it == k.group.numbers.end()) return std::nullopt;
        return it->second;
    };
}

}  // namespace roofline::rules
