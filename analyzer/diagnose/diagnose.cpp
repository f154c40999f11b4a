#include "analyzer/diagnose/diagnose.hpp"

#include "analyzer/diagnose/estimate.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>

namespace roofline::rules {
namespace {

// near-roof says "look elsewhere": it cannot stand beside a finding that promises more than
// this on the same kernel (its own estimate is at most 1.25x by its condition).
constexpr double near_roof_contradicted_above = 1.25;
// Two estimates closer than this cannot be told apart: the practical shares they divide by spread
// about this much over the kernels they were fitted to (H100 DRAM: geometric sd 1.026 over 7).
constexpr double estimates_indistinct_within = 0.05;

void add_unique(std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

void walk(const rule_tree& tree, const rule_node& n, int depth, const name_values& facts, const kernel_result& k, const gpu_spec& gpu,
          diagnosis& d) {
    visited_node v;
    v.tree = tree.id;
    v.node = n.id;
    v.title = n.title;
    v.depth = depth;
    std::vector<std::string> missing;
    auto ok = n.when.evaluate(facts, &missing);
    for (const auto& name : n.when.names()) v.values.push_back({name, facts(name), fact_type(name).value_or(value_type::number)});
    if (!ok) {
        v.result = visited_node::outcome::cannot_evaluate;
        v.missing.assign(missing.begin(), missing.end());
        for (const auto& m : missing) add_unique(d.missing_metrics, m);
        d.path.push_back(std::move(v));
        return;
    }
    v.result = *ok != 0.0 ? visited_node::outcome::fired : visited_node::outcome::not_fired;
    d.path.push_back(std::move(v));
    if (*ok == 0.0) return;
    if (!n.finding.empty()) {
        finding f;
        f.id = n.finding;
        f.tree = tree.id;
        f.node = n.id;
        f.title = n.title;
        f.explain = n.explain;
        for (const auto& e : n.evidence) f.evidence.push_back({e.text(), e.evaluate(facts), e.type()});
        if (n.estimate) {
            std::vector<std::string> lacking;
            estimate_finding(f, *n.estimate, k, gpu, facts, &lacking);
            for (const auto& m : lacking) add_unique(d.missing_metrics, m);
        }
        for (const auto& x : n.fixes) {
            if (x.when) {
                auto applies = x.when->evaluate(facts);
                if (!applies || *applies == 0.0) continue;
            }
            f.fixes.push_back(x.text);
        }
        d.findings.push_back(std::move(f));
    }
    for (const auto& c : n.children) walk(tree, c, depth + 1, facts, k, gpu, d);
}

// The stall reasons ncu samples, for the catch-all finding's evidence.
const std::vector<const char*>& stall_reasons() {
    static const std::vector<const char*> r = {"long_scoreboard",
                                               "barrier",
                                               "mio_throttle",
                                               "short_scoreboard",
                                               "wait",
                                               "math_pipe_throttle",
                                               "lg_throttle",
                                               "no_instruction",
                                               "branch_resolving",
                                               "dispatch_stall",
                                               "membar",
                                               "sleeping",
                                               "tex_throttle",
                                               "drain",
                                               "imc_miss",
                                               "gmma",
                                               "misc"};
    return r;
}

// Every kernel gets an answer: where no tree fired, say so, show what the warps waited on, and
// name the counters that would decide between the usual causes.
finding unexplained(const kernel_result& k, const gpu_spec& gpu, const name_values& facts) {
    finding f;
    f.id = "unexplained";
    f.tree = "catch-all";
    f.node = "unexplained";
    f.title = unexplained_title;
    f.explain =
        "No diagnosis tree fired: the kernel is below the roofs, with no wasted traffic, divergence or stall pattern the trees "
        "know. The evidence lists what the warps waited on (each stall reason's share of the waiting). A source-level profile "
        "(ncu --set full with -lineinfo, the Source page) or the PM sampling timeline decides it.";
    auto total = facts("smsp__average_warp_latency_per_inst_issued.ratio");
    std::vector<std::pair<double, std::string>> shares;
    for (const char* r : stall_reasons()) {
        const std::string id = std::string("smsp__average_warps_issue_stalled_") + r + "_per_issue_active.ratio";
        auto v = facts(id);
        if (v && total && *total > 0) shares.emplace_back(*v / *total, id + " / smsp__average_warp_latency_per_inst_issued.ratio");
    }
    std::stable_sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < shares.size() && i < 3; ++i) f.evidence.push_back({shares[i].second, shares[i].first});
    f.evidence.push_back({"roof_share", facts("roof_share")});
    f.fixes = {"Profile the source (-lineinfo, ncu's Source page) to see which instructions the warps wait on.",
               "Compare with the floor: the kernel cannot run faster than its largest floor at the practical shares (the estimate)."};
    estimate_spec none;
    none.why = "Whatever the cause, the work stays: the estimate is the kernel's largest floor at the practical shares.";
    estimate_finding(f, none, k, gpu, facts, nullptr);
    return f;
}

}  // namespace

void settle_findings(diagnosis& d, const kernel_result& k, const gpu_spec& gpu) {
    // near-roof means no fix of this work gains much: a larger estimate on the same kernel says
    // otherwise (doing the work on a faster unit, or less of it), so near-roof is not reported.
    const finding* larger = nullptr;
    for (const auto& f : d.findings)
        if (f.id != "near-roof" && f.est_speedup && *f.est_speedup > near_roof_contradicted_above &&
            (!larger || *f.est_speedup > *larger->est_speedup))
            larger = &f;
    if (larger) {
        auto it = std::find_if(d.findings.begin(), d.findings.end(), [](const finding& f) { return f.id == "near-roof"; });
        if (it != d.findings.end()) {
            d.notes.push_back("near-roof is not reported: " + larger->id + " promises " + format_times(*larger->est_speedup) +
                              " on the same kernel, more than the " + format_times(near_roof_contradicted_above) + " near-roof allows");
            d.findings.erase(it);
        }
    }
    // Where near-roof stands, it is the answer: nothing on this kernel promises more than 1.25x,
    // and the small gains below it are consistent with it. Otherwise by time saved.
    std::stable_sort(d.findings.begin(), d.findings.end(), [](const finding& a, const finding& b) {
        if ((a.id == "near-roof") != (b.id == "near-roof")) return a.id == "near-roof";
        if (a.est_time_saved_ns.has_value() != b.est_time_saved_ns.has_value()) return a.est_time_saved_ns.has_value();
        return a.est_time_saved_ns.value_or(0.0) > b.est_time_saved_ns.value_or(0.0);
    });
    // Where two estimates cannot be told apart, the fix that keeps the work comes first: the gain
    // does not need the rewrite.
    const double duration_ns = k.roof.duration_ns;
    auto after = [duration_ns](const finding& f) { return duration_ns - f.est_time_saved_ns.value_or(0.0); };
    for (std::size_t i = 1; i < d.findings.size(); ++i)
        for (std::size_t j = i; j > 0; --j) {
            finding& a = d.findings[j - 1];
            finding& b = d.findings[j];
            if (a.id == "near-roof" || !a.est_time_saved_ns || !b.est_time_saved_ns || !a.changes_work || b.changes_work) break;
            if (after(b) > after(a) * (1.0 + estimates_indistinct_within)) break;
            std::swap(a, b);
        }
    // The savings of one kernel's findings overlap: each shows what it adds to those above it,
    // and together they stop at the floor left once every fix is in. Findings about a run of
    // kernels (tree "workload") save time across the run and keep their own figure.
    std::vector<const finding*> all;
    for (const auto& f : d.findings)
        if (f.est_time_saved_ns && f.tree != "workload") all.push_back(&f);
    const double duration = k.roof.duration_ns;
    double remaining = all.empty() ? 0.0 : std::max(0.0, duration - std::min(duration, combined_after(k, gpu, all).after_ns));
    for (auto& f : d.findings) {
        if (!f.est_time_saved_ns) continue;
        if (f.tree == "workload") {
            f.est_time_saved_combined_ns = f.est_time_saved_ns;
            continue;
        }
        const double share = std::min(*f.est_time_saved_ns, remaining);
        f.est_time_saved_combined_ns = share;
        remaining -= share;
    }
}

diagnosis diagnose(const std::vector<rule_tree>& trees, const kernel_result& kernel, const gpu_spec& spec) {
    diagnosis d;
    name_values facts = kernel_facts(kernel, spec);
    for (const auto& t : trees)
        for (const auto& root : t.roots) walk(t, root, 0, facts, kernel, spec, d);
    if (d.findings.empty() && kernel.roof.placed) d.findings.push_back(unexplained(kernel, spec, facts));
    settle_findings(d, kernel, spec);
    d.path.shrink_to_fit();  // held for every kernel of a capture: no doubling slack
    for (auto& v : d.path) v.values.shrink_to_fit();
    return d;
}

std::string ncu_flags_for(const std::vector<std::string>& missing) {
    std::string metrics;
    bool derived = false;
    for (const auto& m : missing) {
        if (m.find("__") != std::string::npos)
            metrics += (metrics.empty() ? "" : ",") + m;
        else
            derived = true;
    }
    std::string flags = metrics.empty() ? "" : "--metrics " + metrics;
    if (derived) flags += std::string(flags.empty() ? "" : " ") + "--set full";
    return flags;
}

}  // namespace roofline::rules
