// The markdown report, read top-down: the GPU and input, the summary table, the ranked
// opportunities, the chart, then one short section per kernel (verdict, the evidence that decided
// it, the top findings with their estimates) whose clocks, resources, full findings and rule-tree
// walk sit in a collapsed <details> block, so the file stays complete.
#include "analyzer/base/format.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <functional>
#include <sstream>

namespace roofline {
namespace {

using doc::phrase;

void write_resources(doc::document& o, const kernel_roofline& k) {
    doc::table_block t{
        {"resource", "work", "peak at capture clock", "busy", "useful", "practical share", "floor", "how"}, {}};
    for (const auto& r : k.resources) {
        const bool floor = info(r.id).in_floor;
        t.rows.push_back(
            {std::string(name(r.id)) + (r.id == k.binding_practical ? " (binds)" : ""),
             r.work > 0 ? format_si(r.work, work_unit(r.id)) : "-",
             r.peak > 0 ? format_si(r.peak, rate_unit(r.id)) + (r.peak_estimated ? " (estimated)" : "") : "-",
             format_percent(r.utilisation), floor ? format_percent(r.useful) : "-",
             floor ? format_percent(r.practical) + (r.practical_default ? " (default)" : "") : "-",
             floor ? format_duration_ns(r.floor_ns) : "-",
             phrase().marked(
                 r.formula +
                 (r.useful_from == useful_basis::busy ? "" : "; useful: " + useful_formula_text(r.useful_from)) +
                 (r.peak_from.empty() ? "" : "; peak " + peak_source_text(r.peak_from)))});
    }
    o.add_table(std::move(t));
    for (const auto& n : k.notes) o.add_paragraph(phrase("Note: ").marked(note_text(n)).words("."));
}

const char* outcome_text(diagnose::visited_node::outcome r) {
    switch (r) {
        case diagnose::visited_node::outcome::fired:
            return "fired";
        case diagnose::visited_node::outcome::not_fired:
            return "no";
        default:
            return "cannot evaluate";
    }
}

// The gain of a finding in a few words: "(est. 5.77x alone; saves 937 us)".
std::string gain_text(const diagnose::finding& f) {
    if (!f.est_speedup) return "";
    return " (est. " + format_times(*f.est_speedup) + " alone; saves " +
           format_duration_ns(*f.est_time_saved_combined_ns) +
           (f.est_time_saved_combined_ns != f.est_time_saved_ns ? " beyond the findings above" : "") + ")";
}

phrase evidence_line(const std::vector<diagnose::evidence_value>& values) {
    phrase out;
    for (std::size_t i = 0; i < values.size(); ++i)
        out.words(i ? ", " : "").code(evidence_name(values[i])).words(" = ").marked(named_value_text(values[i]));
    return out;
}

// A top finding in three lines: what, the numbers that fired it, the first fix.
void write_finding_short(doc::nested_list& o, const diagnose::finding& f, const std::vector<std::string>& tied,
                         bool provisional = false) {
    phrase line = phrase()
                      .strong(f.id)
                      .words((provisional ? " (provisional)" : "") + gain_text(f) + ": ")
                      .marked(finding_title(f))
                      .words(".");
    if (f.est_time_after_ns)
        line.words(" Time after the fix " + format_duration_ns(*f.est_time_after_ns) + ", set by ")
            .marked(binds_after_text(f.binds_after))
            .words(".");
    if (!tied.empty()) {
        std::string t;
        for (const auto& x : tied) t += (t.empty() ? "" : ", ") + x;
        line.words(" Tied within run-to-run noise (" + format_percent(run_to_run_noise) + ") with " + t +
                   ": their times after the fix cannot be told apart, and the order is fixed, not measured.");
    }
    o.items.push_back({0, std::move(line)});
    if (!f.evidence.empty()) o.items.push_back({1, phrase("Evidence: ").append(evidence_line(f.evidence))});
    const std::vector<std::string> fixes = finding_fixes(f);
    if (!fixes.empty()) o.items.push_back({1, phrase("Fix: ").marked(fixes.front())});
}

void write_finding(doc::document& o, const diagnose::finding& f) {
    doc::nested_list l;
    l.items.push_back({0, phrase()
                              .strong(f.id)
                              .words(gain_text(f) + ": ")
                              .marked(finding_title(f))
                              .words(". ")
                              .marked(finding_explain(f))});
    if (f.est_speedup) {
        l.items.push_back(
            {1, phrase("Estimate: ")
                    .marked(finding_estimate_why(f))
                    .words(" Time after the fix " + format_duration_ns(*f.est_time_after_ns) + ", set by ")
                    .marked(binds_after_text(f.binds_after))
                    .words(".")});
        for (const auto& c : finding_estimate_changes(f)) l.items.push_back({2, phrase("changes ").code(c)});
    }
    for (const auto& e : f.evidence)
        l.items.push_back({1, phrase().code(evidence_name(e)).words(" = ").marked(named_value_text(e))});
    for (const auto& x : finding_fixes(f)) l.items.push_back({1, phrase("Fix: ").marked(x)});
    o.add_nested(std::move(l));
}

// Every finding in full, then the path through every tree with the value of each condition's inputs.
void write_diagnosis(doc::document& o, const diagnose::diagnosis& d) {
    if (!d.findings.empty()) {
        o.add_paragraph("Findings:");
        for (const auto& f : d.findings) write_finding(o, f);
    }
    o.add_paragraph("Rule trees walked:");
    doc::nested_list walk;
    for (const auto& v : d.path) {
        std::string values;
        for (const auto& x : v.values)
            values += (values.empty() ? "" : ", ") + evidence_name(x) + " = " + named_value_text(x);
        walk.items.push_back({std::size_t(v.depth),
                              phrase().marked(v.tree + " / " + v.node + ": " + outcome_text(v.result) +
                                              (v.within_noise ? " (within run-to-run noise of where it turns)" : "") +
                                              (values.empty() ? "" : " (" + values + ")"))});
    }
    o.add_nested(std::move(walk));
    for (const auto& n : d.notes) o.add_paragraph(phrase("Note: ").marked(note_text(n)).words("."));
}

void write_header(doc::document& o, const analysis& a) {
    o.add_heading(1, "Roofline report: " + a.input);
    std::vector<phrase> items;
    items.push_back(phrase("GPU: ")
                        .strong(a.gpu.name)
                        .words(" (")
                        .code(a.gpu.id)
                        .words(", ")
                        .marked(gpu_match_text(a.gpu_how))
                        .words("; spec " + a.gpu.file + ")"));
    items.push_back(std::string("Input: ") + ncu_form_name(a.read.form) + ", " + std::to_string(a.launches_kept) +
                    " of " + count_text(a.launches_read, "launch", "launches") + " analysed, " +
                    count_text(a.kernels.size(), "kernel", "kernels") + ", " + format_duration_ns(a.total_ns) +
                    " of GPU time; numbers " + number_style_name(a.read.style) +
                    (a.read.style_assumed ? " (assumed: every grouped value was ambiguous)" : ""));
    if (a.read.skipped_lines)
        items.push_back("Skipped " + count_text(a.read.skipped_lines, "line", "lines") +
                        " that are not CSV (==PROF== lines, program output)");
    for (const auto& n : a.read.notes) items.push_back(phrase("Note: ").marked(n));
    if (!a.default_practical.empty()) {
        std::string names;
        for (resource r : a.default_practical) names += (names.empty() ? "" : ", ") + std::string(name(r));
        items.push_back(phrase("Practical shares of " + names + " are defaults, ")
                            .marked(default_practical_reason())
                            .words(". Each kernel's resource table marks them (default)."));
    }
    std::size_t lacking_kernels = 0;
    for (const auto& k : a.kernels) lacking_kernels += k.diagnosis.undecided.empty() ? 0 : 1;
    if (lacking_kernels > 0)
        items.push_back(phrase().marked(
            "Counters missing: on " + std::to_string(lacking_kernels) + " of " +
            count_text(a.kernels.size(), "kernel", "kernels") +
            " the capture does not decide the verdict, a rule node or an estimate (each kernel's section says what, "
            "and the command that collects it); " +
            (a.read.form == ncu_form::details
                 ? "a details page shows few metrics: the raw page of the same report holds every one collected"
                 : "`roofline metrics --format section` writes every metric the engine reads as one section file")));
    items.push_back(
        "Ceilings: peaks at the clocks the capture ran at, from ncu's peak counters where it has them, else the "
        "spec's figure scaled to that clock (each kernel's resource table says which).");
    std::vector<std::string> estimated;
    for (const auto& k : a.kernels)
        for (const auto& r : k.roof.resources)
            if (r.peak_estimated && std::find(estimated.begin(), estimated.end(), name(r.id)) == estimated.end())
                estimated.push_back(name(r.id));
    if (!estimated.empty()) {
        std::string names;
        for (const auto& e : estimated) names += (names.empty() ? "" : ", ") + e;
        items.push_back(
            "Estimated roofs: " + names +
            " come from spec figures that are neither published for this GPU nor measured in the capture (" +
            a.gpu.file + " says how each was derived); every number built on them is an estimate too.");
    }
    o.add_list(std::move(items));
}

void write_summary(doc::document& o, const analysis& a, const std::vector<std::string>& labels) {
    o.add_heading(2, "Summary");
    doc::table_block t{{"#", "kernel", "origin", "launches", "total time", "% of workload", "AI (FLOP/B, DRAM)",
                        "achieved", "% of roof", "bound / limiter"},
                       {},
                       "sortable kernels"};
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        const auto& k = a.kernels[i];
        t.rows.push_back({std::to_string(i + 1), phrase().code(labels[i]), phrase().marked(origin_label(k.origin)),
                          std::to_string(k.group.launches), format_duration_ns(k.roof.duration_ns),
                          format_percent(k.share), intensity_text(k.roof, resource::dram), achieved_text(k),
                          roof_pct_text(k), verdict_text(k.verdict)});
    }
    o.add_table(std::move(t));
}

void write_opportunities(doc::document& o, const analysis& a, const std::vector<std::string>& labels) {
    const auto ops = opportunities(a);
    if (ops.empty()) return;
    o.add_heading(2, "Opportunities");
    o.add_paragraph(
        "Every finding with a gain estimate, by the GPU time it would save over the whole workload (estimates are "
        "capped by the roof that binds once the fix is in; each kernel's section gives the formula).");
    doc::table_block t{
        {"rank", "kernel", "finding", "est. speedup of the kernel", "est. time saved", "% of workload time"}, {}};
    const std::size_t shown = std::min<std::size_t>(ops.size(), 20);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& op = ops[i];
        const double saved = *op.finding->est_time_saved_combined_ns;
        phrase kernel = phrase(std::to_string(op.kernel_rank + 1) + ". ").code(labels[op.kernel_rank]);
        t.rows.push_back({std::to_string(i + 1), kernel, std::string(op.finding->id),
                          format_times(*op.finding->est_speedup), format_duration_ns(saved),
                          a.total_ns > 0 ? format_percent(saved / a.total_ns) : "-"});
    }
    o.add_table(std::move(t));
    if (ops.size() > shown) o.add_paragraph(std::to_string(ops.size() - shown) + " more in the kernels' sections.");
}

