// Two whole-run traces of one program, before and after a change (`roofline diff` on two traces):
// per device the time per step (or the span, where neither trace marks steps), busy time, utilisation
// and idle time by cause on each side, the kernels that appeared or went away and those whose GPU time
// moved most, and the regression gate (--fail-if-slower) on the time per step. Values only; the
// printers are timeline_diff_report.cpp.
#pragma once

#include "analyzer/timeline/timeline_findings.hpp"
#include "analyzer/timeline/timeline_model.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofline::timeline {

struct kernel_change {
    std::string name;
    std::int64_t base_ns = 0, next_ns = 0;  // summed GPU time on each side (0: absent)
    std::size_t base_launches = 0, next_launches = 0;
};

struct device_change {
    std::int32_t device = 0;
    const device_timeline* base = nullptr;             // nullptr: the device is only in the new trace
    const device_timeline* next = nullptr;             // nullptr: only in the base trace
    double base_step_ns = 0, next_step_ns = 0;         // the span over the steps each trace marks (1 where none)
    std::optional<double> change_pct;                  // of the time per step
    std::vector<kernel_change> appeared, gone, moved;  // moved: both sides, by |change|, largest first (at most 10)
};

struct trace_side {
    std::unique_ptr<trace> source;  // the model points into it
    timeline_model model;
    std::vector<timeline_finding> findings;
};

struct timeline_diff {
    trace_side base, next;
    bool per_step = false;  // both traces mark steps: times are per step, else per span
    std::vector<device_change> devices;
    std::optional<double> fail_if_slower_pct;
    double noise_pct = 2.0;
    std::vector<std::string> gate_failures;  // "GPU 0: 7.10% slower per step"
    bool gate_failed() const { return !gate_failures.empty(); }
};

// Reads, models and compares two traces. The gate fails where a device's time per step grew by more
// than fail_if_slower_pct and more than noise_pct.
timeline_diff diff_traces(const std::string& base_path, const std::string& next_path, std::int64_t min_gap_ns,
                          std::optional<double> fail_if_slower_pct, double noise_pct);

std::string timeline_diff_markdown(const timeline_diff& diff);
// The same document as one HTML page (render/document.hpp).
std::string timeline_diff_html(const timeline_diff& diff);
std::string timeline_diff_terminal(const timeline_diff& diff);
std::string timeline_diff_json(const timeline_diff& diff);

}  // namespace roofline::timeline
