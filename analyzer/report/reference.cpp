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
std::string mermaid_id(std::string s) {
    for (auto& c : s)
        if (c == '-') c = '_';
    return s;
}

void mermaid(std::ostream& out, const diagnose::rule_node& n, const std::string& parent) {
    out << "  " << mermaid_id(n.id) << "[\"" << n.title << (n.finding.empty() ? "" : " (" + n.finding + ")") << "\"]\n";
    if (!parent.empty()) out << "  " << mermaid_id(parent) << " --> " << mermaid_id(n.id) << "\n";
    for (const auto& c : n.children) mermaid(out, c, n.id);
}

void node_section(std::ostream& out, const diagnose::rule_node& n, int depth) {
    out << "\n" << std::string(std::size_t(depth) + 2, '#') << " " << n.title << " (`" << n.id << "`)\n\n";
    out << "- When: `" << n.when.text() << "`\n";
    if (!n.finding.empty()) out << "- Finding: `" << n.finding << "`\n";
    for (const auto& e : n.evidence) out << "- Evidence: `" << e.text() << "`\n";
    out << "- Why: " << n.explain << "\n";
    for (const auto& f : n.fixes)
        out << "- Fix" << (f.when ? " (when `" + f.when->text() + "`)" : std::string()) << ": " << f.text << "\n";
    for (const auto& c : n.children) node_section(out, c, depth + 1);
}

void collect_findings(const diagnose::rule_node& n, std::string& out) {
    if (!n.finding.empty()) out += (out.empty() ? "" : ", ") + n.finding;
    for (const auto& c : n.children) collect_findings(c, out);
}

}  // namespace

std::string rule_trees_markdown(const std::vector<diagnose::rule_tree>& trees) {
    table t({"tree", "title", "findings", "file"});
    for (const auto& tree : trees) {
        std::string findings;
        for (const auto& r : tree.roots) collect_findings(r, findings);
        t.row({tree.id, tree.title, findings, tree.file});
    }
    return t.markdown();
}

std::string rule_tree_markdown(const diagnose::rule_tree& t) {
    std::ostringstream out;
    out << "# " << t.title << " (`" << t.id << "`, " << t.file << ")\n\n"
        << t.description << "\n\n```mermaid\nflowchart TD\n";
    for (const auto& r : t.roots) mermaid(out, r, "");
    out << "```\n";
    for (const auto& r : t.roots) node_section(out, r, 0);
    return out.str();
}