std::string dims_text(const std::optional<launch_dims>& d) { return d ? to_string(*d) : "?"; }

// Findings shown in a kernel's section before its details block.
constexpr std::size_t top_findings = 3;

void write_ncu_rules(doc::document& o, const analysed_kernel& k) {
    if (k.group.rules.empty()) return;
    o.add_paragraph("Nsight Compute says:");
    std::vector<phrase> items;
    for (const auto& r : k.group.rules) {
        phrase p = phrase(r.type + " ").code(r.name).words(" (" + r.section + ")");
        if (r.est_speedup_pct >= 0)
            p.words(", est. speedup " + format_percent(r.est_speedup_pct / 100.0) + " " + r.speedup_type);
        std::string description = r.description;
        std::replace(description.begin(), description.end(), '\n', ' ');
        items.push_back(p.words(": " + description));
    }
    o.add_list(std::move(items));
}

// The command that collects the counters the capture lacks (the chip's own names; never a metric the
// capture already holds), as items of the list `items`.
void write_collect(std::vector<phrase>& items, const diagnose::diagnosis& d, ncu_form form, const chip* c) {
    const diagnose::collect_flags flags = diagnose::ncu_flags_for(d.missing_metrics, c);
    if (!flags.empty()) {
        if (form == ncu_form::details)
            // A details page shows a few display names per section; the raw page of the same report holds every metric
            // collected.
            items.push_back(phrase().marked(
                "The details page shows a few values per section: the raw page of the same report holds every metric "
                "it collected (`ncu -i REPORT.ncu-rep --csv --page raw > report.csv`). What the report lacks, collect "
                "with `ncu " +
                flags.text() + " ...`."));
        else
            items.push_back(phrase()
                                .words("Collect what is missing with ")
                                .code("ncu " + flags.text() + " ...")
                                .marked(", or everything the engine reads with `roofline metrics --format section` "
                                        "(its file serves every GPU)."));
    }
    if (!flags.uncollectable.empty()) {
        phrase u("No counter of this GPU measures ");
        for (std::size_t i = 0; i < flags.uncollectable.size(); ++i)
            u.words(i ? ", " : "").code(flags.uncollectable[i]);
        items.push_back(u.words(": what depends on it stays undecided here."));
    }
}

