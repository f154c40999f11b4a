#include "analyzer/read/kernel_table.hpp"

#include "analyzer/read/chip_names.hpp"

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
        a.group.cc = launch.cc;
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
    const std::size_t slots = metric_read_count();
    if (a.sum.size() < slots) {
        a.sum.resize(slots, 0.0);
        a.weighted.resize(slots, 0.0);
        a.weight_of.resize(slots, 0.0);
        a.present.resize(slots, false);
    }
    if (last_seen_.size() < slots) last_seen_.resize(slots, 0);
    ++serial_;
    // The last value of a metric set twice in one launch counts, as a map would keep it. Metrics no
    // stage reads are not kept.
    for (auto it = launch.values.rbegin(); it != launch.values.rend(); ++it) {
        const auto [k, v] = *it;
        const int slot = metric_read_index(k);
        if (slot < 0 || last_seen_[slot] == serial_) continue;
        last_seen_[slot] = serial_;
        a.present[slot] = true;
        if (metric_key_is_additive(k)) {
            a.sum[slot] += v * n;
        } else {
            a.weighted[slot] += v * w;
            a.weight_of[slot] += w;
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
        for (std::size_t slot = 0; slot < a.present.size(); ++slot) {
            if (!a.present[slot]) continue;
            const metric_key k = metric_read_key(slot);
            if (metric_key_is_additive(k))
                a.group.metrics.set(k, a.sum[slot]);
            else if (a.weight_of[slot] > 0)
                a.group.metrics.set(k, a.weighted[slot] / a.weight_of[slot]);
        }
        resolve_chip_names(a.group.metrics, chip_for_cc(a.group.cc));
        out.push_back(std::move(a.group));
    }
    groups_.clear();
    index_.clear();
    return out;
}

}  // namespace roofline
