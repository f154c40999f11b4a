// One profiled kernel launch as the readers hand it on: identity fields and its metrics in
// base units. Metric ids are ncu's full names (`dram__bytes_read.sum`); the details page's
// display names are mapped to these ids by the reader, so nothing downstream sees text units.
#pragma once

#include "analyzer/read/metric_keys.hpp"

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

// A block or grid size: threads or blocks along x, y and z.
struct launch_dims {
    std::array<long, 3> xyz{0, 0, 0};
    long count() const { return xyz[0] * xyz[1] * xyz[2]; }
    bool operator==(const launch_dims&) const = default;
    auto operator<=>(const launch_dims&) const = default;
};
// "(256, 1, 1)" as ncu writes it; nullopt for any other text.
std::optional<launch_dims> parse_launch_dims(std::string_view text);
// Back to ncu's spelling: "(256, 1, 1)".
std::string to_string(const launch_dims& shape);

// An ncu rule row ("Nsight Compute says"), kept as it was written.
struct ncu_rule {
    std::string section;
    std::string name;
    std::string type;  // OPT, INF, WRN
    std::string description;
    std::string speedup_type;       // local, global or empty
    double est_speedup_pct = -1.0;  // negative when the row gives none
};

struct launch_record {
    std::string id;  // ncu's "ID" column (launch order within the capture)
    std::string kernel_name;
    std::optional<launch_dims> block_size;  // nullopt where the export has no such column
    std::optional<launch_dims> grid_size;
    std::string device;
    std::string cc;
    std::size_t line = 0;         // where the launch starts in its file
    std::size_t invocations = 1;  // >1 only for --print-summary exports
    // Metric values in base units, by interned id (metric_keys.hpp), in the order read; a metric
    // set twice keeps its last value.
    std::vector<std::pair<metric_key, double>> values;
    std::map<std::string, std::string> texts;  // metric id -> non-numeric value
    std::vector<ncu_rule> rules;

    void set(metric_key key, double value) { values.emplace_back(key, value); }
    void set(std::string_view metric, double value) { set(intern_metric(metric), value); }
    bool has(std::string_view metric) const { return find(metric) != nullptr; }
    // The value, or `fallback` when the capture lacks it.
    double get(std::string_view metric, double fallback = 0.0) const {
        const double* found = find(metric);
        return found ? *found : fallback;
    }

private:
    const double* find(std::string_view metric) const {
        const auto key = find_metric_key(metric);  // a lookup: no key is made for a name never set
        if (!key) return nullptr;
        for (auto it = values.rbegin(); it != values.rend(); ++it)
            if (it->first == *key) return &it->second;
        return nullptr;
    }
};

}  // namespace roofline
