// `roofline project`: a capture's kernels projected onto another GPU (analyzer/compare/projection.hpp), printed
// as markdown, JSON (docs/project.md) or a terminal table. Every format prints the assumptions.
#pragma once

#include "analyzer/pipeline/analysis.hpp"
#include "models/gpu_spec.hpp"
#include "analyzer/compare/projection.hpp"

#include <string>
#include <vector>

namespace roofline {

// Every kernel of the analysis, in its order (longest first), projected onto `target`.
workload_projection project_analysis(const analysis& capture, const gpu_spec& target,
                                     const projection_options& options = {});

// The formats `project --format` takes, in this order: markdown, json, terminal.
const std::vector<std::string>& projection_format_names();
// nullopt-like: throws std::invalid_argument for a format not in projection_format_names().
std::string render_projection(const analysis& capture, const workload_projection& workload, const std::string& format);

}  // namespace roofline
