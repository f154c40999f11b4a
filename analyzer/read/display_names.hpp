// Maps the details page's display names ("GPU Speed Of Light Throughput" / "Duration") to
// the metric ids of the raw page (`gpu__time_duration.sum`). Each pair was matched by value
// on a real H100 capture (ncu 2025.3.1, examples/h100/kernels_*): same kernel, same number.
#pragma once

#include <string>
#include <string_view>

namespace roofline {

// The metric id for a (section, display name) pair, or "" when the pair is not mapped.
std::string metric_id_for_display(std::string_view section, std::string_view display);

}  // namespace roofline
