#include "models/kernel_result.hpp"

namespace roofline {
namespace {

launch_shape shape_of(const kernel_group& group) {
    metric_view view{group.metrics, group.launches};
    launch_shape shape;
    shape.launches = group.launches;
    shape.grid_blocks = view.find("launch__grid_size").value_or(0.0);
    shape.waves = view.find("launch__waves_per_multiprocessor").value_or(0.0);
    shape.sm_count = view.first_of({"launch__sm_count", "device__attribute_multiprocessor_count"}).value_or(0.0);
    return shape;
}

// The tensor precision a library kernel's name states (its math fact), where it is a tensor path.
std::optional<resource> tensor_precision_named(const origin_facts& facts) {
    static const std::pair<const char*, resource> named[] = {
        {"tf32_tensor", resource::tensor_tf32}, {"bf16_tensor", resource::tensor_bf16},
        {"fp16_tensor", resource::tensor_fp16}, {"fp8_tensor", resource::tensor_fp8},
        {"int8_tensor", resource::tensor_int8}, {"fp64_tensor", resource::tensor_fp64}};
    for (const auto& [math, precision] : named)
        if (facts.math == math) return precision;
    return std::nullopt;
}

name_hints hints_of(const kernel_origin& origin) {
    name_hints named;
    named.wgmma = wgmma_named(origin.facts).value_or(false);
    named.tensor_precision = tensor_precision_named(origin.facts);
    named.no_mma = origin.facts.math == "no_mma";
    return named;
}

}  // namespace

kernel_result model_kernel(kernel_group group, const gpu_spec& spec) {
    kernel_result result;
    result.origin = classify_origin(group.name);
    result.roof = build_roofline(metric_view{group.metrics, group.launches}, spec, hints_of(result.origin));
    result.shape = shape_of(group);
    result.verdict = classify(result.roof, result.shape);
    result.group = std::move(group);
    return result;
}

kernel_result at_least_work(const kernel_result& kernel, const gpu_spec& spec) {
    kernel_result result = kernel;
    result.roof = build_roofline(metric_view{kernel.group.metrics, kernel.group.launches}, spec,
                                 hints_of(kernel.origin), roof_reading::least_work);
    result.verdict = classify(result.roof, result.shape);
    return result;
}

}  // namespace roofline
