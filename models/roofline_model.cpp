#include "models/roofline_model.hpp"

#include "models/roofline_parts.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {

const resource_use* kernel_roofline::find(resource id) const {
    for (const auto& r : resources)
        if (r.id == id) return &r;
    return nullptr;
}

std::optional<double> kernel_roofline::intensity(resource level) const {
    const std::optional<double>& b = level == resource::dram ? bytes_dram : level == resource::l2 ? bytes_l2 : bytes_l1;
    if (!b || *b <= 0 || !flops_counted) return std::nullopt;
    return flops / *b;
}

namespace detail {

void check_against_spec(kernel_roofline& k, const std::string& what, double measured, double spec_value) {
    if (spec_value <= 0 || measured <= 0) return;
    double ratio = measured / spec_value;
    if (std::fabs(ratio - 1.0) > 0.10)
        k.warnings.push_back(what + ": the capture's measured peak " + general(measured, 4) + " differs from the spec's " +
                             general(spec_value, 4) + " (at the same clock) by " + signed_fixed((ratio - 1.0) * 100, 0) + "%" +
                             "; the measured peak is used");
}

}  // namespace detail

std::pair<double, std::string> practical_share_of(const gpu_spec& spec, resource r) {
    auto it = spec.practical_fraction.find(r);
    if (it != spec.practical_fraction.end() && it->second.value) return {*it->second.value, it->second.source};
    if (info(r).tensor) {
        double sum = 0.0;
        std::string from;
        int n = 0;
        for (const auto& [id, share] : spec.practical_fraction)
            if (info(id).tensor && share.value) {
                sum += *share.value;
                from += (from.empty() ? "" : ", ") + std::string(name(id));
                ++n;
            }
        if (n > 0)
            return {sum / n, "none measured for " + std::string(name(r)) + "; the mean of this GPU's measured tensor shares (" + from +
                                 "): the same pipe and the same operand feed"};
    }
    return {1.0, "none measured: the raw peak (estimates stay upper bounds)"};
}

kernel_roofline build_roofline(const metric_view& m, const gpu_spec& spec) {
    kernel_roofline k;
    auto duration = m.find("gpu__time_duration.sum");
    if (!duration || *duration <= 0) {
        k.missing = "gpu__time_duration.sum (collect it with --section SpeedOfLight or --metrics gpu__time_duration.sum)";
        return k;
    }
    k.placed = true;
    k.duration_ns = *duration;
    if (auto clk = m.first_of(
            {"sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second"})) {
        k.sm_clock_hz = *clk;
        k.sm_clock_source = "sm__cycles_elapsed.avg.per_second";
    } else {
        k.sm_clock_hz = spec.boost_clock_mhz.value * 1e6;
        k.sm_clock_source = "spec boost clock (the capture holds no SM clock)";
    }
    k.dram_clock_hz = m.find("dram__cycles_elapsed.avg.per_second").value_or(0.0);
    detail::add_precisions(k, m, spec);
    detail::add_pipes(k, m);
    detail::add_memory(k, m, spec);
    detail::add_chart_ceilings(k, m, spec);
    const resource_use* top = nullptr;
    const resource_use* top_practical = nullptr;
    for (auto& r : k.resources) {
        auto [share, source] = practical_share_of(spec, r.id);
        r.practical = share;
        r.practical_source = source;
        r.floor_ns = r.useful * k.duration_ns / share;
        if (!info(r.id).in_floor) continue;
        if (!top || r.useful > top->useful) top = &r;
        if (!top_practical || r.floor_ns > top_practical->floor_ns) top_practical = &r;
    }
    if (top) {
        k.binding = top->id;
        k.pct_of_roof = top->useful * 100.0;
        k.floor_ns = top->useful * k.duration_ns;
        k.binding_practical = top_practical->id;
        k.practical_floor_ns = top_practical->floor_ns;
    }
    for (const auto& r : k.resources)
        if (r.useful > 1.0)
            k.warnings.push_back(std::string(name(r.id)) + " is above its roof: " + format_percent(r.useful) + " of " +
                                 (r.peak > 0 ? r.peak_source : r.formula) +
                                 "; the peak or the work count is wrong, so treat this point with suspicion");
    return k;
}

}  // namespace roofline
