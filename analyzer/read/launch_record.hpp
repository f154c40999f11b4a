// One profiled kernel launch as the readers hand it on: identity fields and its metrics in
// base units. Metric ids are ncu's full names (`dram__bytes_read.sum`); the details page's
// display names are mapped to these ids by the reader, so nothing downstream sees text units.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace roofline {

// An ncu rule row ("Nsight Compute says"), kept as it was written.
struct ncu_rule {
    std::string section;
    std::string name;
    std::string type;  // OPT, INF, WRN
    std::string description;
    std::string speedup_type;  // local, global or empty
    double est_speedup_pct = -1.0;  // negative when the row gives none
};

struct launch_record {
    std::string id;  // ncu's "ID" column (launch order within the capture)
    std::string kernel_name;
    std::string block_size;  // "(256, 1, 1)"
    std::string grid_size;
    std::string device;
    std::string cc;
    std::size_t line = 0;      // where the launch starts in its file
    std::size_t invocations = 1;  // >1 only for --print-summary exports
    std::map<std::string, double> numbers;    // metric id -> value in base units
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
