#include "models/kernel_result.hpp"

namespace roofline {
namespace {

launch_shape shape_of(const kernel_group& g) {
    metric_view m{g.metrics, g.launches};
    launch_shape s;
    s.launches = g.launches;
    s.grid_blocks = m.find("launch__grid_size").value_or(0.0);
    s.waves = m.find("launch__waves_per_multiprocessor").value_or(0.0);
    s.sm_count = m.first_of({"launch__sm_count", "device__attribute_multiprocessor_count"}).value_or(0.0);
    return s;
}

}  // namespace

kernel_result model_kernel(kernel_group group, const gpu_spec& spec) {
    kernel_result r;
    r.origin = classify_origin(group.name);
    r.roof =
        build_roofline(metric_view{group.metrics, group.launches}, spec, wgmma_named(r.origin.facts).value_or(false));
    r.shape = shape_of(group);
    r.verdict = classify(r.roof, r.shape);
    r.group = std::move(group);
    return r;
}

}  // namespace roofline
