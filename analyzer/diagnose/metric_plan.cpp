#include "analyzer/diagnose/metric_plan.hpp"

#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"

#include "analyzer/base/did_you_mean.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/read/metric_values.hpp"
#include "models/capture_spec.hpp"
#include "models/kernel_result.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace roofline::diagnose {
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
    for (const auto& id : log.ids()) out[t.id + "/" + n.id].insert(id);
    for (const auto& c : n.children) record_node_reads(t, c, facts, out);
}

const chip& chip_of(const gpu_spec& gpu) {
    if (const chip* c = chip_for_cc(gpu.compute_capability)) return *c;
    std::string known;
    for (const auto& c : chips())
        known += (known.empty() ? "" : ", ") + c.compute_capabilities.front() + " (" + c.id + ")";
    throw input_error(error_code::usage, "", 0, 0,
                      gpu.id + " is compute capability " + gpu.compute_capability +
                          ", whose counter names the metric catalogue does not know (it knows CC " + known + ")");
}

// What the model and every rule node read on the GPUs of `specs` (one chip), over a kernel that holds
// `values`: the model's reads, and the reads of each node.
struct learnt_reads {
    std::set<std::string> model;
    reads_by_node nodes;
};

learnt_reads learn(const std::vector<rule_tree>& trees, const std::vector<const gpu_spec*>& specs,
                   const std::map<std::string, double>& values) {
    kernel_group g;
    g.name = "every metric";
    g.launches = 1;
    g.block_size = launch_dims{{256, 1, 1}};
    g.grid_size = launch_dims{{1056, 1, 1}};
    learnt_reads out;
    for (const gpu_spec* spec : specs) {
        // The model reads some metrics only where an earlier choice is missing (dram__bytes.sum where
        // dram__bytes_read.sum is absent, the SM clock from smsp__ or gpc__ cycles): each metric it read
        // is taken away in turn, with those whose absence led to it, until no run reads anything new.
        // spec_from_capture, the model of a GPU no spec describes, runs alongside.
        auto model_run = [&](const std::set<std::string>& without) {
            kernel_group h = g;
            std::map<std::string, double> kept;
            for (const auto& [id, v] : values)
                if (!without.count(id)) kept[id] = v;
            h.metrics = metric_values(kept);
            metric_read_log log;
            (void)model_kernel(h, *spec);
            (void)spec_from_capture(h.metrics, gpu_identity{});
            return log.ids();
        };
        std::set<std::string> reads = model_run({});
        std::vector<std::set<std::string>> to_try;
        for (const auto& id : reads) to_try.push_back({id});
        while (!to_try.empty()) {
            const auto without = to_try.back();
            to_try.pop_back();
            for (const auto& id : model_run(without))
                if (reads.insert(id).second) {
                    auto next = without;
                    next.insert(id);
                    to_try.push_back(next);
                }
        }
        out.model.insert(reads.begin(), reads.end());
        g.metrics = metric_values(values);
        const kernel_result k = model_kernel(g, *spec);
        const name_values facts = kernel_facts(k, *spec);
        for (const auto& t : trees)
            for (const auto& r : t.roots) record_node_reads(t, r, facts, out.nodes);
    }
    return out;
}

