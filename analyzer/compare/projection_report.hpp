// `roofline project`: a capture's kernels projected onto another GPU (analyzer/compare/projection.hpp), printed
// as markdown, JSON (docs/project.md) or a terminal table. Every format prints the assumptions.
#pragma once

#include "analyzer/pipeline/analysis.hpp"
#include "models/gpu_spec.hpp"
#include "analyzer/compare/projection.hpp"
#include "analyzer/render/format_table.hpp"

#include <string>
#include <vector>

namespace roofline {

// Every kernel of the analysis, in its order (longest first), projected onto `target`.
workload_projection project_analysis(const analysis& capture, const gpu_spec& target,
                                     const projection_options& options = {});

// What a projection is printed from: the capture and its kernels on the target.
struct projection_view {
    const analysis& capture;
    const workload_projection& workload;
};
// `project --format`'s table: markdown, json, terminal, html.
const std::vector<printer<projection_view>>& projection_printers();
// The table's names, in its order.
const std::vector<std::string>& projection_format_names();
// The table's printer for `format`; throws std::invalid_argument for a name it lacks.
std::string render_projection(const analysis& capture, const workload_projection& workload, const std::string& format);

}  // namespace roofline
