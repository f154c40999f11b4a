// What the model reads: one kernel's metrics in base units (summed or time-averaged over its
// launches by analyzer/kernel_table) and nothing else, so models/ never sees CSV or text.
#pragma once

#include "analyzer/read/metric_values.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace roofline {

struct metric_view {
    const metric_values& metrics;
    std::size_t launches = 1;

    std::optional<double> find(const std::string& id) const { return metrics.find(id); }
    // The first of several ids that the capture holds.
    std::optional<double> first_of(std::initializer_list<const char*> ids) const {
        for (const char* id : ids)
            if (auto value = find(id)) return value;
        return std::nullopt;
    }
};

}  // namespace roofline