// What the capture left undecided on this kernel, and what could outrank a provisional first finding.
void write_not_decided(doc::document& o, const analysed_kernel& k, ncu_form form, const chip* c) {
    const diagnose::diagnosis& d = k.diagnosis;
    if (d.undecided.empty() && d.missing_metrics.empty()) return;
    const auto count = static_cast<std::size_t>(std::count_if(d.path.begin(), d.path.end(), [](const auto& v) {
        return v.result == diagnose::visited_node::outcome::cannot_evaluate;
    }));
    std::string what;
    // The nodes are counted here and listed in the collapsed block with what each could not decide; the verdict
    // and the estimates are named here.
    for (const auto& u : d.undecided)
        if (u.kind != diagnose::undecided_item::what::node) what += (what.empty() ? "" : ", ") + undecided_text(u);
    if (count > 0) what += (what.empty() ? "" : ", ") + count_text(count, "rule node", "rule nodes");
    phrase p = phrase().strong("Not decided on this capture:").words(" ").marked(what).words(".");
    if (d.provisional) {
        p.words(" The first finding is provisional: ");
        if (d.could_outrank.empty()) p.words("a rule node that could not be evaluated");
        for (std::size_t i = 0; i < d.could_outrank.size(); ++i) p.words(i ? ", " : "").code(d.could_outrank[i].id);
        p.words(d.could_outrank.size() == 1 ? " may outrank it" : " may outrank it once their counters are in");
        p.words(".");
    } else if (!d.findings.empty() && d.findings.front().id != "missing-counters") {
        p.words(" The first finding stands: its fix already reaches the floor the counters prove.");
    }
    o.add_paragraph(std::move(p));
    // On a details page the first fix already says to re-export the raw page (no new profile): the
    // command that profiles again goes to the collapsed block.
    if (form != ncu_form::details) {
        std::vector<phrase> items;
        write_collect(items, d, form, c);
        if (!items.empty()) o.add_list(std::move(items));
    }
}

