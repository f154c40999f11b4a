#include "analyzer/report/reference.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/render/table.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <sstream>

namespace roofline {
namespace {

// Mermaid ids cannot hold '-'.
std::string mermaid_id(std::string text) {
    for (auto& ch : text)
        if (ch == '-') ch = '_';
    return text;
}

void mermaid(std::ostream& out, const diagnose::rule_node& node, const std::string& parent) {
    out << "  " << mermaid_id(node.id) << "[\"" << node.title << (node.finding.empty() ? "" : " (" + node.finding + ")")
        << "\"]\n";
    if (!parent.empty()) out << "  " << mermaid_id(parent) << " --> " << mermaid_id(node.id) << "\n";
    for (const auto& child : node.children) mermaid(out, child, node.id);
}

void node_section(std::ostream& out, const diagnose::rule_node& node, int depth) {
    out << "\n" << std::string(std::size_t(depth) + 2, '#') << " " << node.title << " (`" << node.id << "`)\n\n";
    out << "- When: `" << node.when.text() << "`\n";
    if (!node.finding.empty()) out << "- Finding: `" << node.finding << "`\n";
    for (const auto& evidence : node.evidence) out << "- Evidence: `" << evidence.text() << "`\n";
    out << "- Why: " << node.explain << "\n";
    for (const auto& node_fix : node.fixes)
        out << "- Fix" << (node_fix.when ? " (when `" + node_fix.when->text() + "`)" : std::string()) << ": "
            << node_fix.text << "\n";
    for (const auto& child : node.children) node_section(out, child, depth + 1);
}

void collect_findings(const diagnose::rule_node& node, std::string& out) {
    if (!node.finding.empty()) out += (out.empty() ? "" : ", ") + node.finding;
    for (const auto& child : node.children) collect_findings(child, out);
}

}  // namespace

std::string rule_trees_markdown(const std::vector<diagnose::rule_tree>& trees) {
    table trees_table({"tree", "title", "findings", "file"});
    for (const auto& tree : trees) {
        std::string findings;
        for (const auto& root : tree.roots) collect_findings(root, findings);
        trees_table.row({tree.id, tree.title, findings, tree.file});
    }
    return trees_table.markdown();
}

std::string rule_tree_markdown(const diagnose::rule_tree& tree) {
    std::ostringstream out;
    out << "# " << tree.title << " (`" << tree.id << "`, " << tree.file << ")\n\n"
        << tree.description << "\n\n```mermaid\nflowchart TD\n";
    for (const auto& root : tree.roots) mermaid(out, root, "");
    out << "```\n";
    for (const auto& root : tree.roots) node_section(out, root, 0);
    return out.str();
}

namespace {

// How the chips that count a quantity otherwise do: "gb20x: `dram__bytes_op_read.sum`; ga100: 0 (why)".
std::string other_chips_text(const metric_entry& metric) {
    std::string text;
    auto add = [&](const std::string& chips, const chip_form& form) {
        std::string what;
        switch (form.what) {
            case chip_form::kind::same:
                return;
            case chip_form::kind::counters:
                for (const auto& counter : form.counters) what += (what.empty() ? "" : " + ") + code_span(counter);
                if (form.scale != 1.0) what = format_number(form.scale) + " x (" + what + ")";
                break;
            case chip_form::kind::zero:
                what = "0: " + form.why;
                break;
            case chip_form::kind::none:
                what = "no counter: " + form.why;
                break;
        }
        text += (text.empty() ? "" : "; ") + chips + ": " + what;
    };
    if (metric.from) add("every chip", *metric.from);
    // Chips with the same form are written once.
    std::vector<bool> done(chips().size(), false);
    for (std::size_t i = 0; i < chips().size(); ++i) {
        auto it = metric.on.find(chips()[i].id);
        if (done[i] || it == metric.on.end()) continue;
        std::string names = chips()[i].id;
        for (std::size_t j = i + 1; j < chips().size(); ++j) {
            auto other = metric.on.find(chips()[j].id);
            if (other != metric.on.end() && other->second.what == it->second.what &&
                other->second.counters == it->second.counters && other->second.scale == it->second.scale &&
                other->second.why == it->second.why) {
                names += ", " + chips()[j].id;
                done[j] = true;
            }
        }
        add(names, it->second);
    }
    return text;
}

}  // namespace

std::string metric_catalogue_markdown() {
    std::string out =
        "# The metrics the engine reads\n\n"
        "Generated from `analyzer/base/metrics.json` by `roofline explain --catalogue`; a test holds this file to it. "
        "Every id is\n"
        "exactly as `ncu --csv --page raw` writes it on a GH100 (H100, H200); the unit is the base unit "
        "(`--print-units base`). All\n"
        "of them are in `--set full`; the section column says which section collects each one on its own. Other chips "
        "name some\n"
        "quantities otherwise, count them as a sum of counters, or have no such unit or no counter for it: the last "
        "column says\n"
        "which, and the reader maps every chip's names onto the ids (`analyzer/read/chip_names.hpp`), each name "
        "checked against\n"
        "that chip's `ncu --query-metrics --chip` listing (`tests/data/ncu_metric_names/`, "
        "`tests/test_metric_names.cpp`).\n\n";
    table chips_table({"chip", "compute capability", "GPUs", "names checked against"});
    for (const auto& chip_entry : chips()) {
        std::string ccs;
        for (const auto& cc : chip_entry.compute_capabilities) ccs += (ccs.empty() ? "" : ", ") + cc;
        chips_table.row({chip_entry.id, ccs, chip_entry.gpus,
                         code_span("tests/data/ncu_metric_names/" + chip_entry.listing + ".txt")});
    }
    out += chips_table.markdown() + "\n";
    table metrics_table({"metric", "unit", "meaning", "pitfall", "collected by", "on other chips"});
    for (const auto& metric : metric_catalogue())
        metrics_table.row({code_span(metric.id), metric.unit, metric.meaning, metric.pitfall, metric.collected_by,
                           other_chips_text(metric)});
    out += metrics_table.markdown();
    if (metric_families().empty()) return out;
    out += "\nRead by name pattern, because which of them exist differs by GPU:\n\n";
    table families_table({"pattern", "for example", "meaning", "collected by"});
    for (const auto& family : metric_families())
        families_table.row(
            {code_span(family.prefix + "*" + family.suffix), code_span(family.example),
             family.meaning +
                 (family.not_planned.empty() ? "" : " Not in `roofline metrics`: " + family.not_planned + "."),
             family.collected_by});
    return out + families_table.markdown();
}

std::string gpu_specs_markdown(const std::vector<gpu_spec>& specs) {
    auto value_text = [](const sourced_number& number) {
        return number.value ? format_number(*number.value) : std::string("-");
    };
    table specs_table(
        {"id", "name", "CC", "SMs", "FP32 TFLOP/s", "dense FP16 tensor TFLOP/s", "DRAM TB/s", "spec file"});
    for (const auto& spec : specs)
        specs_table.row({spec.id, spec.name, spec.compute_capability, format_number(spec.sm_count.value),
                         value_text(spec.peaks_tflops.at(resource::fp32)),
                         value_text(spec.peaks_tflops.at(resource::tensor_fp16)),
                         format_number(spec.dram_bandwidth_tbs.value), spec.file});
    return specs_table.markdown();
}

namespace {

using ojson = nlohmann::ordered_json;

ojson figure(const sourced_number& number) {
    ojson out = {{"value", number.value ? json_number<ojson>(*number.value) : ojson(nullptr)},
                 {"source", number.source}};
    if (number.estimated) out["estimated"] = true;
    if (number.at_clock_mhz) out["at_clock_mhz"] = json_number<ojson>(*number.at_clock_mhz);
    return out;
}

ojson figure(const required_number& number) {
    ojson out = {{"value", json_number<ojson>(number.value)}, {"source", number.source}};
    if (number.estimated) out["estimated"] = true;
    return out;
}

ojson node_json(const diagnose::rule_node& node) {
    ojson out = {{"id", node.id}, {"title", node.title}, {"when", node.when.text()}};
    if (!node.finding.empty()) out["finding"] = node.finding;
    if (node.estimate) {
        ojson changes = ojson::array();
        for (const auto& change : node.estimate->changes) {
            ojson on = ojson::array();
            for (resource id : change.on) on.push_back(name(id));
            changes.push_back({{"on", on}, {change.add ? "add_ns" : "scale", change.amount.text()}});
        }
        ojson estimate = {{"fix", diagnose::name(node.estimate->kind)}, {"changes", changes}};
        if (node.estimate->at_least) estimate["at_least"] = node.estimate->at_least->text();
        if (node.estimate->removes_launch) estimate["removes_launch"] = true;
        if (node.estimate->removes_atomics) estimate["removes_atomics"] = true;
        out["estimate"] = estimate;
    }
    ojson fixes = ojson::array();
    for (const auto& node_fix : node.fixes) {
        ojson fix_out = {{"text", node_fix.text}};
        if (node_fix.when) fix_out["when"] = node_fix.when->text();
        fixes.push_back(fix_out);
    }
    out["fixes"] = fixes;
    ojson children = ojson::array();
    for (const auto& child : node.children) children.push_back(node_json(child));
    out["children"] = children;
    return out;
}

}  // namespace

std::string gpu_specs_json(const std::vector<gpu_spec>& specs) {
    ojson out = ojson::array();
    for (const auto& spec : specs) {
        ojson peaks = ojson::object();
        for (const auto& [id, peak] : spec.peaks_tflops) peaks[name(id)] = figure(peak);
        ojson practical = ojson::object();
        for (const auto& [id, fraction] : spec.practical_fraction) practical[name(id)] = figure(fraction);
        out.push_back({{"id", spec.id},
                       {"name", spec.name},
                       {"file", spec.file},
                       {"compute_capability", spec.compute_capability},
                       {"sm_count", figure(spec.sm_count)},
                       {"boost_clock_mhz", figure(spec.boost_clock_mhz)},
                       {"peaks_tflops", peaks},
                       {"dram_bandwidth_tbs", figure(spec.dram_bandwidth_tbs)},
                       {"l2_mib", figure(spec.l2_mib)},
                       {"practical_fraction", practical},
                       {"min_kernel_ns", figure(spec.min_kernel_ns)},
                       {"same_line_atomic_cycles", figure(spec.same_line_atomic_cycles)}});
    }
    return json_text(ojson{{"schema", "roofline-gpus/1"}, {"gpus", out}});
}

std::string rule_trees_json(const std::vector<diagnose::rule_tree>& trees) {
    ojson out = ojson::array();
    for (const auto& tree : trees) {
        ojson roots = ojson::array();
        for (const auto& root : tree.roots) roots.push_back(node_json(root));
        out.push_back({{"id", tree.id},
                       {"title", tree.title},
                       {"precedence", tree.precedence},
                       {"file", tree.file},
                       {"roots", roots}});
    }
    return json_text(ojson{{"schema", "roofline-rules/1"}, {"trees", out}});
}

}  // namespace roofline
