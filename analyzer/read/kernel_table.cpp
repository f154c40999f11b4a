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
        accumulator fresh;
        fresh.group.name = launch.kernel_name;
        fresh.group.block_size = launch.block_size;
        fresh.group.grid_size = launch.grid_size;
        fresh.group.cc = launch.cc;
        fresh.group.first_id = launch.id;
        fresh.group.first_line = launch.line;
        fresh.group.texts = launch.texts;
        groups_.push_back(std::move(fresh));
    }
    accumulator& acc = groups_[it->second];
    const double invocations = double(launch.invocations);
    acc.group.launches += launch.invocations;
    // Launches without a duration still count, with a nominal weight, so their rates are kept.
    double weight = launch.get("gpu__time_duration.sum", 1.0) * invocations;
    acc.weight += weight;
    const std::size_t slots = metric_read_count();
    if (acc.sum.size() < slots) {
        acc.sum.resize(slots, 0.0);
        acc.weighted.resize(slots, 0.0);
        acc.weight_of.resize(slots, 0.0);
        acc.present.resize(slots, false);
    }
    if (last_seen_.size() < slots) last_seen_.resize(slots, 0);
    ++serial_;
    // The last value of a metric set twice in one launch counts, as a map would keep it. Metrics no
    // stage reads are not kept.
    for (auto it = launch.values.rbegin(); it != launch.values.rend(); ++it) {
        const auto [metric_id, value] = *it;
        const int slot = metric_read_index(metric_id);
        if (slot < 0 || last_seen_[slot] == serial_) continue;
        last_seen_[slot] = serial_;
        acc.present[slot] = true;
        if (metric_key_is_additive(metric_id)) {
            acc.sum[slot] += value * invocations;
        } else {
            acc.weighted[slot] += value * weight;
            acc.weight_of[slot] += weight;
        }
    }
    for (auto& rule : launch.rules) {
        bool seen = std::any_of(acc.group.rules.begin(), acc.group.rules.end(), [&](const ncu_rule& kept) {
            return kept.name == rule.name && kept.description == rule.description;
        });
        if (!seen) acc.group.rules.push_back(std::move(rule));
    }
}

std::vector<kernel_group> kernel_table::finish() {
    std::vector<kernel_group> out;
    out.reserve(groups_.size());
    for (auto& acc : groups_) {
        for (std::size_t slot = 0; slot < acc.present.size(); ++slot) {
            if (!acc.present[slot]) continue;
            const metric_key metric_id = metric_read_key(slot);
            if (metric_key_is_additive(metric_id))
                acc.group.metrics.set(metric_id, acc.sum[slot]);
            else if (acc.weight_of[slot] > 0)
                acc.group.metrics.set(metric_id, acc.weighted[slot] / acc.weight_of[slot]);
        }
        resolve_chip_names(acc.group.metrics, chip_for_cc(acc.group.cc));
        out.push_back(std::move(acc.group));
    }
    groups_.clear();
    index_.clear();
    return out;
}

}  // namespace roofline