// The rule nodes that could not be evaluated, each with the values it lacked: in the collapsed block.
void write_nodes_not_evaluated(std::vector<phrase>& items, const diagnose::diagnosis& d) {
    std::string nodes;
    std::size_t count = 0;
    for (const auto& v : d.path) {
        if (v.result != diagnose::visited_node::outcome::cannot_evaluate) continue;
        // The values it could not decide (a metric, or a derived value built on several); the command
        // above names every metric.
        std::string open;
        for (const auto& x : v.values)
            if (!x.value()) open += (open.empty() ? "" : ", ") + evidence_name(x);
        nodes += std::string(count++ ? "; " : "") + "`" + v.tree + "/" + v.node + "` (" +
                 (open.empty() ? "a value it divides by may be zero" : open) + ")";
    }
    if (count > 0) items.push_back(phrase().marked("Rule nodes not evaluated: " + nodes + "."));
}

// A section of about 25 lines: what the kernel is, its verdict and the numbers that decided it,
// the top findings; then a collapsed block with everything else.
doc::document kernel_section(const analysed_kernel& k, std::size_t rank, const std::string& label, ncu_form form,
                             const chip* c) {
    doc::document o;
    o.add_heading({3, phrase(std::to_string(rank) + ". ").code(label), true});
    std::vector<phrase> facts;
    facts.push_back(
        phrase("Full name: ").code(k.group.name).words("; origin: ").marked(origin_text(k.origin, k.group.cc)));
    facts.push_back(count_text(k.group.launches, "launch", "launches") + " (first: ID " + k.group.first_id + ", line " +
                    std::to_string(k.group.first_line) + "), grid " + dims_text(k.group.grid_size) + ", block " +
                    dims_text(k.group.block_size));
    if (!k.roof.placed) {
        facts.push_back(phrase("Not placed on the roofline: the capture lacks ").marked(lacking_text(k.roof.missing)));
        // What was measured all the same (a capture with times but no roofs: a --metrics export of
        // a GPU no spec identifies).
        if (k.roof.duration_ns > 0) {
            phrase m("Measured: " + format_duration_ns(k.roof.duration_ns) + " (" + format_percent(k.share) +
                     " of the workload)");
            if (k.roof.bytes_dram)
                m.words(", " + format_si(*k.roof.bytes_dram, "B") + " of DRAM traffic (" +
                        format_si(*k.roof.bytes_dram / (k.roof.duration_ns * 1e-9), "B/s") + ")");
            for (const auto& r : k.roof.resources)
                m.words(", " + std::string(name(r.id)) + " " + format_percent(r.utilisation) + " busy (")
                    .code(r.formula)
                    .words(")");
            facts.push_back(std::move(m));
        }
        o.add_list(std::move(facts));
        write_ncu_rules(o, k);
        return o;
    }
    std::string time =
        "Time: " + format_duration_ns(k.roof.duration_ns) + " (" + format_percent(k.share) + " of the workload)";
    if (k.group.launches > 1)
        time += ", " + format_duration_ns(k.roof.duration_ns / double(k.group.launches)) + " per launch";
    time += "; floor " + format_duration_ns(k.roof.floor_ns) + " on " +
            (k.roof.binding ? std::string(name(*k.roof.binding)) : std::string("?")) + ", " +
            format_percent(k.roof.pct_of_roof / 100.0) + " of the roof";
    facts.push_back(time);
    o.add_list(std::move(facts));
    o.add_paragraph(phrase().strong(verdict_text(k.verdict)));
    std::vector<phrase> reasons;
    for (const auto& r : k.verdict.reasons) reasons.push_back(phrase().marked(reason_text(r)));
    o.add_list(std::move(reasons));
    for (const auto& w : k.roof.warnings) o.add_paragraph(phrase("> Warning: ").marked(warning_text(w)));
    const auto& findings = k.diagnosis.findings;
    if (!findings.empty()) {
        o.add_paragraph(std::string(findings.size() > top_findings ? "Top findings" : "Findings") + ":");
        doc::nested_list top;
        for (std::size_t i = 0; i < std::min(findings.size(), top_findings); ++i)
            write_finding_short(top, findings[i], i == 0 ? k.diagnosis.tied_with_first : std::vector<std::string>{},
                                i == 0 && k.diagnosis.provisional);
        o.add_nested(std::move(top));
        if (findings.size() > top_findings)
            o.add_paragraph(count_text(findings.size() - top_findings, "more finding", "more findings") + " below.");
    }
    write_not_decided(o, k, form, c);

    doc::document more;
    std::vector<phrase> lines;
    std::string clocks = "Clocks: SM " + format_si(k.roof.sm_clock_hz, "Hz") + " (" + sm_clock_text(k.roof) + ")";
    if (k.roof.dram_clock_hz > 0) clocks += ", DRAM " + format_si(k.roof.dram_clock_hz, "Hz");
    lines.push_back(phrase().marked(clocks));
    write_nodes_not_evaluated(lines, k.diagnosis);
    if (form == ncu_form::details) write_collect(lines, k.diagnosis, form, c);
    lines.push_back("Arithmetic intensity (FLOP/B): DRAM " + intensity_text(k.roof, resource::dram) + ", L2 " +
                    intensity_text(k.roof, resource::l2) + ", L1 " + intensity_text(k.roof, resource::l1));
    more.add_list(std::move(lines));
    write_resources(more, k.roof);
    write_diagnosis(more, k.diagnosis);
    write_ncu_rules(more, k);
    o.add_details("Clocks, every resource, every finding with its estimate, the rule trees walked", more);
    return o;
}

