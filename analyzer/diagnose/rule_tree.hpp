// A diagnosis tree, loaded from rules/*.json: nodes with a condition over metrics and derived
// values, the evidence to show, a plain-words explanation, fixes, an optional finding id, and
// children walked only when the node fires. See rules/README.md for the format.
#pragma once

#include "analyzer/diagnose/expression.hpp"
#include "analyzer/read/kernel_origin.hpp"
#include "models/resources.hpp"

#include <string>
#include <vector>

namespace roofline::diagnose {

struct fix {
    std::string text;
    std::optional<expression> when;  // applies only where this holds
    // Whose kernels the fix is written for, one bit per origin_kind ("for" in the file: origin kinds,
    // "library" for every kind whose source the user does not own, "any"). Absent: the kernels whose
    // source the user owns (their own, CUTLASS templates they instantiate): kernel-author advice.
    unsigned origins = owned_origins();
    bool applies_to(origin_kind origin) const { return (origins >> static_cast<unsigned>(origin)) & 1u; }
    static unsigned bit(origin_kind origin) { return 1u << static_cast<unsigned>(origin); }
    static unsigned owned_origins() { return bit(origin_kind::user) | bit(origin_kind::cutlass); }
};

// One change a fix makes to the kernel's work, on the resources `on`:
// the work (time at raw peak) is multiplied by `amount`, or, with `add`, `amount` ns of work at
// raw peak are added (work moved onto that resource from another).
struct work_change {
    std::vector<resource> on;
    bool add = false;
    expression amount;
};

// What a fix does, and so what the time after it is bounded by (estimate.cpp):
//   removes_waste     takes waste (excess sectors, conflicts, replays, idle lanes) off the units it
//                     names; never below their useful work, and the kernel keeps its latency;
//   moves_work        moves work to another unit (CUDA cores -> tensor cores, FP64 -> FP32, DRAM ->
//                     on chip); the time falls to the floors of the work after the move;
//   restructures      a new mapping of work to threads: every memory level and precision falls to its
//                     compulsory (useful) work unless the fix names it; instructions stay unless named;
//   adds_parallelism  more bytes in flight, more warps, a fuller grid or whole waves: the work stays,
//                     the time falls to its floors.
enum class fix_kind { removes_waste, moves_work, restructures, adds_parallelism };
const char* name(fix_kind kind);

// How a finding's gain is estimated (rules/README.md, "Gain estimates"): the fix changes the
// work listed in `changes`, and everything else stays. The time after the fix is the largest floor
// of the changed work at the practical shares, never under `at_least` (a bound of the fix's own)
// nor under the shortest launch of the GPU unless the fix removes the launch itself.
struct estimate_spec {
    std::string why;  // what the fix changes and what still bounds the kernel, in plain words
    std::vector<work_change> changes;
    std::optional<expression> at_least;
    bool removes_launch = false;
    // The fix takes the global atomics off their one line (per-block partials, a second pass): the
    // same-line chain (atomic_chain_ns) no longer bounds the time after it. Every other fix keeps it.
    bool removes_atomics = false;
    // What the fix does to the kernel (rules/README.md, "Gain estimates"); "fix" in the file.
    fix_kind kind = fix_kind::adds_parallelism;
    // A fix that removes one kind of waste from a unit and leaves the kernel as it is otherwise: the
    // kernel keeps its present latency exposure, so the time scales with what is left of the current
    // limiter's work (a fix to a unit that does not limit buys nothing).
    bool keeps_latency() const { return kind == fix_kind::removes_waste; }
};

struct rule_node {
    std::string id;
    std::string title;
    expression when;
    std::vector<expression> evidence;
    std::string explain;
    std::string finding;  // public finding id ("" for inner nodes that only route)
    // Absent: the finding carries no estimate.
    std::optional<estimate_spec> estimate;
    std::vector<fix> fixes;
    std::vector<rule_node> children;
};

struct rule_tree {
    std::string id;
    // Trees are walked in this order (lowest first), so among findings whose estimates cannot be
    // told apart, the earlier tree's comes first (rules/README.md, "Ranking").
    int precedence = 100;
    std::string title;
    std::string description;
    std::string file;
    std::vector<rule_node> roots;
};

// Throws input_error (bad_rule) naming the file, the line and column of the mistake, and the node.
rule_tree parse_rule_tree(const std::string& json_text, const std::string& file);
// The shipped trees (compiled in, parsed once per process), plus *.json in extra_dir; the same id: the extra file wins.
// In precedence order, then by id.
std::vector<rule_tree> load_rule_trees(const std::string& extra_dir = "");

}  // namespace roofline::diagnose
