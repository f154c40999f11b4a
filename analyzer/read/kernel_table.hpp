// Folds launches into kernels: one entry per (name, block size, grid size), in order of first
// launch, keeping the metrics some stage reads (the metric catalogue), with the chip's counter names
// mapped onto the catalogue's ids (chip_names.hpp). Counters (`.sum`, `.avg`,
// `.min`, `.max` of a counter) add up over launches; rates,
// percentages and ratios are averaged, weighted by each launch's duration. Memory grows
// with the number of distinct kernels, not with launches.
#pragma once

#include "analyzer/read/launch_record.hpp"
#include "analyzer/read/metric_values.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace roofline {

struct kernel_group {
    std::string name;
    std::optional<launch_dims> block_size;
    std::optional<launch_dims> grid_size;
    std::string cc;  // the compute capability of the first launch ("9.0"; "" where the export has none)
    std::string first_id;
    std::size_t first_line = 0;
    std::size_t launches = 0;
    metric_values metrics;                     // aggregated, base units
    std::map<std::string, std::string> texts;  // from the first launch
    std::vector<ncu_rule> rules;               // distinct rules over all launches
};

// Whether a metric adds up over launches (a counter) or is averaged (a rate or ratio).
bool metric_is_additive(const std::string& id);

class kernel_table {
public:
    void add(launch_record&& launch);
    // The kernels, with averaged metrics finished.
    std::vector<kernel_group> finish();

private:
    // Flat arrays with one slot per metric some stage reads (metric_keys.hpp): a cell is an add, not a
    // map insert. About 160 of --set full's 2,200 metrics: some 5 KB per distinct kernel.
    struct accumulator {
        kernel_group group;
        double weight = 0.0;            // sum of launch durations (ns) for the weighted means
        std::vector<double> sum;        // counters: value x invocations, summed
        std::vector<double> weighted;   // averaged metrics: value x weight, summed
        std::vector<double> weight_of;  // the weights of the launches that had the metric
        std::vector<bool> present;
    };
    std::vector<std::uint64_t> last_seen_;  // per slot: the launch that last set it
    std::uint64_t serial_ = 0;
    using key = std::tuple<std::string, std::optional<launch_dims>, std::optional<launch_dims>>;
    std::map<key, std::size_t> index_;
    std::vector<accumulator> groups_;
};

}  // namespace roofline
