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
void record_node_reads(const rule_tree& tree, const rule_node& rule, const name_values& facts, reads_by_node& out) {
    metric_read_log log;
    auto read = [&](const expression& expr) {
        for (const auto& name : expr.names()) (void)facts(name);
    };
    read(rule.when);
    for (const auto& evidence_expr : rule.evidence) read(evidence_expr);
    if (rule.estimate) {
        for (const auto& change : rule.estimate->changes) read(change.amount);
        if (rule.estimate->at_least) read(*rule.estimate->at_least);
    }
    for (const auto& node_fix : rule.fixes)
        if (node_fix.when) read(*node_fix.when);
    for (const auto& id : log.ids()) out[tree.id + "/" + rule.id].insert(id);
    for (const auto& child : rule.children) record_node_reads(tree, child, facts, out);
}

const chip& chip_of(const gpu_spec& gpu) {
    if (const chip* found = chip_for_cc(gpu.compute_capability)) return *found;
    std::string known;
    for (const auto& known_chip : chips())
        known += (known.empty() ? "" : ", ") + known_chip.compute_capabilities.front() + " (" + known_chip.id + ")";
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
    kernel_group group;
    group.name = "every metric";
    group.launches = 1;
    group.block_size = launch_dims{{256, 1, 1}};
    group.grid_size = launch_dims{{1056, 1, 1}};
    learnt_reads out;
    for (const gpu_spec* spec : specs) {
        // The model reads some metrics only where an earlier choice is missing (dram__bytes.sum where
        // dram__bytes_read.sum is absent, the SM clock from smsp__ or gpc__ cycles): each metric it read
        // is taken away in turn, with those whose absence led to it, until no run reads anything new.
        // spec_from_capture, the model of a GPU no spec describes, runs alongside.
        auto model_run = [&](const std::set<std::string>& without) {
            kernel_group trimmed = group;
            std::map<std::string, double> kept;
            for (const auto& [id, value] : values)
                if (!without.count(id)) kept[id] = value;
            trimmed.metrics = metric_values(kept);
            metric_read_log log;
            (void)model_kernel(trimmed, *spec);
            (void)spec_from_capture(trimmed.metrics, gpu_identity{});
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
        group.metrics = metric_values(values);
        const kernel_result modelled = model_kernel(group, *spec);
        const name_values facts = kernel_facts(modelled, *spec);
        for (const auto& tree : trees)
            for (const auto& root : tree.roots) record_node_reads(tree, root, facts, out.nodes);
    }
    return out;
}

metric_plan plan_for_chip(const std::vector<rule_tree>& trees, const chip& target_chip,
                          const std::vector<const gpu_spec*>& specs) {
    metric_plan plan;
    plan.for_chip = &target_chip;
    for (const gpu_spec* spec : specs) plan.gpu += (plan.gpu.empty() ? "" : ", ") + spec->id;
    // A kernel that holds every quantity the chip counts (1 each: present and non-zero, so the
    // branches that read a second metric after a first one is found are taken), 0 for the units the
    // chip does not have, and nothing for those it has no counter for.
    std::map<std::string, double> values;
    std::vector<planned_metric> candidates, unavailable;
    for (const auto& entry : metric_catalogue()) {
        if (!entry.stated_by.empty()) continue;  // read from a rule's words on a details page: no counter to ask for
        const chip_form& form = entry.form_on(&target_chip);
        if (form.what == chip_form::kind::zero) {
            values[entry.id] = 0.0;
            continue;
        }
        planned_metric planned{entry.id, names_on(entry, &target_chip), false, {}, entry.collected_by};
        if (form.what == chip_form::kind::none) {
            planned.collected_by = form.why;
            unavailable.push_back(std::move(planned));
            continue;
        }
        values[entry.id] = 1.0;
        candidates.push_back(std::move(planned));
    }
    for (const auto& family : metric_families())
        if (auto it = family.members.find(target_chip.id); it != family.members.end() && family.not_planned.empty())
            for (const auto& id : it->second) {
                values[id] = 1.0;
                candidates.push_back({id, {id}, false, {}, family.collected_by});
            }
    const learnt_reads reads = learn(trees, specs, values);
    auto read_by = [&](planned_metric& planned) {
        // The pipeline reads the device attributes to tell which GPU the capture ran on (without them a
        // capture needs --gpu).
        planned.required = reads.model.count(planned.id) != 0 || planned.id.rfind("device__attribute_", 0) == 0;
        for (const auto& [node, ids] : reads.nodes)
            if (ids.count(planned.id)) planned.needed_by.push_back(node);
        // The stall reasons no rule node reads are the catch-all finding's evidence alone (diagnose.cpp):
        // not planned. On the H100 they cost 4 replay passes of the plan's 24 (examples/h200/forms), and the
        // catch-all says where they are missing and what collects them.
        return planned.required || !planned.needed_by.empty();
    };
    std::set<std::string> sections;
    for (auto& planned : candidates) {
        if (!read_by(planned)) continue;  // some chip's metric that no code reads on this one
        const metric_entry* entry = find_metric(planned.id);
        if (entry && entry->source) {
            sections.insert(entry->source->stock_section);
            plan.section_only.push_back(std::move(planned));
        } else {
            plan.metrics.push_back(std::move(planned));
        }
    }
    for (auto& planned : unavailable)
        if (read_by(planned)) plan.unavailable.push_back(std::move(planned));
    plan.sections.assign(sections.begin(), sections.end());
    return plan;
}

std::vector<const gpu_spec*> specs_of_chip(const std::vector<gpu_spec>& all, const chip& target_chip) {
    std::vector<const gpu_spec*> out;
    for (const auto& spec : all)
        if (chip_for_cc(spec.compute_capability) == &target_chip) out.push_back(&spec);
    return out;
}

}  // namespace

std::size_t metric_plan::required_count() const {
    std::set<std::string> names;
    for (const auto& planned : metrics)
        if (planned.required) names.insert(planned.names.begin(), planned.names.end());
    return names.size();
}

std::vector<std::string> metric_plan::ncu_names() const {
    std::set<std::string> all;
    for (const auto& planned : metrics) all.insert(planned.names.begin(), planned.names.end());
    return {all.begin(), all.end()};
}

metric_plan make_metric_plan(const std::vector<rule_tree>& trees, const gpu_spec& gpu) {
    return plan_for_chip(trees, chip_of(gpu), {&gpu});
}

metric_plan make_metric_plan_for(const std::string& gpu, const std::string& rules_dir) {
    const auto specs = load_gpu_specs();
    const std::string id = resolve_gpu(specs, gpu, "--gpu");
    for (const auto& spec : specs)
        if (spec.id == id) return make_metric_plan(load_rule_trees(rules_dir), spec);
    throw input_error(error_code::unknown_gpu, "--gpu", 0, 0, "\"" + gpu + "\" names no known GPU");
}

std::vector<metric_plan> make_metric_plans(const std::string& rules_dir) {
    const auto specs = load_gpu_specs();
    const auto trees = load_rule_trees(rules_dir);
    std::vector<metric_plan> out;
    for (const auto& known_chip : chips()) {
        const auto of_chip = specs_of_chip(specs, known_chip);
        if (of_chip.empty()) throw std::logic_error("metric plan: no shipped GPU spec is chip " + known_chip.id);
        out.push_back(plan_for_chip(trees, known_chip, of_chip));
    }
    return out;
}

std::string metrics_argument(const metric_plan& plan) {
    std::string joined;
    for (const auto& ncu_name : plan.ncu_names()) joined += (joined.empty() ? "" : ",") + ncu_name;
    return joined;
}

}  // namespace roofline::diagnose
