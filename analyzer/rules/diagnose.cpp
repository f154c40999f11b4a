#include "diagnose.hpp"

#include "fusion.hpp"
#include "kernel_facts.hpp"

#include <algorithm>

namespace roofline::rules {
namespace {

void add_unique(std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

void walk(const rule_tree& tree, const rule_node& n, int depth, const name_values& facts, double duration_ns, diagnosis& d) {
    visited_node v;
    v.tree = tree.id;
    v.node = n.id;
    v.title = n.title;
    v.depth = depth;
    std::vector<std::string> missing;
    auto ok = n.when.evaluate(facts, &missing);
    for (const auto& name : n.when.names()) v.values.push_back({name, facts(name)});
    if (!ok) {
        v.result = visited_node::outcome::cannot_evaluate;
        v.missing = missing;
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
        for (const auto& e : n.evidence) f.evidence.push_back({e.text(), e.evaluate(facts)});
        if (n.fixed_time) {
            f.fixed_time_formula = n.fixed_time->text();
            // Never promise more than the kernel has: a fix cannot make it slower, and the
            // estimate is the rule's own floor on the roof that binds after the fix.
            if (auto after = n.fixed_time->evaluate(facts); after && *after > 0 && duration_ns > 0) {
                double t = std::min(*after, duration_ns);
                f.est_time_after_ns = t;
                f.est_speedup = duration_ns / t;
                f.est_time_saved_ns = duration_ns - t;
            }
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
    for (const auto& c : n.children) walk(tree, c, depth + 1, facts, duration_ns, d);
}

}  // namespace

diagnosis diagnose(const std::vector<rule_tree>& trees, const kernel_result& kernel, const gpu_spec& spec) {
    diagnosis d;
    name_values facts = kernel_facts(kernel, spec);
    for (const auto& t : trees)
        for (const auto& root : t.roots) walk(t, root, 0, facts, kernel.roof.duration_ns, d);
    rank_findings(d.findings);
    return d;
}

std::string ncu_flags_for(const std::vector<std::string>& missing) {
    std::string metrics;
    bool derived = false;
    for (const auto& m : missing) {
        if (m.find("__") != std::string::npos) metrics += (metrics.empty() ? "" : ",") + m;
        else derived = true;
    }
    std::string flags = metrics.empty() ? "" : "--metrics " + metrics;
    if (derived) flags += std::string(flags.empty() ? "" : " ") + "--set full";
    return flags;
}

}  // namespace roofline::rules