metric_plan plan_for_chip(const std::vector<rule_tree>& trees, const chip& c,
                          const std::vector<const gpu_spec*>& specs) {
    metric_plan plan;
    plan.for_chip = &c;
    for (const gpu_spec* s : specs) plan.gpu += (plan.gpu.empty() ? "" : ", ") + s->id;
    // A kernel that holds every quantity the chip counts (1 each: present and non-zero, so the
    // branches that read a second metric after a first one is found are taken), 0 for the units the
    // chip does not have, and nothing for those it has no counter for.
    std::map<std::string, double> values;
    std::vector<planned_metric> candidates, unavailable;
    for (const auto& m : metric_catalogue()) {
        if (!m.stated_by.empty()) continue;  // read from a rule's words on a details page: no counter to ask for
        const chip_form& f = m.form_on(&c);
        if (f.what == chip_form::kind::zero) {
            values[m.id] = 0.0;
            continue;
        }
        planned_metric p{m.id, names_on(m, &c), false, {}, m.collected_by};
        if (f.what == chip_form::kind::none) {
            p.collected_by = f.why;
            unavailable.push_back(std::move(p));
            continue;
        }
        values[m.id] = 1.0;
        candidates.push_back(std::move(p));
    }
    for (const auto& f : metric_families())
        if (auto it = f.members.find(c.id); it != f.members.end() && f.not_planned.empty())
            for (const auto& id : it->second) {
                values[id] = 1.0;
                candidates.push_back({id, {id}, false, {}, f.collected_by});
            }
    const learnt_reads reads = learn(trees, specs, values);
    auto read_by = [&](planned_metric& p) {
        // The pipeline reads the device attributes to tell which GPU the capture ran on (without them a
        // capture needs --gpu).
        p.required = reads.model.count(p.id) != 0 || p.id.rfind("device__attribute_", 0) == 0;
        for (const auto& [node, ids] : reads.nodes)
            if (ids.count(p.id)) p.needed_by.push_back(node);
        // The stall reasons no rule node reads are the catch-all finding's evidence alone (diagnose.cpp):
        // not planned. On the H100 they cost 4 replay passes of the plan's 24 (examples/h200/forms), and the
        // catch-all says where they are missing and what collects them.
        return p.required || !p.needed_by.empty();
    };
    std::set<std::string> sections;
    for (auto& p : candidates) {
        if (!read_by(p)) continue;  // some chip's metric that no code reads on this one
        const metric_entry* m = find_metric(p.id);
        if (m && m->source) {
            sections.insert(m->source->stock_section);
            plan.section_only.push_back(std::move(p));
        } else {
            plan.metrics.push_back(std::move(p));
        }
    }
    for (auto& p : unavailable)
        if (read_by(p)) plan.unavailable.push_back(std::move(p));
    plan.sections.assign(sections.begin(), sections.end());
    return plan;
}

std::vector<const gpu_spec*> specs_of_chip(const std::vector<gpu_spec>& all, const chip& c) {
    std::vector<const gpu_spec*> out;
    for (const auto& s : all)
        if (chip_for_cc(s.compute_capability) == &c) out.push_back(&s);
    return out;
}

}  // namespace

std::size_t metric_plan::required_count() const {
    std::set<std::string> names;
    for (const auto& m : metrics)
        if (m.required) names.insert(m.names.begin(), m.names.end());
    return names.size();
}

std::vector<std::string> metric_plan::ncu_names() const {
    std::set<std::string> all;
    for (const auto& m : metrics) all.insert(m.names.begin(), m.names.end());
    return {all.begin(), all.end()};
}

metric_plan make_metric_plan(const std::vector<rule_tree>& trees, const gpu_spec& gpu) {
    return plan_for_chip(trees, chip_of(gpu), {&gpu});
}

metric_plan make_metric_plan_for(const std::string& gpu, const std::string& rules_dir) {
    const auto specs = load_gpu_specs();
    const std::string id = resolve_gpu(specs, gpu, "--gpu");
    for (const auto& s : specs)
        if (s.id == id) return make_metric_plan(load_rule_trees(rules_dir), s);
    throw input_error(error_code::unknown_gpu, "--gpu", 0, 0, "\"" + gpu + "\" names no known GPU");
}

std::vector<metric_plan> make_metric_plans(const std::string& rules_dir) {
    const auto specs = load_gpu_specs();
    const auto trees = load_rule_trees(rules_dir);
    std::vector<metric_plan> out;
    for (const auto& c : chips()) {
        const auto of_chip = specs_of_chip(specs, c);
        if (of_chip.empty()) throw std::logic_error("metric plan: no shipped GPU spec is chip " + c.id);
        out.push_back(plan_for_chip(trees, c, of_chip));
    }
    return out;
}

std::string metrics_argument(const metric_plan& plan) {
    std::string s;
    for (const auto& n : plan.ncu_names()) s += (s.empty() ? "" : ",") + n;
    return s;
}

}  // namespace roofline::diagnose
