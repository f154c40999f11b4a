#include "analyzer/compare/timeline_diff.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/timeline/trace_file.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace roofline::timeline {
namespace {

trace_side side_of(const std::string& path, std::int64_t min_gap_ns) {
    trace_side side;
    side.source = std::make_unique<trace>(read_trace_file(path));
    side.model = model_timeline(*side.source, min_gap_ns);
    side.findings = timeline_findings(side.model);
    return side;
}

// A device's time per step: the span of the GPU work its steps launched over their count, or the
// span where the trace marks none.
double step_ns(const device_timeline& device, const step_figures& steps, bool per_step) {
    return per_step ? double(device.steps_span_ns()) / double(steps.count) : double(device.span_ns());
}

std::map<std::string, const kernel_total*> by_name(const trace& source, const device_timeline& device) {
    std::map<std::string, const kernel_total*> out;
    for (const auto& kernel : device.kernel_totals) out[source.name(kernel.name)] = &kernel;
    return out;
}

void compare_kernels(const trace_side& base, const trace_side& next, device_change& device_diff) {
    const auto base_kernels = by_name(*base.source, *device_diff.base),
               next_kernels = by_name(*next.source, *device_diff.next);
    for (const auto& [name, kernel] : base_kernels) {
        auto it = next_kernels.find(name);
        if (it == next_kernels.end()) {
            device_diff.gone.push_back({name, kernel->total_ns, 0, kernel->launches, 0});
        } else {
            device_diff.moved.push_back(
                {name, kernel->total_ns, it->second->total_ns, kernel->launches, it->second->launches});
        }
    }
    for (const auto& [name, kernel] : next_kernels)
        if (!base_kernels.count(name)) device_diff.appeared.push_back({name, 0, kernel->total_ns, 0, kernel->launches});
    auto by_size = [](const kernel_change& left, const kernel_change& right) {
        const auto left_delta = std::llabs(left.next_ns - left.base_ns),
                   right_delta = std::llabs(right.next_ns - right.base_ns);
        return left_delta != right_delta ? left_delta > right_delta : left.name < right.name;
    };
    for (auto* changes : {&device_diff.gone, &device_diff.appeared, &device_diff.moved})
        std::sort(changes->begin(), changes->end(), by_size);
    if (device_diff.moved.size() > 10) device_diff.moved.resize(10);
}

}  // namespace

timeline_diff diff_traces(const std::string& base_path, const std::string& next_path, std::int64_t min_gap_ns,
                          std::optional<double> fail_if_slower_pct, double noise_pct) {
    timeline_diff diff;
    diff.base = side_of(base_path, min_gap_ns);
    diff.next = side_of(next_path, min_gap_ns);
    diff.fail_if_slower_pct = fail_if_slower_pct;
    diff.noise_pct = noise_pct;
    diff.per_step = diff.base.model.steps.count > 0 && diff.next.model.steps.count > 0;
    std::map<std::int32_t, device_change> devices;
    for (const auto& dev : diff.base.model.devices) devices[dev.device].base = &dev;
    for (const auto& dev : diff.next.model.devices) devices[dev.device].next = &dev;
    for (auto& [id, device_diff] : devices) {
        device_diff.device = id;
        if (device_diff.base)
            device_diff.base_step_ns = step_ns(*device_diff.base, diff.base.model.steps, diff.per_step);
        if (device_diff.next)
            device_diff.next_step_ns = step_ns(*device_diff.next, diff.next.model.steps, diff.per_step);
        if (device_diff.base && device_diff.next) {
            if (device_diff.base_step_ns > 0)
                device_diff.change_pct =
                    (device_diff.next_step_ns - device_diff.base_step_ns) / device_diff.base_step_ns * 100.0;
            compare_kernels(diff.base, diff.next, device_diff);
            if (fail_if_slower_pct && device_diff.change_pct && *device_diff.change_pct > *fail_if_slower_pct &&
                *device_diff.change_pct > noise_pct)
                diff.gate_failures.push_back("GPU " + std::to_string(id) + ": " + decimals(*device_diff.change_pct, 2) +
                                             "% slower " + (diff.per_step ? "per step" : "over its span"));
        }
        diff.devices.push_back(std::move(device_diff));
    }
    return diff;
}

}  // namespace roofline::timeline
