#include "analyzer/diagnose/metric_plan.hpp"

#include "analyzer/diagnose/kernel_facts.hpp"

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/read/metric_values.hpp"
#include "models/capture_spec.hpp"
#include "models/kernel_result.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace roofline::rules {
namespace {

using reads_by_node = std::map<std::string, std::set<std::string>>;

// Every name an expression of the node reads, looked up one by one (an `and` that stops early must
// not hide a name), while a log records the metrics each lookup touches.
void record_node_reads(const rule_tree& t, const rule_node& n, const name_values& facts, reads_by_node& out) {
    metric_read_log log;
    auto read = [&](const expression& e) {
        for (const auto& name : e.names()) (void)facts(name);
    };
    read(n.when);
    for (const auto& e : n.evidence) read(e);
    if (n.estimate) {
        for (const auto& c : n.estimate->changes) read(c.amount);
        if (n.estimate->at_least) read(*n.estimate->at_least);
    }
    for (const auto& f : n.fixes)
        if (f.when) read(*f.when);
    out[t.id + "/" + n.id] = log.ids();
    for (const auto& c : n.children) record_node_reads(t, c, facts, out);
}

}  // namespace

std::size_t metric_plan::required_count() const {
    return std::size_t(std::count_if(metrics.begin(), metrics.end(), [](const planned_metric& m) { return m.required; }));
}

metric_plan make_metric_plan(const std::vector<rule_tree>& trees, const gpu_spec& gh100) {
    metric_plan plan;
    plan.sections = gh100_derived_sections();
    const auto& absent = absent_on_gh100();
    std::vector<planned_metric> candidates;
    for (const auto& m : metric_catalogue()) {
        if (std::find(absent.begin(), absent.end(), m.id) != absent.end()) {
            plan.absent.push_back(m.id);
            continue;
        }
        candidates.push_back({m.id, false, {}, m.collected_by});
    }
    for (const auto& f : metric_families())
        for (const auto& id : f.gh100_members) candidates.push_back({id, false, {}, f.collected_by});

    // A kernel that holds every candidate (1 each: every counter present and non-zero, so the
    // branches that read a second metric after a first one is found are taken).
    kernel_group g;
    g.name = "every metric";
    g.launches = 1;
    g.block_size = launch_dims{{256, 1, 1}};
    g.grid_size = launch_dims{{1056, 1, 1}};
    for (const auto& c : candidates) g.numbers[c.id] = 1.0;
    // The model reads some metrics only where an earlier choice is missing (dram__bytes.sum where
    // dram__bytes_read.sum is absent, the SM clock from smsp__ or gpc__ cycles): each metric it read
    // is taken away in turn, with those whose absence led to it, until no run reads anything new.
    // spec_from_capture, the model of a GPU no spec describes, runs alongside.
    auto model_run = [&](const std::set<std::string>& without) {
        kernel_group h = g;
        std::map<std::string, double> kept;
        for (const auto& c : candidates)
            if (!without.count(c.id)) kept[c.id] = 1.0;
        h.numbers = metric_values(kept);
        metric_read_log log;
        (void)model_kernel(h, gh100);
        (void)spec_from_capture(h.numbers, gpu_identity{});
        return log.ids();
    };
    std::set<std::string> model_reads = model_run({});
    std::vector<std::set<std::string>> to_try;
    for (const auto& id : model_reads) to_try.push_back({id});
    while (!to_try.empty()) {
        const auto without = to_try.back();
        to_try.pop_back();
        for (const auto& id : model_run(without))
            if (model_reads.insert(id).second) {
                auto next = without;
                next.insert(id);
                to_try.push_back(next);
            }
    }
    const kernel_result k = model_kernel(g, gh100);
    reads_by_node node_reads;
    const name_values facts = kernel_facts(k, gh100);
    for (const auto& t : trees)
        for (const auto& r : t.roots) record_node_reads(t, r, facts, node_reads);

    for (auto& c : candidates) {
        // The pipeline reads the device attributes to tell which GPU the capture ran on (without them a
        // capture needs --gpu).
        c.required = model_reads.count(c.id) != 0 || c.id.rfind("device__attribute_", 0) == 0;
        for (const auto& [node, ids] : node_reads)
            if (ids.count(c.id)) c.needed_by.push_back(node);
        (c.id.rfind("derived__", 0) == 0 ? plan.section_only : plan.metrics).push_back(std::move(c));
    }
    auto by_id = [](const planned_metric& a, const planned_metric& b) { return a.id < b.id; };
    std::sort(plan.metrics.begin(), plan.metrics.end(), by_id);
    std::sort(plan.section_only.begin(), plan.section_only.end(), by_id);
    return plan;
}

metric_plan make_gh100_metric_plan(const std::string& rules_dir) {
    for (const auto& spec : load_gpu_specs())
        if (spec.id == "h100-sxm") return make_metric_plan(load_rule_trees(rules_dir), spec);
    throw std::logic_error("metric plan: no h100-sxm spec is compiled in");
}

std::string metrics_argument(const metric_plan& plan) {
    std::string s;
    for (const auto& m : plan.metrics) s += (s.empty() ? "" : ",") + m.id;
    return s;
}

}  // namespace roofline::rules
