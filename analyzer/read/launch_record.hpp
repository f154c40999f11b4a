// One profiled kernel launch as the readers hand it on: identity fields and its metrics in
// base units. Metric ids are ncu's full names (`dram__bytes_read.sum`); the details page's
// display names are mapped to these ids by the reader, so nothing downstream sees text units.
#pragma once

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
std::string to_string(const launch_dims& d);

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
    std::size_t line = 0;                      // where the launch starts in its file
    std::size_t invocations = 1;               // >1 only for --print-summary exports
    std::map<std::string, double> numbers;     // metric id -> value in base units
    std::map<std::string, std::string> texts;  // metric id -> non-numeric value
    std::vector<ncu_rule> rules;

    bool has(const std::string& metric) const { return numbers.count(metric) != 0; }
    // The value, or `fallback` when the capture lacks it.
    double get(const std::string& metric, double fallback = 0.0) const {
        auto it = numbers.find(metric);
        return it == numbers.end() ? fallback : it->second;
    }
};

}  // namespace roofline
