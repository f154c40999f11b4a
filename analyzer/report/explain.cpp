#include "analyzer/report/explain.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/diagnose/fusion.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"

#include <functional>
#include <sstream>

namespace roofline {
namespace {

std::string finding_text(const rules::rule_tree& t, const rules::rule_node& n) {
    std::ostringstream o;
    o << "# Finding `" << n.finding << "`\n\n" << n.title << ". " << n.explain << "\n\n";
    o << "- Tree: `" << t.id << "` (" << t.file << "), node `" << n.id << "`\n";
    o << "- Fires when: `" << n.when.text() << "`\n";
    for (const auto& e : n.evidence) o << "- Shows: `" << e.text() << "`\n";
    if (n.estimate) {
        o << "- Estimate: " << n.estimate->why << "\n";
        for (const auto& c : n.estimate->changes) {
            std::string on;
            for (resource r : c.on) on += (on.empty() ? "" : ", ") + std::string(name(r));
            o << "  - changes `" << on << (c.add ? " + " : " x ") << "(" << c.amount.text() << ")`\n";
        }
        if (n.estimate->at_least) o << "  - never under `" << n.estimate->at_least->text() << "` ns\n";
    }
    for (const auto& f : n.fixes) o << "- Fix" << (f.when ? " (when `" + f.when->text() + "`)" : std::string()) << ": " << f.text << "\n";
    return o.str();
}

}  // namespace

std::optional<std::string> explain(const std::string& name, const std::vector<rules::rule_tree>& trees) {
    std::optional<std::string> found;
    std::function<void(const rules::rule_tree&, const rules::rule_node&)> visit = [&](const rules::rule_tree& t,
                                                                                      const rules::rule_node& n) {
        if (!found && (n.finding == name || n.id == name) && !n.finding.empty()) found = finding_text(t, n);
        for (const auto& c : n.children) visit(t, c);
    };
    for (const auto& t : trees)
        for (const auto& r : t.roots) visit(t, r);
    if (found) return found;
    if (name == rules::fusion_text::id) {
        std::string text = "# Finding `" + name + "`\n\n" + rules::fusion_text::title +
                           ". Found across kernels, not by a tree (analyzer/diagnose/fusion.cpp): launches in a row on the same grid and "
                           "block, each bound by DRAM, where each reads from DRAM within " +
                           general(100.0 * rules::fusion_text::same_buffer_tolerance, 3) + "%" +
                           " of the bytes the one before wrote.\n\n"
                           "- Time once fixed (the estimate): (DRAM bytes of the run - 2 x the bytes passed between them) / (peak_dram x "
                           "practical_dram), for the whole run\n";
        for (const auto& f : rules::fusion_text::fixes()) text += "- Fix: " + f + "\n";
        return text + "- Caveat: counters cannot tell that the next kernel reads this one's output; the source can\n";
    }
    if (name == "unexplained")
        return "# Finding `unexplained`\n\n" + std::string(rules::unexplained_title) +
               ". Given to a kernel where no diagnosis tree fired "
               "(analyzer/diagnose/diagnose.cpp), so every kernel gets an answer: its evidence is what the warps waited on (the three "
               "largest stall shares) and its estimate the kernel's largest floor at the practical shares, which no fix beats.\n";
    auto metric_text = [](const metric_entry& m) {
        return "# Metric `" + m.id + "`" + (m.unit.empty() ? "" : " (" + m.unit + ")") + "\n\n" + m.meaning + "\n" +
               (m.pitfall.empty() ? "" : "\nPitfall: " + m.pitfall + "\n") + "\nCollected by: " + m.collected_by + "\n";
    };
    if (const metric_entry* m = find_metric(name)) return metric_text(*m);
    const std::string reason = name.rfind("stall_", 0) == 0 ? name.substr(6) : name;
    if (const metric_entry* m = find_metric("smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio"))
        return "# Stall reason `" + reason + "`\n\n" + m->meaning + "\n\nMetric: `" + m->id + "`\n";
    for (const auto& [fact, doc] : rules::derived_fact_docs())
        if (fact == name ||
            (fact.find('<') != std::string::npos && name.rfind(fact.substr(0, fact.find('<')), 0) == 0 && rules::fact_type(name)))
            return "# Derived value `" + name + "`\n\n" + doc + " (rules can read it; see rules/README.md).\n";
    for (int c = int(error_code::io); c <= int(error_code::usage); ++c)
        if (name == error_code_name(error_code(c)))
            return "# Error `" + name + "`\n\n" + std::string(error_code_summary(error_code(c))) +
                   ". Exit code 2; no output file is written.\n";
    return std::nullopt;
}

}  // namespace roofline