// The report as documents, part by part: the head (header, summary, opportunities, chart) and a section
// per kernel, each handed to `print` and dropped, so a report of 10,000 kernels is never held whole.
void for_each_part(const analysis& a, const print_options& options,
                   const std::function<std::string(const std::string& alt)>& chart_html,
                   const std::function<void(const doc::document&)>& print) {
    const std::vector<std::string> labels = kernel_labels(a);
    {
        doc::document head;
        write_header(head, a);
        write_summary(head, a, labels);
        write_opportunities(head, a, labels);
        if (!options.chart_file.empty()) {
            const std::string alt =
                "Roofline chart: every kernel, numbered by its row in the summary; those without FLOPs on the memory "
                "panel";
            head.add_figure({alt, options.chart_file, chart_html ? chart_html(alt) : std::string()});
        }
        head.add_heading(2, "Kernels");
        print(head);
    }
    const chip* c = chip_for_cc(a.gpu.compute_capability);
    for (std::size_t i = 0; i < a.kernels.size(); ++i)
        print(kernel_section(a.kernels[i], i + 1, labels[i], a.read.form, c));
}

}  // namespace

void write_markdown(const analysis& a, const print_options& options, std::ostream& o) {
    doc::markdown_writer out(o);
    for_each_part(a, options, nullptr, [&](const doc::document& part) { out.write(part); });
}

void write_report_html_body(const analysis& a, const print_options& options,
                            const std::function<std::string(const std::string& alt)>& chart_html, std::ostream& o) {
    for_each_part(a, options, chart_html, [&](const doc::document& part) { doc::write_html(o, part); });
}

std::string render_markdown(const analysis& a, const print_options& options) {
    std::ostringstream o;
    write_markdown(a, options, o);
    return o.str();
}

}  // namespace roofline