namespace {

// How the chips that count a quantity otherwise do: "gb20x: `dram__bytes_op_read.sum`; ga100: 0 (why)".
std::string other_chips_text(const metric_entry& m) {
    std::string s;
    auto add = [&](const std::string& chips, const chip_form& f) {
        std::string what;
        switch (f.what) {
            case chip_form::kind::same:
                return;
            case chip_form::kind::counters:
                for (const auto& c : f.counters) what += (what.empty() ? "" : " + ") + code_span(c);
                if (f.scale != 1.0) what = format_number(f.scale) + " x (" + what + ")";
                break;
            case chip_form::kind::zero:
                what = "0: " + f.why;
                break;
            case chip_form::kind::none:
                what = "no counter: " + f.why;
                break;
        }
        s += (s.empty() ? "" : "; ") + chips + ": " + what;
    };
    if (m.from) add("every chip", *m.from);
    // Chips with the same form are written once.
    std::vector<bool> done(chips().size(), false);
    for (std::size_t i = 0; i < chips().size(); ++i) {
        auto it = m.on.find(chips()[i].id);
        if (done[i] || it == m.on.end()) continue;
        std::string names = chips()[i].id;
        for (std::size_t j = i + 1; j < chips().size(); ++j) {
            auto other = m.on.find(chips()[j].id);
            if (other != m.on.end() && other->second.what == it->second.what &&
                other->second.counters == it->second.counters && other->second.scale == it->second.scale &&
                other->second.why == it->second.why) {
                names += ", " + chips()[j].id;
                done[j] = true;
            }
        }
        add(names, it->second);
    }
    return s;
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
    table c({"chip", "compute capability", "GPUs", "names checked against"});
    for (const auto& x : chips()) {
        std::string ccs;
        for (const auto& cc : x.compute_capabilities) ccs += (ccs.empty() ? "" : ", ") + cc;
        c.row({x.id, ccs, x.gpus, code_span("tests/data/ncu_metric_names/" + x.listing + ".txt")});
    }
    out += c.markdown() + "\n";
    table t({"metric", "unit", "meaning", "pitfall", "collected by", "on other chips"});
    for (const auto& m : metric_catalogue())
        t.row({code_span(m.id), m.unit, m.meaning, m.pitfall, m.collected_by, other_chips_text(m)});
    out += t.markdown();
    if (metric_families().empty()) return out;
    out += "\nRead by name pattern, because which of them exist differs by GPU:\n\n";
    table f({"pattern", "for example", "meaning", "collected by"});
    for (const auto& m : metric_families())
        f.row({code_span(m.prefix + "*" + m.suffix), code_span(m.example),
               m.meaning + (m.not_planned.empty() ? "" : " Not in `roofline metrics`: " + m.not_planned + "."),
               m.collected_by});
    return out + f.markdown();
}

std::string gpu_specs_markdown(const std::vector<gpu_spec>& specs) {
    auto v = [](const sourced_number& n) { return n.value ? format_number(*n.value) : std::string("-"); };
    table t({"id", "name", "CC", "SMs", "FP32 TFLOP/s", "dense FP16 tensor TFLOP/s", "DRAM TB/s", "spec file"});
    for (const auto& s : specs)
        t.row({s.id, s.name, s.compute_capability, format_number(s.sm_count.value),
               v(s.peaks_tflops.at(resource::fp32)), v(s.peaks_tflops.at(resource::tensor_fp16)),
               format_number(s.dram_bandwidth_tbs.value), s.file});
    return t.markdown();
}

namespace {

using ojson = nlohmann::ordered_json;

ojson figure(const sourced_number& n) {
    ojson j = {{"value", n.value ? json_number<ojson>(*n.value) : ojson(nullptr)}, {"source", n.source}};
    if (n.estimated) j["estimated"] = true;
    if (n.at_clock_mhz) j["at_clock_mhz"] = json_number<ojson>(*n.at_clock_mhz);
    return j;
}

ojson figure(const required_number& n) {
    ojson j = {{"value", json_number<ojson>(n.value)}, {"source", n.source}};
    if (n.estimated) j["estimated"] = true;
    return j;
}

ojson node_json(const diagnose::rule_node& n) {
    ojson j = {{"id", n.id}, {"title", n.title}, {"when", n.when.text()}};
    if (!n.finding.empty()) j["finding"] = n.finding;
    if (n.estimate) {
        ojson changes = ojson::array();
        for (const auto& c : n.estimate->changes) {
            ojson on = ojson::array();
            for (resource r : c.on) on.push_back(name(r));
            changes.push_back({{"on", on}, {c.add ? "add_ns" : "scale", c.amount.text()}});
        }
        ojson e = {{"fix", diagnose::name(n.estimate->kind)}, {"changes", changes}};
        if (n.estimate->at_least) e["at_least"] = n.estimate->at_least->text();
        if (n.estimate->removes_launch) e["removes_launch"] = true;
        if (n.estimate->removes_atomics) e["removes_atomics"] = true;
        j["estimate"] = e;
    }
    ojson fixes = ojson::array();
    for (const auto& f : n.fixes) {
        ojson x = {{"text", f.text}};
        if (f.when) x["when"] = f.when->text();
        fixes.push_back(x);
    }
    j["fixes"] = fixes;
    ojson children = ojson::array();
    for (const auto& c : n.children) children.push_back(node_json(c));
    j["children"] = children;
    return j;
}

}  // namespace

std::string gpu_specs_json(const std::vector<gpu_spec>& specs) {
    ojson out = ojson::array();
    for (const auto& s : specs) {
        ojson peaks = ojson::object();
        for (const auto& [r, n] : s.peaks_tflops) peaks[name(r)] = figure(n);
        ojson practical = ojson::object();
        for (const auto& [r, n] : s.practical_fraction) practical[name(r)] = figure(n);
        out.push_back({{"id", s.id},
                       {"name", s.name},
                       {"file", s.file},
                       {"compute_capability", s.compute_capability},
                       {"sm_count", figure(s.sm_count)},
                       {"boost_clock_mhz", figure(s.boost_clock_mhz)},
                       {"peaks_tflops", peaks},
                       {"dram_bandwidth_tbs", figure(s.dram_bandwidth_tbs)},
                       {"l2_mib", figure(s.l2_mib)},
                       {"practical_fraction", practical},
                       {"min_kernel_ns", figure(s.min_kernel_ns)},
                       {"same_line_atomic_cycles", figure(s.same_line_atomic_cycles)}});
    }
    return json_text(ojson{{"schema", "roofline-gpus/1"}, {"gpus", out}});
}

std::string rule_trees_json(const std::vector<diagnose::rule_tree>& trees) {
    ojson out = ojson::array();
    for (const auto& t : trees) {
        ojson roots = ojson::array();
        for (const auto& r : t.roots) roots.push_back(node_json(r));
        out.push_back(
            {{"id", t.id}, {"title", t.title}, {"precedence", t.precedence}, {"file", t.file}, {"roots", roots}});
    }
    return json_text(ojson{{"schema", "roofline-rules/1"}, {"trees", out}});
}

}  // namespace roofline
