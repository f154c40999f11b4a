// The roofline of one kernel: for every resource it uses, the work it did, the peak of that
// resource at the clock the capture ran at, and the fraction of the kernel's time the
// resource needed at peak (utilisation). The largest utilisation binds; its share of the
// duration is the kernel's floor.
#pragma once

#include "gpu_spec.hpp"
#include "metric_view.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

enum class resource_kind { compute, memory };

struct resource_use {
    std::string id;          // fp32, tensor_bf16, dram, l2, l1, sm, pipe_alu, ...
    resource_kind kind = resource_kind::compute;
    bool is_precision = false;  // a FLOP roof (fp*/tensor_*), as opposed to a pipe or unit
    double work = 0.0;       // FLOPs or bytes; 0 when only a utilisation is known
    double peak = 0.0;       // per second at the capture's clock; 0 when not applicable
    std::string peak_source;  // "measured: ..." or "spec: ..."
    double utilisation = 0.0;  // time at peak / duration (1.0 = on the roof)
    std::string formula;     // how utilisation was computed, with metric names
};

struct kernel_roofline {
    bool placed = false;          // false: no duration in the capture
    std::string missing;          // what is missing when not placed
    double duration_ns = 0.0;
    double sm_clock_hz = 0.0;
    std::string sm_clock_source;
    double dram_clock_hz = 0.0;
    std::vector<resource_use> resources;  // in a fixed order: precisions, pipes, sm, memory levels
    double flops = 0.0;                    // all precisions together
    bool flops_counted = false;            // the capture holds FLOP counters (the details page does not)
    std::optional<double> bytes_dram, bytes_l2, bytes_l1;
    double floor_ns = 0.0;
    double pct_of_roof = 0.0;     // floor / duration, in percent
    std::string binding;          // the resource with the largest utilisation
    std::vector<std::string> warnings;  // above-roof points, spec disagreements

    const resource_use* find(const std::string& id) const;
    // FLOP per byte at a level ("dram", "l2", "l1"); nullopt without FLOP counters or bytes.
    std::optional<double> intensity(const std::string& level) const;
};

// Builds the roofline from a kernel's metrics and the spec of the GPU it ran on.
kernel_roofline build_roofline(const metric_view& m, const gpu_spec& spec);

}  // namespace roofline
