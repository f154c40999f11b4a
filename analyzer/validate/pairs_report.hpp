// The validation table of kernels/: for each naive -> fixed pair, the durations from a real
// capture, the measured speedup, and the engine's verdict on both sides against what the pair
// was built to show (kernels/pairs.json). `roofline pairs DIR` writes it as DIR/PAIRS.md.
#pragma once

#include "analyzer/pipeline/analysis.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct pair_side {
    std::string case_name;
    std::vector<std::string> kernels;           // the kernels found in the capture
    std::vector<const analysed_kernel*> found;  // the same, in pairs_report::capture_analysis
    std::vector<std::string> verdicts;          // one per kernel, "bound/limiter"
    std::string expect;
    std::string known_miss;                        // why the verdict differs on this GPU, from pairs.json ("" if none)
    double ncu_ns = 0.0;                           // summed over the side's kernels and launches
    std::optional<double> runner_us;               // unprofiled median from runner_timing.txt
    std::optional<double> roof_pct;                // the utilisation of the side's limiter, % (first kernel)
    std::optional<double> l2_pct;                  // its L2 busy share, % (first kernel): calibrate's L2 samples
    std::string first_finding;                     // the rule trees' first-ranked finding on the first kernel
    std::optional<double> first_finding_est;       // its estimated speedup
    std::optional<double> first_finding_after_ns;  // the time after its fix, by the estimate
    std::string first_finding_binds_after;         // the floor that sets that time, in words
};

struct pair_row {
    std::string id;
    std::string bottleneck, question, fix;  // pairs.json: what it shows, the question it teaches, what the fix does
    pair_side naive, fixed;
    std::string reference_label;
    std::optional<double> reference_ns;
    // The library reference's first kernel: its name, verdict ("bound/limiter") and the
    // utilisation of its limiter, % (calibration counts it where it sits on the fixed side's roof).
    std::string reference_kernel, reference_verdict;
    std::optional<double> reference_roof_pct, reference_l2_pct;
};

struct reference_row {
    std::string case_name, kernel, expect, verdict, roof, known_miss;
    std::optional<double> roof_pct, target_pct, l2_pct;
};

struct pairs_report {
    std::string gpu_id, gpu_name, capture;
    std::shared_ptr<const analysis> capture_analysis;  // of pairs_raw.csv: the sides' `found` point into it
    std::vector<pair_row> pairs;
    std::vector<reference_row> references;
    // Verdicts that differ from pairs.json without a known miss, known misses that no longer
    // miss, and roof targets not met; empty when the capture shows what the pairs promise.
    std::vector<std::string> problems;
    std::vector<std::string> targets_missed;  // roof targets not reached (reported, not problems)
};

// Throws input_error for a missing capture or a malformed pairs file.
// pairs_file "": the pair definitions compiled in (kernels/pairs.json).
pairs_report build_pairs_report(const std::string& dir, const std::string& pairs_file);
std::string render_pairs_markdown(const pairs_report& report);
// "`ew_scale` + `ew_shift` + `ew_relu`"
std::string side_kernels(const pair_side& side);
// The side's distinct verdicts: "memory/dram", or "memory/l2, memory/dram" over several kernels.
std::string side_verdicts(const pair_side& side);

}  // namespace roofline
