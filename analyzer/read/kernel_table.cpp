#include "analyzer/read/kernel_table.hpp"

#include <algorithm>

namespace roofline {

bool metric_is_additive(const std::string& id) {
    // Launch and device attributes describe the launch, not work done in it.
    if (id.rfind("launch__", 0) == 0 || id.rfind("device__", 0) == 0 || id.rfind("display:", 0) == 0) return false;
    // Counters end in their rollup (dram__bytes_read.sum, lts__t_sectors.avg); rates, ratios
    // and percentages end in their own suffix (.per_second, .pct_of_peak_sustained_elapsed,
    // .ratio, .pct, .peak_sustained), so the last component decides.
    auto dot = id.rfind('.');
    if (dot == std::string::npos) return false;
    const std::string last = id.substr(dot + 1);
    return last == "sum" || last == "avg" || last == "min" || last == "max";
}

void kernel_table::add(launch_record&& launch) {
    auto [it, inserted] = index_.emplace(key{launch.kernel_name, launch.block_size, launch.grid_size}, groups_.size());
    if (inserted) {
        accumulator a;
        a.group.name = launch.kernel_name;
        a.group.block_size = launch.block_size;
        a.group.grid_size = launch.grid_size;
        a.group.first_id = launch.id;
        a.group.first_line = launch.line;
        a.group.texts = launch.texts;
        groups_.push_back(std::move(a));
    }
    accumulator& a = groups_[it->second];
    const double n = double(launch.invocations);
    a.group.launches += launch.invocations;
    // Launches without a duration still count, with a nominal weight, so their rates are kept.
    double w = launch.get("gpu__time_duration.sum", 1.0) * n;
    a.weight += w;
    for (const auto& [id, v] : launch.numbers) {
        if (metric_is_additive(id)) {
            a.group.numbers[id] += v * n;
        } else {
            a.weighted[id] += v * w;
            a.weight_of[id] += w;
        }
    }
    for (auto& r : launch.rules) {
        bool seen = std::any_of(a.group.rules.begin(), a.group.rules.end(),
                                [&](const ncu_rule& o) { return o.name == r.name && o.description == r.description; });
        if (!seen) a.group.rules.push_back(std::move(r));
    }
}

std::vector<kernel_group> kernel_table::finish() {
    std::vector<kernel_group> out;
    out.reserve(groups_.size());
    for (auto& a : groups_) {
        for (const auto& [id, sum] : a.weighted) {
            double w = a.weight_of[id];
            if (w > 0) a.group.numbers[id] = sum / w;
        }
        out.push_back(std::move(a.group));
    }
    groups_.clear();
    index_.clear();
    return out;
}

}  // namespace roofline
