// What walking the rule trees over one kernel gives: the path with the value of every
// condition (the teaching view), the findings of the nodes that fired, and what was missing.
#pragma once

#include "analyzer/base/pooled_string.hpp"
#include "analyzer/diagnose/expression.hpp"
#include "models/resources.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline::diagnose {

// What an evidence value is: an expression of the rule language (evaluated on this kernel, and on any
// other with evaluate_evidence), a figure the engine computed across kernels (the fusion finding's run_*),
// or the unexplained finding's mark that the capture lacks the stall reasons (no value). Only an expression
// has text here; analyzer/report/text.hpp (evidence_name) words the others. No rule can evaluate them.
enum class evidence_kind : unsigned char {
    expression,
    run_kernels,             // kernels in a fusion run
    run_dram_bytes,          // the DRAM bytes of the run
    run_intermediate_bytes,  // the DRAM bytes through its intermediate buffers (written once, read once)
    run_time_ns,             // the time of the run
    stall_reasons_missing,
};

struct evidence_value {
    pooled_string expression;  // the expression text ("" for the other kinds)
    value_type type = value_type::number;
    evidence_kind kind = evidence_kind::expression;

    evidence_value() = default;
    evidence_value(pooled_string text, std::optional<double> given_value, value_type given_type = value_type::number,
                   evidence_kind given_kind = evidence_kind::expression)
        : expression(text), type(given_type), kind(given_kind) {
        set_value(given_value);
    }
    bool is_label() const { return kind != evidence_kind::expression; }
    // Exact where the capture decides it; only bounded where it lacks what separates useful work from
    // waste; unknown where it lacks the counters. One range for all three: a report holds tens of these
    // per kernel, for every kernel of a capture.
    std::optional<double> value() const {
        return known_ == known::exact ? std::optional<double>(range_.lo) : std::nullopt;
    }
    std::optional<value_range> bounds() const {
        return known_ == known::bounded ? std::optional<value_range>(range_) : std::nullopt;
    }
    void set_value(std::optional<double> new_value) {
        known_ = new_value ? known::exact : known::unknown;
        range_ = new_value ? value_range{*new_value, *new_value} : value_range{};
    }
    void set_bounds(value_range new_range) {
        known_ = new_range.exact() ? known::exact : known::bounded;
        range_ = new_range;
    }

private:
    enum class known : unsigned char { unknown, exact, bounded };
    known known_ = known::unknown;  // beside type and kind: 32 bytes in all
    value_range range_{};
};

struct visited_node {
    pooled_string tree, node, title;
    int depth = 0;
    enum class outcome { fired, not_fired, cannot_evaluate } result = outcome::not_fired;
    std::vector<evidence_value> values;  // the condition's names with their values
    // cannot_evaluate: the metrics that would decide it (catalogue ids). The names the capture left
    // unknown or only bounded are those of `values` without an exact value.
    std::vector<pooled_string> missing;
    // Decided, but on values within run-to-run noise of where the outcome turns: another capture of
    // the same program may decide it the other way.
    bool within_noise = false;
};

// The engine's own findings (tree "catch-all"), given where the rule trees give none. Their words are
// not in rules/*.json, as every tree node's are, because they are no tree's nodes (no condition fires
// them: they stand for what the walk did not find) and their sentences are made of the walk itself
// (how many nodes could not be evaluated, which, the ncu options that collect what those lack), which
// a rule file could hold only as templates. So, like the verdict's reasons, they are values here and
// sentences in analyzer/report/text.hpp (finding_title, finding_explain, finding_fixes, ...).
enum class engine_finding : unsigned char {
    none,              // a rule node's finding: its words are its own fields (from its rule file)
    unexplained,       // no tree fired; after_findings: some did, but every fix was gainless (the notes say which)
    missing_counters,  // nodes could not be evaluated (undecided, collect); after_findings: the findings that
                       // fired follow it
    fusion_run,        // kernels in a row pass a buffer through DRAM (fusion.hpp): run_kernels, below_kernel_findings
};

