// The parts of models/roofline_model.cpp's build_roofline, one file per kind of roof: the FLOP
// roofs (flop_roofs.cpp), the pipes, issue slots and SM (unit_roofs.cpp), and the memory levels
// (memory_roofs.cpp). Internal to models/: nothing outside includes it.
#pragma once

#include "models/roofline_model.hpp"

#include <string>

namespace roofline::detail {

// Adds the resources of one kind to `roof` (duration and clocks already set).
void add_precisions(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec);
void add_pipes(kernel_roofline& roof, const metric_view& metrics);
void add_memory(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec);
void add_chart_ceilings(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec);
// A warning on `roof` when a measured peak differs from the spec's by more than 10%.
void check_against_spec(kernel_roofline& roof, resource id, double measured, double spec_value);

}  // namespace roofline::detail
