#include "analyzer/report/explain.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/diagnose/fusion.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"
#include "analyzer/report/text.hpp"
#include "models/classify.hpp"
#include "models/resources.hpp"

#include <functional>
#include <sstream>

namespace roofline {
namespace {

std::string finding_text(const diagnose::rule_tree& tree, const diagnose::rule_node& node) {
    std::ostringstream out;
    out << "# Finding `" << node.finding << "`\n\n" << node.title << ". " << node.explain << "\n\n";
    out << "- Tree: `" << tree.id << "` (" << tree.file << "), node `" << node.id << "`\n";
    out << "- Fires when: `" << node.when.text() << "`\n";
    for (const auto& evidence : node.evidence) out << "- Shows: `" << evidence.text() << "`\n";
    if (node.estimate) {
        out << "- Estimate: " << node.estimate->why << "\n";
        for (const auto& change : node.estimate->changes) {
            std::string on;
            for (resource id : change.on) on += (on.empty() ? "" : ", ") + std::string(name(id));
            out << "  - changes `" << on << (change.add ? " + " : " x ") << "(" << change.amount.text() << ")`\n";
        }
        if (node.estimate->at_least) out << "  - never under `" << node.estimate->at_least->text() << "` ns\n";
    }
    for (const auto& node_fix : node.fixes)
        out << "- Fix" << (node_fix.when ? " (when `" + node_fix.when->text() + "`)" : std::string()) << ": "
            << node_fix.text << "\n";
    return out.str();
}

// What each bound a verdict names means, with the thresholds classify() uses (docs/model.md).
std::string bound_text(bound kind) {
    const classify_thresholds thresholds;
    const std::string near = significant(100.0 * thresholds.near_roof, 3) + "%";
    std::string what;
    switch (kind) {
        case bound::memory:
            what = "A memory level is the binding roof: the busiest of dram, l2 and l1 is at " + near +
                   " or more of its practical share and under at least as much pressure as any compute unit. "
                   "The limiter names the level (`memory / dram`); DRAM, then L2, is named when it carries at least " +
                   significant(100.0 * thresholds.prefer_lower_level, 3) +
                   "% of the busiest level's pressure, because a streaming kernel keeps L2 busy with DRAM's own fills. "
                   "Fix: move fewer bytes (fuse, reuse through shared memory, coalesce, smaller types).";
            break;
        case bound::compute:
            what = "A compute unit is the binding roof: it is at " + near +
                   " or more of its practical share and under more pressure than any memory level. "
                   "The limiter names a precision (`compute / fp32`, `compute / tensor_bf16`) "
                   "when one carries at least " +
                   significant(100.0 * thresholds.specific_share, 3) +
                   "% of the top compute pressure, else a pipe (`compute / pipe_alu`), else `sm`. Fix: fewer or "
                   "cheaper instructions, "
                   "a faster precision or the tensor cores.";
            break;
        case bound::latency:
            what = "No roof is near (every resource under " + near +
                   " of its practical share), the launches are long enough and the grid fills the GPU: the warps "
                   "mostly wait. The "
                   "stall reasons (`roofline explain long_scoreboard`, ...) say on what. Fix: more parallelism per "
                   "warp or more warps "
                   "(occupancy), fewer dependent loads.";
            break;
        case bound::small_grid:
            what =
                "No roof is near and the grid has fewer blocks than the GPU has SMs, or fills less than one wave: part "
                "of the GPU "
                "sits idle whatever the kernel does. Fix: more, smaller blocks (split the work, split-K), or batch the "
                "small "
                "launches into one.";
            break;
        case bound::launch:
            what = "No roof is near and the mean launch is shorter than " + format_duration_ns(thresholds.launch_ns) +
                   ": launch overhead, not the kernel's body, sets its time. Fix: fuse the small kernels, or capture "
                   "them in a CUDA "
                   "graph.";
            break;
        case bound::unknown:
            what =
                "The kernel could not be placed on the roofline: the capture lacks its duration or every counter a "
                "roof needs. "
                "The report names what is missing and the ncu option that collects it.";
            break;
    }
    return "# Bound `" + std::string(name(kind)) + "`\n\n" + what + "\n";
}

// What a resource is, as a report names it in a verdict (`memory / dram`) or a table row.
std::string resource_text(resource id) {
    const resource_info& traits = info(id);
    const std::string res_name = traits.name;
    std::string what;
    if (id == resource::dram)
        what =
            "Device memory (HBM or GDDR): bytes read and written (`dram__bytes_read.sum`, `dram__bytes_write.sum`) "
            "over the "
            "DRAM bandwidth.";
    else if (id == resource::l2)
        what =
            "The L2 cache: its throughput (`lts__throughput`) and the bytes it moves to and from the SMs, over its "
            "peak.";
    else if (id == resource::l1)
        what =
            "The L1/shared-memory of each SM: its throughput (`l1tex__throughput`) and the bytes the load/store unit "
            "moves, "
            "over its peak.";
    else if (id == resource::sm)
        what =
            "The SM as a whole, as ncu's speed of light sees it (`sm__throughput`): named as a compute limiter when no "
            "single precision or pipe stands out (and always on a details-page export, which holds no FLOP counters).";
    else if (id == resource::issue)
        what =
            "The issue slots: one warp instruction per cycle per scheduler, four per SM. It gives a floor on time but "
            "never "
            "a verdict.";
    else if (traits.precision)
        what = std::string(traits.tensor ? "A tensor-core" : "A CUDA-core") + " FLOP roof: the " + traits.work_unit +
               "s of this precision over its peak at the clock the kernel ran at.";
    else if (id == resource::pipe_tensor)
        what =
            "The tensor pipe's MMA cycles: it says how busy the tensor cores are; the verdict names the precision they "
            "run.";
    else if (traits.pipe)
        what = "An execution pipe (`" + res_name.substr(5) +
               "`): warp instructions issued to it over the pipe's peak rate, for kernels limited by instructions "
               "rather than FLOPs.";
    return "# Resource `" + res_name + "` (" + (traits.kind == resource_kind::memory ? "memory" : "compute") + ")\n\n" +
           what + "\n\nIn a verdict: `" + (traits.kind == resource_kind::memory ? "memory" : "compute") + " / " +
           res_name + "`; rules read it as `util_" + res_name + "`, `floor_ns_" + res_name +
           "`, ... (rules/README.md).\n";
}

}  // namespace

std::optional<std::string> explain(const std::string& name, const std::vector<diagnose::rule_tree>& trees) {
    std::optional<std::string> found;
    std::function<void(const diagnose::rule_tree&, const diagnose::rule_node&)> visit =
        [&](const diagnose::rule_tree& tree, const diagnose::rule_node& node) {
            if (!found && (node.finding == name || node.id == name) && !node.finding.empty())
                found = finding_text(tree, node);
            for (const auto& child : node.children) visit(tree, child);
        };
    for (const auto& tree : trees)
        for (const auto& root : tree.roots) visit(tree, root);
    if (found) return found;
    // A verdict as the reports print it: "memory / dram", "memory/dram", or its bound or resource alone.
    if (auto named_bound = bound_named(name)) return bound_text(*named_bound);
    if (auto named_resource = resource_named(name)) return resource_text(*named_resource);
    if (auto slash = name.find('/'); slash != std::string::npos) {
        auto trim = [](std::string text) {
            text.erase(0, text.find_first_not_of(' '));
            text.erase(text.find_last_not_of(' ') + 1);
            return text;
        };
        auto named_bound = bound_named(trim(name.substr(0, slash)));
        auto named_resource = resource_named(trim(name.substr(slash + 1)));
        if (named_bound && named_resource) return bound_text(*named_bound) + "\n" + resource_text(*named_resource);
    }
    if (name == diagnose::fusion_rule::id) {
        std::string text = "# Finding `" + name + "`\n\n" + fusion_title() +
                           ". Found across kernels, not by a tree (analyzer/diagnose/fusion.cpp): launches in a row on "
                           "the same grid and "
                           "block, each bound by DRAM, where each reads from DRAM within " +
                           significant(100.0 * diagnose::fusion_rule::same_buffer_tolerance, 3) + "%" +
                           " of the bytes the one before wrote.\n\n"
                           "- Time once fixed (the estimate): (DRAM bytes of the run - 2 x the bytes passed between "
                           "them) / (peak_dram x "
                           "practical_dram), for the whole run\n";
        for (const auto& fix_text : fusion_fixes()) text += "- Fix: " + fix_text + "\n";
        return text + "- Caveat: counters cannot tell that the next kernel reads this one's output; the source can\n";
    }
    if (name == "missing-counters")
        return "# Finding `missing-counters`\n\n" +
               std::string(engine_finding_title(diagnose::engine_finding::missing_counters)) +
               ". Given to a kernel where no rule node the capture could evaluate fired and some could not be "
               "evaluated "
               "(analyzer/diagnose/diagnose.cpp): the answer is what to collect, not that no rule knows the kernel. "
               "Its fix is the "
               "ncu command that collects what the capture lacks, under the GPU's own counter names.\n";
    // An open verdict, as the reports print it: "memory or compute / l2 or fp32?" or "compute / ?".
    if (name.find(" or ") != std::string::npos || (!name.empty() && name.back() == '?'))
        return "# An undecided verdict `" + name +
               "`\n\nThe capture lacks counters the verdict needs (a details page has no FLOP, "
               "pipe or waste counters), so the engine names every bound and limiter it cannot exclude instead of "
               "guessing one: each "
               "unit without counters may be as busy as ncu's speed of light allows (sm__throughput for compute units, "
               "gpu__compute_memory_throughput for memory levels). `?` alone: more than two units remain. The kernel's "
               "section lists "
               "the metrics that would decide it and the command that collects them.\n";
    if (name == "unexplained")
        return "# Finding `unexplained`\n\n" +
               std::string(engine_finding_title(diagnose::engine_finding::unexplained)) +
               ". Given to a kernel where no diagnosis tree fired "
               "(analyzer/diagnose/diagnose.cpp), so every kernel gets an answer: its evidence is what the warps "
               "waited on (the three "
               "largest stall shares) and its estimate the kernel's largest floor at the practical shares, which no "
               "fix beats.\n";
    auto metric_text = [](const metric_entry& metric) {
        return "# Metric `" + metric.id + "`" + (metric.unit.empty() ? "" : " (" + metric.unit + ")") + "\n\n" +
               metric.meaning + "\n" + (metric.pitfall.empty() ? "" : "\nPitfall: " + metric.pitfall + "\n") +
               "\nCollected by: " + metric.collected_by + "\n";
    };
    if (const metric_entry* metric = find_metric(name)) return metric_text(*metric);
    const std::string reason = name.rfind("stall_", 0) == 0 ? name.substr(6) : name;
    if (const metric_entry* stall_metric =
            find_metric("smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio"))
        return "# Stall reason `" + reason + "`\n\n" + stall_metric->meaning + "\n\nMetric: `" + stall_metric->id +
               "`\n";
    for (const auto& [fact, doc] : diagnose::derived_fact_docs())
        if (fact == name || (fact.find('<') != std::string::npos &&
                             name.rfind(fact.substr(0, fact.find('<')), 0) == 0 && diagnose::fact_type(name)))
            return "# Derived value `" + name + "`\n\n" + doc + " (rules can read it; see rules/README.md).\n";
    for (int code = int(error_code::io); code <= int(error_code::usage); ++code)
        if (name == error_code_name(error_code(code)))
            return "# Error `" + name + "`\n\n" + std::string(error_code_summary(error_code(code))) +
                   ". Exit code 2; no output file is written.\n";
    return std::nullopt;
}

}  // namespace roofline