// What sets the time after a fix, as a value (analyzer/report/text.hpp, binds_after_text, words it).
enum class after_bound_kind : unsigned char {
    none,             // no estimate
    resource,         // the floor of `id` at its practical share, over the work the fix leaves
    limiter_kept,     // a unit bounds the kernel, the fix leaves that unit's work (`id`) as it is
    latency_kept,     // no unit bounds it: `id`'s busy share shrinks, the latency the kernel waits on stays
    own_bound,        // the fix's own bound (its rule's at_least)
    shortest_launch,  // the GPU's shortest launch (hwspecs min_kernel_ns)
    atomic_chain,     // the atomics on one L2 line, one after another (atomic_chain_ns)
    unchanged,        // the fix leaves the time as it is
};

struct after_bound {
    after_bound_kind kind = after_bound_kind::none;
    resource id = resource::sm;  // resource, limiter_kept, latency_kept
};

// What the capture left undecided on a kernel (report/text.hpp, undecided_text, words it).
struct undecided_item {
    enum class what : unsigned char {
        verdict,   // the verdict (bound and limiter)
        node,      // rule node tree/node could not be evaluated
        estimate,  // rule node tree/node fired, but its estimate could not be evaluated
    };
    what kind = what::node;
    pooled_string tree, node;  // node, estimate
    friend bool operator==(const undecided_item& left, const undecided_item& right) {
        return left.kind == right.kind && left.tree == right.tree && left.node == right.node;
    }
};

// The estimator's own result for one fix (analyzer/diagnose/estimate.hpp): what the fix leaves, which
// combined_after needs to put several fixes of one kernel together. No report reads it.
struct fix_effect {
    std::map<resource, double> changed_work;  // the work (ns at raw peak) per resource the fix leaves, where changed
    double at_least_ns = 0.0;                 // the fix's own bound (at_least)
    double atomic_chain_ns = 0.0;             // the same-line atomic chain the fix leaves (0 where it removes it)
    bool removes_launch = false;
    bool changes_work = false;   // the fix changes work (bytes, instructions, FLOPs), not only latency
    bool keeps_latency = false;  // the fix removes one waste and leaves the kernel's latency as it is
};

// Everything the estimator decides for one finding, made whole before any of it is kept (estimate.hpp,
// estimate_fix): an open estimate leaves the figures empty and the least time after set where known.
struct finding_estimate {
    std::string why;                   // what the fix changes and what still bounds the kernel
    std::vector<std::string> changes;  // the changes as written, up to the first open one
    std::optional<double> time_after_ns, speedup, time_saved_ns;
    std::optional<double> time_after_at_least_ns, speedup_at_most;
    std::optional<double> time_after_at_most_ns, speedup_at_least;
    after_bound binds_after;
    fix_effect effect;
};

