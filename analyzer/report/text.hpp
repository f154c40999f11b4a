// Texts several printers show the same way: the summary's cells, evidence values, the ranked
// opportunities, units and the colour of each bound.
#pragma once

#include "analyzer/diagnose/diagnosis.hpp"
#include "analyzer/pipeline/analysis.hpp"

#include <string>
#include <vector>

namespace roofline {

// What the summary's "achieved" column shows: the binding resource's rate.
std::string achieved_text(const kernel_result& kernel);
// The summary's "% of roof": the binding resource's share of its peak, naming that resource when it
// is not the limiter (a DRAM-limited copy whose L2 runs busier: "91.8% l2").
std::string roof_pct_text(const kernel_result& kernel);
// FLOP per byte at a level, or "n/a".
std::string intensity_text(const kernel_roofline& roof, resource level);
// A value read by a rule: true/false for booleans, a percentage for a share (util_*, useful_*,
// pressure_*, practical_*, *_share: 0..1; ncu's *pct* metrics: 0..100), a duration for *_ns, the
// number otherwise (format_number), `absent` when missing.
std::string named_value_text(const diagnose::evidence_value& evidence, const char* absent = "missing");
// "1 launch", "8 launches".
std::string count_text(std::size_t count, const char* singular, const char* plural);
// Each kernel's name for tables and headings, in analysis::kernels order: the function name
// without "void", namespaces and parameter list ("unnamed>::fma_chain<float>(float *, int)"
// -> "fma_chain<float>"), its template arguments elided where the name runs past 40 characters,
// and unique within the report: names that still collide get " #1", " #2" in kernel order.
std::vector<std::string> kernel_labels(const analysis& analysed);
// "FLOP/s", "OP/s" (tensor_int8) or "B/s"; "FLOP", "OP" or "B".
std::string rate_unit(resource id);
std::string work_unit(resource id);
// The colour of a bound on the chart (hex) and in the terminal (ANSI SGR code).
const char* bound_hex_colour(bound kind);
const char* bound_ansi_colour(bound kind);

// A step of the verdict (models/classify.hpp) in words: "dram runs at 86.1% busy, 96.0% of its practical
// share (formula), at or above the 60.0% that counts as near a roof, ...".
std::string reason_text(const verdict_reason& reason);
// "86.1% busy, 96.0% of its practical share" (the second part only where the practical share is below 1).
std::string load_text(const unit_load& load);
// What the capture lacks where a kernel is not placed: "gpu__time_duration.sum (collect it with ...)"; "" where
// it is placed.
std::string lacking_text(lacking_input lacking);
// A warning of the model (models/roofline_model.hpp): "dram is above its roof: 150.0% of ...".
std::string warning_text(const roof_warning& warning);
// A correction the model made: "fp16: the 1.2M FP16 'FLOPs' of the HFMA/HADD/HMUL counters are ...".
std::string note_text(const roof_note& note);
// A finding the diagnosis left out, and why: "near-roof is not reported: fp64-slow-pipe promises 1.9x ...".
std::string note_text(const diagnose::diagnosis_note& note);
// A finding's words. A rule node's finding carries its rule file's (title, explanation, fixes, the
// estimate's why); the catch-all findings (diagnose::engine_finding) carry values, worded here. Every
// printer reads a finding's words through these.
std::string finding_title(const diagnose::finding& finding);
std::string finding_explain(const diagnose::finding& finding);
std::vector<std::string> finding_fixes(const diagnose::finding& finding);
std::string finding_estimate_why(const diagnose::finding& finding);
// The changes the estimate makes, as formulas: "l1 x (1 - shared_conflict_share) = 0.42".
std::vector<std::string> finding_estimate_changes(const diagnose::finding& finding);
// The fusion finding's title and fixes (engine_finding::fusion_run), for explain.
const char* fusion_title();
const std::vector<std::string>& fusion_fixes();
// Where a practical share comes from: the spec's source, "default, not measured on this GPU: ...", ...
std::string practical_source_text(resource id, const practical_choice& choice);
// What the default practical shares are and why, in one sentence ("not measured on this GPU: each is ...").
const std::string& default_practical_reason();
// Where a peak comes from: "measured: <counters> x SM clock", "spec FILE: 989.4 TFLOP/s at 1830 MHz, scaled to
// the capture's SM clock (source)", or how two accumulate rates were mixed.
std::string peak_source_text(const peak_origin& origin);
// How a resource's useful share was computed, with its metric names; "" where it is the busy share.
std::string useful_formula_text(useful_basis basis);
// How the GPU spec was chosen: "matched by device name \"NVIDIA H100 80GB HBM3\"", "chosen with --gpu", ...
std::string gpu_match_text(const gpu_match_reason& reason);
// Where the SM clock comes from: the counter, or "spec boost clock (the capture holds no SM clock)".
std::string sm_clock_text(const kernel_roofline& roof);
// What the capture left undecided: "the verdict", "tree/node", "the estimate of tree/node".
std::string undecided_text(const diagnose::undecided_item& item);
// What sets the time after a fix: "dram", "its own bound", "the shortest launch", ...
std::string binds_after_text(const diagnose::after_bound& after);
// The title of one of the engine's own findings ("No rule explains this kernel's time"), for explain.
const char* engine_finding_title(diagnose::engine_finding engine);
// What an evidence value shows, as a finding lists it: its expression or label, or the words of a typed mark.
std::string evidence_name(const diagnose::evidence_value& evidence);

// Whose kernel it is, in one short word: "cuBLAS", "ATen", "Triton", "user" (the summary's and the
// terminal's column; origin_text says the rest).
std::string origin_label(const kernel_origin& origin);
// The kernel's origin as the markdown report states it: who wrote it, what its name says (built for an
// older architecture than the GPU's `gpu_cc`, operand alignment, math path, tile, ...), and who can act
// on the fixes.
std::string origin_text(const kernel_origin& origin, const std::string& gpu_cc);

// One finding with an estimate, for the workload's ranked list of what to fix first.
struct opportunity {
    std::size_t kernel_rank;  // index into analysis::kernels (0 = longest)
    const diagnose::finding* finding;
};
// Every estimated finding over the workload, by time saved (most first); ties keep kernel order.
std::vector<opportunity> opportunities(const analysis& analysed);

}  // namespace roofline
