#include "models/resources.hpp"

#include <stdexcept>

namespace roofline {

const std::vector<resource_info>& all_resources() {
    using kind = resource_kind;
    using id = resource;
    // id, name, kind, precision, tensor, pipe, in_floor, work unit
    static const std::vector<resource_info> table = {
        {id::fp64, "fp64", kind::compute, true, false, false, true, "FLOP"},
        {id::fp32, "fp32", kind::compute, true, false, false, true, "FLOP"},
        {id::fp16, "fp16", kind::compute, true, false, false, true, "FLOP"},
        {id::tensor_fp64, "tensor_fp64", kind::compute, true, true, false, true, "FLOP"},
        {id::tensor_tf32, "tensor_tf32", kind::compute, true, true, false, true, "FLOP"},
        {id::tensor_fp16, "tensor_fp16", kind::compute, true, true, false, true, "FLOP"},
        {id::tensor_bf16, "tensor_bf16", kind::compute, true, true, false, true, "FLOP"},
        {id::tensor_fp8, "tensor_fp8", kind::compute, true, true, false, true, "FLOP"},
        {id::tensor_int8, "tensor_int8", kind::compute, true, true, false, true, "OP"},
        {id::tensor_fp4, "tensor_fp4", kind::compute, true, true, false, true, "FLOP"},
        {id::dram, "dram", kind::memory, false, false, false, true, "B"},
        {id::l2, "l2", kind::memory, false, false, false, true, "B"},
        {id::l1, "l1", kind::memory, false, false, false, true, "B"},
        {id::sm, "sm", kind::compute, false, false, false, false, ""},
        {id::issue, "issue", kind::compute, false, false, false, true, ""},
        {id::pipe_alu, "pipe_alu", kind::compute, false, false, true, true, ""},
        {id::pipe_fma, "pipe_fma", kind::compute, false, false, true, true, ""},
        {id::pipe_fp64, "pipe_fp64", kind::compute, false, false, true, true, ""},
        {id::pipe_xu, "pipe_xu", kind::compute, false, false, true, true, ""},
        {id::pipe_lsu, "pipe_lsu", kind::compute, false, false, true, true, ""},
        {id::pipe_uniform, "pipe_uniform", kind::compute, false, false, true, true, ""},
        {id::pipe_adu, "pipe_adu", kind::compute, false, false, true, true, ""},
        {id::pipe_cbu, "pipe_cbu", kind::compute, false, false, true, true, ""},
        {id::pipe_tex, "pipe_tex", kind::compute, false, false, true, true, ""},
        {id::pipe_tma, "pipe_tma", kind::compute, false, false, true, true, ""},
        {id::pipe_tensor, "pipe_tensor", kind::compute, false, false, true, false, ""},
    };
    return table;
}

const resource_info& info(resource id) {
    const auto& entries = all_resources();
    const auto position = static_cast<std::size_t>(id);
    if (position >= entries.size() || entries[position].id != id) throw std::logic_error("resource table out of order");
    return entries[position];
}

const char* name(resource id) { return info(id).name; }

std::optional<resource> resource_named(std::string_view wanted) {
    for (const auto& entry : all_resources())
        if (wanted == entry.name) return entry.id;
    return std::nullopt;
}

const std::vector<resource>& precisions() {
    static const std::vector<resource> precision_ids = [] {
        std::vector<resource> out;
        for (const auto& entry : all_resources())
            if (entry.precision) out.push_back(entry.id);
        return out;
    }();
    return precision_ids;
}

std::string resource_names(bool precisions_only) {
    std::string names;
    for (const auto& entry : all_resources())
        if (!precisions_only || entry.precision) names += (names.empty() ? "" : ", ") + std::string(entry.name);
    return names;
}

const char* name(bound value) {
    switch (value) {
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

std::optional<bound> bound_named(std::string_view wanted) {
    for (bound candidate : all_bounds())
        if (wanted == name(candidate)) return candidate;
    return std::nullopt;
}

const std::vector<bound>& all_bounds() {
    static const std::vector<bound> bounds = {bound::memory,     bound::compute, bound::latency,
                                              bound::small_grid, bound::launch,  bound::unknown};
    return bounds;
}

}  // namespace roofline
