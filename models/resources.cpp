#include "models/resources.hpp"

#include <stdexcept>

namespace roofline {

const std::vector<resource_info>& all_resources() {
    using k = resource_kind;
    using r = resource;
    // id, name, kind, precision, tensor, pipe, in_floor, work unit
    static const std::vector<resource_info> table = {
        {r::fp64, "fp64", k::compute, true, false, false, true, "FLOP"},
        {r::fp32, "fp32", k::compute, true, false, false, true, "FLOP"},
        {r::fp16, "fp16", k::compute, true, false, false, true, "FLOP"},
        {r::tensor_fp64, "tensor_fp64", k::compute, true, true, false, true, "FLOP"},
        {r::tensor_tf32, "tensor_tf32", k::compute, true, true, false, true, "FLOP"},
        {r::tensor_fp16, "tensor_fp16", k::compute, true, true, false, true, "FLOP"},
        {r::tensor_bf16, "tensor_bf16", k::compute, true, true, false, true, "FLOP"},
        {r::tensor_fp8, "tensor_fp8", k::compute, true, true, false, true, "FLOP"},
        {r::tensor_int8, "tensor_int8", k::compute, true, true, false, true, "OP"},
        {r::tensor_fp4, "tensor_fp4", k::compute, true, true, false, true, "FLOP"},
        {r::dram, "dram", k::memory, false, false, false, true, "B"},
        {r::l2, "l2", k::memory, false, false, false, true, "B"},
        {r::l1, "l1", k::memory, false, false, false, true, "B"},
        {r::sm, "sm", k::compute, false, false, false, false, ""},
        {r::issue, "issue", k::compute, false, false, false, true, ""},
        {r::pipe_alu, "pipe_alu", k::compute, false, false, true, true, ""},
        {r::pipe_fma, "pipe_fma", k::compute, false, false, true, true, ""},
        {r::pipe_fp64, "pipe_fp64", k::compute, false, false, true, true, ""},
        {r::pipe_xu, "pipe_xu", k::compute, false, false, true, true, ""},
        {r::pipe_lsu, "pipe_lsu", k::compute, false, false, true, true, ""},
        {r::pipe_uniform, "pipe_uniform", k::compute, false, false, true, true, ""},
        {r::pipe_adu, "pipe_adu", k::compute, false, false, true, true, ""},
        {r::pipe_cbu, "pipe_cbu", k::compute, false, false, true, true, ""},
        {r::pipe_tex, "pipe_tex", k::compute, false, false, true, true, ""},
        {r::pipe_tma, "pipe_tma", k::compute, false, false, true, true, ""},
        {r::pipe_tensor, "pipe_tensor", k::compute, false, false, true, false, ""},
    };
    return table;
}

const resource_info& info(resource r) {
    const auto& t = all_resources();
    const auto i = static_cast<std::size_t>(r);
    if (i >= t.size() || t[i].id != r) throw std::logic_error("resource table out of order");
    return t[i];
}

const char* name(resource r) { return info(r).name; }

std::optional<resource> resource_named(std::string_view n) {
    for (const auto& r : all_resources())
        if (n == r.name) return r.id;
    return std::nullopt;
}

const std::vector<resource>& precisions() {
    static const std::vector<resource> p = [] {
        std::vector<resource> out;
        for (const auto& r : all_resources())
            if (r.precision) out.push_back(r.id);
        return out;
    }();
    return p;
}

std::string resource_names(bool precisions_only) {
    std::string s;
    for (const auto& r : all_resources())
        if (!precisions_only || r.precision) s += (s.empty() ? "" : ", ") + std::string(r.name);
    return s;
}

const char* name(bound b) {
    switch (b) {
        case bound::memory:
            return "memory";
        case bound::compute:
            return "compute";
        case bound::latency:
            return "latency";
        case bound::small_grid:
            return "small_grid";
        case bound::launch:
            return "launch";
        case bound::unknown:
            return "unknown";
    }
    return "unknown";
}

std::optional<bound> bound_named(std::string_view n) {
    for (bound b : all_bounds())
        if (n == name(b)) return b;
    return std::nullopt;
}

const std::vector<bound>& all_bounds() {
    static const std::vector<bound> b = {bound::memory,     bound::compute, bound::latency,
                                         bound::small_grid, bound::launch,  bound::unknown};
    return b;
}

}  // namespace roofline
