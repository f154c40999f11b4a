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

}  // namespace

kernel_result model_kernel(kernel_group group, const gpu_spec& spec) {
    kernel_result result;
    result.origin = classify_origin(group.name);
    result.roof = build_roofline(metric_view{group.metrics, group.launches}, spec,
                                 wgmma_named(result.origin.facts).value_or(false));
    result.shape = shape_of(group);
    result.verdict = classify(result.roof, result.shape);
    result.group = std::move(group);
    return result;
}

}  // namespace roofline
