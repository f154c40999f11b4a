// Two analyses of one program, before and after a change: kernels matched by name and launch shape,
// each one's time and roofline movement, the findings that appeared or went away, the workload's
// total, and the regression gate `roofline diff --fail-if-slower` applies (docs/diff.md).
#pragma once

#include "analyzer/pipeline/analysis.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// The noise floor: ncu's run-to-run spread of a kernel's duration, in percent of its time and in ns
// per launch; a change within the larger of the two is "within noise". measured: see docs/diff.md.
// `--noise PCT` and `--noise-ns NS` override them.
inline constexpr double default_noise_pct = 2.0;
inline constexpr double default_noise_ns = 250.0;

struct diff_options {
    double noise_pct = default_noise_pct;
    double noise_ns = default_noise_ns;        // per launch: a kernel of n launches gets n times it
    std::optional<double> fail_if_slower_pct;  // the gate: nullopt leaves it off
};

// What happened to a kernel (or to the workload's total).
// unmeasured: matched, but a side has no time (the capture lacks gpu__time_duration.sum).
enum class diff_status { faster, slower, within_noise, gone, added, unmeasured };
// "faster", "slower", "within noise", "gone", "new", "no time".
const char* status_text(diff_status status);

struct kernel_diff {
    const analysed_kernel* base = nullptr;  // nullptr: only in the new capture
    const analysed_kernel* next = nullptr;  // nullptr: only in the base capture
    // Among the kernels of the same name and launch shape, matched in launch order: 1, 2, ...;
    // 0 where the key names one kernel on each side.
    std::size_t occurrence = 0;
    diff_status status = diff_status::within_noise;
    std::optional<double> change_pct;  // (new - base) / base x 100 of the time, for matched kernels with a base time
    bool over_gate = false;            // slower than --fail-if-slower and the noise floor
    std::vector<std::string> findings_appeared, findings_gone;  // by finding id, in the rule trees' ranking
    const analysed_kernel& any() const { return base ? *base : *next; }
};

struct capture_diff {
    // The kernel_diffs point into these: a capture_diff moves, never copies.
    capture_diff() = default;
    capture_diff(const capture_diff&) = delete;
    capture_diff& operator=(const capture_diff&) = delete;
    capture_diff(capture_diff&&) = default;
    capture_diff& operator=(capture_diff&&) = default;

    analysis base, next;
    diff_options options;
    bool same_gpu = true;  // false: a projection across GPUs, not a regression check
    // Why the two captures may differ for reasons other than the code, one sentence each: another page of
    // ncu's export (a details page has no FLOP or waste counters), another metric set, other launch counts.
    std::vector<std::string> comparability;
    // Matched kernels and gone ones first, then new ones; each group by the longer of its two times, longest first.
    std::vector<kernel_diff> kernels;
    std::size_t matched = 0, gone = 0, added = 0, ambiguous_keys = 0;
    std::optional<double> total_change_pct;  // of the workload's total time (every kernel of each side)
    diff_status total_status = diff_status::within_noise;
    bool total_over_gate = false;
    // What failed the gate, one sentence each ("the workload total got 7.10% slower"); empty: passed or off.
    std::vector<std::string> gate_failures;
    bool gate_failed() const { return !gate_failures.empty(); }
};

// A time's change with its status under the noise floor (the larger of noise_pct of base_ns and
// noise_ns x launches): faster, slower or within noise.
diff_status change_status(double base_ns, double new_ns, std::size_t launches, const diff_options& options);

// Matches the kernels of two analyses and measures each change. Pure: takes the analyses by value
// and keeps them (the kernel_diffs point into them).
capture_diff diff_analyses(analysis base, analysis next, const diff_options& options);

// The three printers (diff_report.cpp) and the chart: the same diff gives the same bytes.
// chart_file: the SVG the markdown links ("" for none).
std::string render_diff_html(const capture_diff& diff);
std::string render_diff_markdown(const capture_diff& diff, const std::string& chart_file);
std::string render_diff_json(const capture_diff& diff);
std::string render_diff_terminal(const capture_diff& diff, bool colour, std::size_t width);
// Every kernel of both captures on one roofline, an arrow from each base point to its new point.
std::string render_diff_chart(const capture_diff& diff);

}  // namespace roofline