struct finding {
    pooled_string id, tree, node;
    pooled_string title, explain;  // a catch-all's: "" (finding_title, finding_explain)
    std::vector<evidence_value> evidence;
    std::vector<pooled_string> fixes;  // a catch-all's: none here (finding_fixes), but unexplained on a library's
                                       // kernel carries its origin's levers
    std::string estimate_why;          // what the fix changes and what still bounds the kernel; a catch-all's: ""
    std::vector<std::string> estimate_changes;  // the changes as written: "l1 x (1 - shared_conflict_share)"
    std::optional<double> est_time_after_ns;    // what the kernel would take with this fix alone
    std::optional<double> est_speedup;          // duration / time after (>= 1)
    std::optional<double> est_time_saved_ns;    // duration - time after (>= 0), this fix alone
    // What this fix adds to the ones ranked above it on the same kernel: the savings of one
    // kernel's findings overlap, and these add up to no more than its time minus the floor left
    // once every fix is in.
    std::optional<double> est_time_saved_combined_ns;
    // Where the estimate is open (a counter it needs is missing): the least time the fix can leave, from
    // what the capture holds (each open change at its most favourable value, each unmeasured resource at
    // no work, an open at_least or atomic chain at its lower bound). The fix gains at most duration / this;
    // open findings are ranked by it (diagnose.cpp).
    std::optional<double> est_time_after_at_least_ns;
    std::optional<double> est_speedup_at_most;  // duration / est_time_after_at_least_ns
    // And the most time it can leave (each open change at its least favourable value, each resource at the
    // most work the capture allows it): the fix gains at least duration / this. Of two open findings, one
    // whose least gain is clearly above the other's leads (diagnose.cpp).
    std::optional<double> est_time_after_at_most_ns;
    std::optional<double> est_speedup_at_least;  // duration / est_time_after_at_most_ns
    after_bound binds_after;                     // what sets the time after the fix
    fix_effect effect;                           // the estimator's own result, for combining this fix with others
    // A finding about a run of kernels the counters cannot tell from variants of one operation:
    // ranked after every finding of the kernel itself (fusion.cpp).
    bool below_kernel_findings = false;
    // A provisional first finding given where the capture's bounds fire no node: its node fires with every resource
    // at the least work the counters prove (models/kernel_result.hpp, at_least_work); its evidence and estimate are
    // those of the bounds.
    bool at_least_work = false;
    engine_finding engine = engine_finding::none;
    bool after_findings = false;
    std::vector<undecided_item> undecided;  // missing_counters: the nodes and estimates not evaluated
    std::string collect;                    // missing_counters: the ncu options that collect what they lack; "" if none
    // missing_counters on a details page whose report holds --set full's sections: the raw page of the same
    // report holds every counter the analysis lacks, so a re-export comes before any new profile.
    bool raw_page_holds = false;
    std::vector<std::string> run_kernels;  // fusion_run: the short names of the run's kernels, this one first
    bool framework_run = false;            // fusion_run: every kernel is a framework's (ATen, Triton, CuPy)
};

// A finding left out, and why, as values: analyzer/report/text.hpp (note_text) words it.
enum class diagnosis_note_kind {
    gainless,               // id fired at tree/node, but its fix (speedup, binds_after) leaves the time within
                            // `limit` (run-to-run noise) of what it is: not an opportunity
    near_roof_outpromised,  // near-roof is left out: finding `id` promises `speedup`, more than the `limit` near-roof
                            // allows
};

struct diagnosis_note {
    diagnosis_note_kind kind = diagnosis_note_kind::gainless;
    pooled_string id, tree, node;
    after_bound binds_after;
    double speedup = 0.0, limit = 0.0;
    bool at_most = false;  // gainless: the estimate is open, and `speedup` is the most its fix can gain
};

struct diagnosis {
    std::vector<visited_node> path;
    std::vector<diagnosis_note> notes;  // findings left out and why (near-roof beside a larger gain)
    std::vector<finding> findings;      // ranked: by time saved, then those without an estimate in tree order
    // What the capture left undecided, and the metrics (catalogue ids) that would decide it, each
    // once: the verdict's, every node's that could not be evaluated, every estimate's. Empty on a
    // complete capture. Where it is not, the first finding is provisional: a node that could not be
    // evaluated may have outranked it.
    std::vector<undecided_item> undecided;
    std::vector<std::string> missing_metrics;
    // Where the capture left rule nodes or estimates undecided and some node fired, the first finding
    // is provisional: these findings, whose nodes could not be evaluated (or whose estimates could
    // not), may outrank it once their counters are collected. Each once, in tree order.
    bool provisional = false;
    struct contender {
        pooled_string id, tree, node;
        std::vector<pooled_string> needs;  // the metrics (catalogue ids) that would decide it
        // Not a rival node but what leads if the first finding's own open gain proves within run-to-run noise (a
        // complete capture then lists it as no opportunity): the next finding, or unexplained.
        bool if_first_gainless = false;
    };
    std::vector<contender> could_outrank;
    // Findings whose place at the top run-to-run noise decides (settle_findings): the first
    // finding's equals. Empty where the first finding stands clear.
    std::vector<std::string> tied_with_first;
    // The nodes decided within run-to-run noise ("tree/node"), each once.
    std::vector<std::string> within_noise;
};

}  // namespace roofline::diagnose
