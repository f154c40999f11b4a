// The pipeline in one call: CSV -> launches -> filters -> kernels -> roofline -> classification.
// Reports (report_markdown, report_json) render an `analysis`; nothing here writes files.
#pragma once

#include "analyzer/diagnose/diagnosis.hpp"
#include "analyzer/read/launch_filter.hpp"
#include "analyzer/read/ncu_reader.hpp"
#include "models/gpu_match.hpp"
#include "models/gpu_spec.hpp"
#include "models/kernel_result.hpp"

#include <functional>
#include <istream>
#include <string>
#include <vector>

namespace roofline {

struct analyze_options {
    read_options read;
    launch_filter_options filter;
    std::string gpu;            // --gpu: a spec id; "" detects
    bool gpu_override = false;  // --gpu-override: --gpu may contradict the capture's device
    std::string device;         // --device: only launches of this device ("" all)
    std::string hwspecs_dir;    // --hwspecs: extra spec files
    std::string rules_dir;      // --rules: extra or overriding rule trees
    std::function<void(std::size_t launches_read)> progress;  // called after each launch read, if set
    // Keep every kernel's counters (kernel_group::numbers, texts) once it is diagnosed. The reports
    // read only the model's and the diagnosis' values, so analyze drops them, some 3 KB per distinct
    // kernel; lessons keep them, to evaluate a finding's evidence on the fixed kernel.
    bool keep_metrics = false;
};

// One kernel as the report sees it: the model's result, what the rule trees found, and its share
// of the workload's time.
struct analysed_kernel : kernel_result {
    diagnose::diagnosis diagnosis;
    double share = 0.0;  // of the workload's total time, 0..1
};

struct analysis {
    std::string input;        // the file name as the user gave it
    analyze_options options;  // as analyze() was called (without the progress callback), for reports to record
    read_summary read;
    gpu_spec gpu;
    gpu_match_reason gpu_how;  // how the spec was chosen (report/text.hpp, gpu_match_text)
    // The roofs whose practical share is a default on this GPU, not a measurement on it
    // (models/roofline_model.hpp, practical_share_of); empty on a calibrated GPU.
    std::vector<resource> default_practical;
    std::vector<analysed_kernel> kernels;  // by total time, longest first
    double total_ns = 0.0;
    std::size_t launches_read = 0;
    std::size_t launches_kept = 0;
};

// Throws input_error for bad input, an unknown GPU, or filters that leave nothing.
analysis analyze(std::istream& in, const std::string& input_name, const analyze_options& options);
analysis analyze_file(const std::string& path, const analyze_options& options);

// Findings about runs of kernels (fusion), each on the first kernel of its run, ranked with that
// kernel's own: `kernels` in launch order, as analyze() holds them before it sorts by time.
void attach_workload_findings(std::vector<analysed_kernel>& kernels, const gpu_spec& gpu);

}  // namespace roofline
