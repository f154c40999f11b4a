// A GPU spec made from the capture itself, for a GPU no spec file describes (an L4 before its
// file existed, a GPU released after this build). ncu writes what the roofline needs into every
// raw-page row: the SM count and clock (device attributes), the DRAM peak (bytes per cycle times the
// DRAM clock) and, per precision, the peak instruction or tensor-path rate, which the model already
// prefers to any spec figure. What the capture does not hold stays unknown, and the report says so.
#pragma once

#include "analyzer/read/metric_values.hpp"
#include "models/gpu_match.hpp"
#include "models/gpu_spec.hpp"

#include <optional>
#include <string>

namespace roofline {

struct capture_spec {
    gpu_spec spec;
    std::string unknown;  // what the capture could not tell, for the report ("" when nothing)
};

// nullopt when the capture lacks the SM count, the SM clock or the DRAM peak (a details page, a
// --metrics export): then only a spec file or --gpu can place its kernels.
std::optional<capture_spec> spec_from_capture(const metric_values& metrics, const gpu_identity& id);

// The spec of a GPU nothing identifies: no spec file matches (or several do: a --metrics export
// names no device) and the capture holds no peaks. Every peak is unknown (0), so no kernel is placed
// on a roof; what the capture measured (time, bytes, ncu's own percentages of peak) still is. The
// report says which GPUs it could be and what --gpu adds.
inline constexpr const char* unknown_gpu_id = "unknown";
capture_spec spec_without_peaks(const metric_values& metrics, const gpu_identity& id);

}  // namespace roofline
