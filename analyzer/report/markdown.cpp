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

void write_resources(doc::document& out, const kernel_roofline& roof) {
    doc::table_block resource_table{
        {"resource", "work", "peak at capture clock", "busy", "useful", "practical share", "floor", "how"}, {}};
    for (const auto& res_use : roof.resources) {
        const bool floor = info(res_use.id).in_floor;
        resource_table.rows.push_back(
            {std::string(name(res_use.id)) + (res_use.id == roof.binding_practical ? " (binds)" : ""),
             res_use.work > 0 ? format_si(res_use.work, work_unit(res_use.id)) : "-",
             res_use.peak > 0
                 ? format_si(res_use.peak, rate_unit(res_use.id)) + (res_use.peak_estimated ? " (estimated)" : "")
                 : "-",
             format_percent(res_use.utilisation), floor ? format_percent(res_use.useful) : "-",
             floor ? format_percent(res_use.practical) + (res_use.practical_default ? " (default)" : "") : "-",
             floor ? format_duration_ns(res_use.floor_ns) : "-",
             phrase().marked(res_use.formula +
                             (res_use.useful_from == useful_basis::busy
                                  ? ""
                                  : "; useful: " + useful_formula_text(res_use.useful_from)) +
                             (res_use.peak_from.empty() ? "" : "; peak " + peak_source_text(res_use.peak_from)))});
    }
    out.add_table(std::move(resource_table));
    for (const auto& note : roof.notes) out.add_paragraph(phrase("Note: ").marked(note_text(note)).words("."));
}

const char* outcome_text(diagnose::visited_node::outcome result) {
    switch (result) {
        case diagnose::visited_node::outcome::fired:
            return "fired";
        case diagnose::visited_node::outcome::not_fired:
            return "no";
        default:
            return "cannot evaluate";
    }
}

// The gain of a finding in a few words: "(est. 5.77x alone; saves 937 us)".
std::string gain_text(const diagnose::finding& finding) {
    // An open estimate: the least and the most its fix can gain (near-roof's fix is no change, so its bounds say
    // nothing).
    if (!finding.est_speedup && finding.est_speedup_at_most && finding.id != "near-roof") {
        if (finding.est_speedup_at_least)
            return " (est. " + format_times(*finding.est_speedup_at_least) + " to " +
                   format_times(*finding.est_speedup_at_most) + " alone, open)";
        return " (est. at most " + format_times(*finding.est_speedup_at_most) + " alone, open)";
    }
    if (!finding.est_speedup) return "";
    return " (est. " + format_times(*finding.est_speedup) + " alone; saves " +
           format_duration_ns(*finding.est_time_saved_combined_ns) +
           (finding.est_time_saved_combined_ns != finding.est_time_saved_ns ? " beyond the findings above" : "") + ")";
}

phrase evidence_line(const std::vector<diagnose::evidence_value>& values) {
    phrase out;
    for (std::size_t i = 0; i < values.size(); ++i)
        out.words(i ? ", " : "").code(evidence_name(values[i])).words(" = ").marked(named_value_text(values[i]));
    return out;
}

// How a provisional first finding was reached: fired at the capture's bounds, or with every resource at the least
// work its counters prove, or nothing fired even there (unexplained).
std::string provisional_label(const diagnose::finding& finding, bool provisional) {
    if (!provisional) return "";
    if (!finding.at_least_work) return " (provisional)";
    return finding.id == "unexplained" ? " (provisional: nothing fires even at the least work the counters prove)"
                                       : " (provisional, at the least work the counters prove)";
}

// A top finding in three lines: what, the numbers that fired it, the first fix.
void write_finding_short(doc::nested_list& out, const diagnose::finding& finding, const std::vector<std::string>& tied,
                         bool provisional = false) {
    phrase line = phrase()
                      .strong(finding.id)
                      .words(provisional_label(finding, provisional) + gain_text(finding) + ": ")
                      .marked(finding_title(finding))
                      .words(".");
    if (finding.est_time_after_ns)
        line.words(" Time after the fix " + format_duration_ns(*finding.est_time_after_ns) + ", set by ")
            .marked(binds_after_text(finding.binds_after))
            .words(".");
    if (!tied.empty()) {
        std::string tied_list;
        for (const auto& other_id : tied) tied_list += (tied_list.empty() ? "" : ", ") + other_id;
        line.words(" Tied within run-to-run noise (" + format_percent(run_to_run_noise) + ") with " + tied_list +
                   ": their times after the fix cannot be told apart, and the order is fixed, not measured.");
    }
    out.items.push_back({0, std::move(line)});
    if (!finding.evidence.empty())
        out.items.push_back({1, phrase("Evidence: ").append(evidence_line(finding.evidence))});
    const std::vector<std::string> fixes = finding_fixes(finding);
    if (!fixes.empty()) out.items.push_back({1, phrase("Fix: ").marked(fixes.front())});
}

void write_finding(doc::document& out, const diagnose::finding& finding) {
    doc::nested_list list;
    list.items.push_back({0, phrase()
                                 .strong(finding.id)
                                 .words(gain_text(finding) + ": ")
                                 .marked(finding_title(finding))
                                 .words(". ")
                                 .marked(finding_explain(finding))});
    if (finding.est_speedup) {
        list.items.push_back(
            {1, phrase("Estimate: ")
                    .marked(finding_estimate_why(finding))
                    .words(" Time after the fix " + format_duration_ns(*finding.est_time_after_ns) + ", set by ")
                    .marked(binds_after_text(finding.binds_after))
                    .words(".")});
        for (const auto& change : finding_estimate_changes(finding))
            list.items.push_back({2, phrase("changes ").code(change)});
    }
    for (const auto& evidence : finding.evidence)
        list.items.push_back(
            {1, phrase().code(evidence_name(evidence)).words(" = ").marked(named_value_text(evidence))});
    for (const auto& fix_text : finding_fixes(finding)) list.items.push_back({1, phrase("Fix: ").marked(fix_text)});
    out.add_nested(std::move(list));
}

// Every finding in full, then the path through every tree with the value of each condition's inputs.
void write_diagnosis(doc::document& out, const diagnose::diagnosis& diagnosis) {
    if (!diagnosis.findings.empty()) {
        out.add_paragraph("Findings:");
        for (const auto& finding : diagnosis.findings) write_finding(out, finding);
    }
    out.add_paragraph("Rule trees walked:");
    doc::nested_list walk;
    for (const auto& visit : diagnosis.path) {
        std::string values;
        for (const auto& evidence : visit.values)
            values += (values.empty() ? "" : ", ") + evidence_name(evidence) + " = " + named_value_text(evidence);
        walk.items.push_back(
            {std::size_t(visit.depth),
             phrase().marked(visit.tree + " / " + visit.node + ": " + outcome_text(visit.result) +
                             (visit.within_noise ? " (within run-to-run noise of where it turns)" : "") +
                             (values.empty() ? "" : " (" + values + ")"))});
    }
    out.add_nested(std::move(walk));
    for (const auto& note : diagnosis.notes) out.add_paragraph(phrase("Note: ").marked(note_text(note)).words("."));
}

void write_header(doc::document& out, const analysis& analysed) {
    out.add_heading(1, "Roofline report: " + analysed.input);
    std::vector<phrase> items;
    items.push_back(phrase("GPU: ")
                        .strong(analysed.gpu.name)
                        .words(" (")
                        .code(analysed.gpu.id)
                        .words(", ")
                        .marked(gpu_match_text(analysed.gpu_how))
                        .words("; spec " + analysed.gpu.file + ")"));
    items.push_back(
        std::string("Input: ") + ncu_form_name(analysed.read.form) + ", " + std::to_string(analysed.launches_kept) +
        " of " + count_text(analysed.launches_read, "launch", "launches") + " analysed, " +
        count_text(analysed.kernels.size(), "kernel", "kernels") + ", " + format_duration_ns(analysed.total_ns) +
        " of GPU time; numbers " + number_style_name(analysed.read.style) +
        (analysed.read.style_assumed ? " (assumed: every grouped value was ambiguous)" : ""));
    if (analysed.read.skipped_lines)
        items.push_back("Skipped " + count_text(analysed.read.skipped_lines, "line", "lines") +
                        " that are not CSV (==PROF== lines, program output)");
    for (const auto& note : analysed.read.notes) items.push_back(phrase("Note: ").marked(note));
    if (!analysed.default_practical.empty()) {
        std::string names;
        for (resource id : analysed.default_practical) names += (names.empty() ? "" : ", ") + std::string(name(id));
        items.push_back(phrase("Practical shares of " + names + " are defaults, ")
                            .marked(default_practical_reason())
                            .words(". Each kernel's resource table marks them (default)."));
    }
    std::size_t lacking_kernels = 0;
    for (const auto& kernel : analysed.kernels) lacking_kernels += kernel.diagnosis.undecided.empty() ? 0 : 1;
    if (lacking_kernels > 0)
        items.push_back(phrase().marked(
            "Counters missing: on " + std::to_string(lacking_kernels) + " of " +
            count_text(analysed.kernels.size(), "kernel", "kernels") +
            " the capture does not decide the verdict, a rule node or an estimate (each kernel's section says what, "
            "and the command that collects it); " +
            (analysed.read.form == ncu_form::details
                 ? "a details page shows few metrics: the raw page of the same report holds every one collected. "
                   "First, with no new profile: `ncu -i REPORT.ncu-rep --csv --page raw > report_raw.csv`, then "
                   "`roofline analyze report_raw.csv` (or `roofline analyze REPORT.ncu-rep`, which exports it where "
                   "ncu is on the PATH): it decides every finding marked provisional below"
                 : "`roofline metrics --format section` writes every metric the engine reads as one section file")));
    items.push_back(
        "Ceilings: peaks at the clocks the capture ran at, from ncu's peak counters where it has them, else the "
        "spec's figure scaled to that clock (each kernel's resource table says which).");
    std::vector<std::string> estimated;
    for (const auto& kernel : analysed.kernels)
        for (const auto& res_use : kernel.roof.resources)
            if (res_use.peak_estimated &&
                std::find(estimated.begin(), estimated.end(), name(res_use.id)) == estimated.end())
                estimated.push_back(name(res_use.id));
    if (!estimated.empty()) {
        std::string names;
        for (const auto& res_name : estimated) names += (names.empty() ? "" : ", ") + res_name;
        items.push_back(
            "Estimated roofs: " + names +
            " come from spec figures that are neither published for this GPU nor measured in the capture (" +
            analysed.gpu.file + " says how each was derived); every number built on them is an estimate too.");
    }
    out.add_list(std::move(items));
}

void write_summary(doc::document& out, const analysis& analysed, const std::vector<std::string>& labels) {
    out.add_heading(2, "Summary");
    doc::table_block summary_table{{"#", "kernel", "origin", "launches", "total time", "% of workload",
                                    "AI (FLOP/B, DRAM)", "achieved", "% of roof", "bound / limiter"},
                                   {},
                                   "sortable kernels"};
    for (std::size_t i = 0; i < analysed.kernels.size(); ++i) {
        const auto& kernel = analysed.kernels[i];
        summary_table.rows.push_back(
            {std::to_string(i + 1), phrase().code(labels[i]), phrase().marked(origin_label(kernel.origin)),
             std::to_string(kernel.group.launches), format_duration_ns(kernel.roof.duration_ns),
             format_percent(kernel.share), intensity_text(kernel.roof, resource::dram), achieved_text(kernel),
             roof_pct_text(kernel), verdict_text(kernel.verdict)});
    }
    out.add_table(std::move(summary_table));
}

void write_opportunities(doc::document& out, const analysis& analysed, const std::vector<std::string>& labels) {
    const auto ops = opportunities(analysed);
    if (ops.empty()) return;
    out.add_heading(2, "Opportunities");
    out.add_paragraph(
        "Every finding with a gain estimate, by the GPU time it would save over the whole workload (estimates are "
        "capped by the roof that binds once the fix is in; each kernel's section gives the formula).");
    doc::table_block ops_table{
        {"rank", "kernel", "finding", "est. speedup of the kernel", "est. time saved", "% of workload time"}, {}};
    const std::size_t shown = std::min<std::size_t>(ops.size(), 20);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& op = ops[i];
        const double saved = *op.finding->est_time_saved_combined_ns;
        phrase kernel = phrase(std::to_string(op.kernel_rank + 1) + ". ").code(labels[op.kernel_rank]);
        ops_table.rows.push_back({std::to_string(i + 1), kernel, std::string(op.finding->id),
                                  format_times(*op.finding->est_speedup), format_duration_ns(saved),
                                  analysed.total_ns > 0 ? format_percent(saved / analysed.total_ns) : "-"});
    }
    out.add_table(std::move(ops_table));
    if (ops.size() > shown) out.add_paragraph(std::to_string(ops.size() - shown) + " more in the kernels' sections.");
}

std::string dims_text(const std::optional<launch_dims>& dims) { return dims ? to_string(*dims) : "?"; }

// Findings shown in a kernel's section before its details block.
constexpr std::size_t top_findings = 3;

void write_ncu_rules(doc::document& out, const analysed_kernel& kernel) {
    if (kernel.group.rules.empty()) return;
    out.add_paragraph("Nsight Compute says:");
    std::vector<phrase> items;
    for (const auto& rule : kernel.group.rules) {
        phrase line = phrase(rule.type + " ").code(rule.name).words(" (" + rule.section + ")");
        if (rule.est_speedup_pct >= 0)
            line.words(", est. speedup " + format_percent(rule.est_speedup_pct / 100.0) + " " + rule.speedup_type);
        std::string description = rule.description;
        std::replace(description.begin(), description.end(), '\n', ' ');
        items.push_back(line.words(": " + description));
    }
    out.add_list(std::move(items));
}

// The command that collects the counters the capture lacks (the chip's own names; never a metric the
// capture already holds), as items of the list `items`.
void write_collect(std::vector<phrase>& items, const diagnose::diagnosis& diagnosis, ncu_form form,
                   const chip* target_chip) {
    const diagnose::collect_flags flags = diagnose::ncu_flags_for(diagnosis.missing_metrics, target_chip);
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
        phrase lacking_line("No counter of this GPU measures ");
        for (std::size_t i = 0; i < flags.uncollectable.size(); ++i)
            lacking_line.words(i ? ", " : "").code(flags.uncollectable[i]);
        items.push_back(lacking_line.words(": what depends on it stays undecided here."));
    }
}

// What the capture left undecided on this kernel, and what could outrank a provisional first finding.
void write_not_decided(doc::document& out, const analysed_kernel& kernel, ncu_form form, const chip* target_chip) {
    const diagnose::diagnosis& diagnosis = kernel.diagnosis;
    if (diagnosis.undecided.empty() && diagnosis.missing_metrics.empty()) return;
    const auto count =
        static_cast<std::size_t>(std::count_if(diagnosis.path.begin(), diagnosis.path.end(), [](const auto& visit) {
            return visit.result == diagnose::visited_node::outcome::cannot_evaluate;
        }));
    std::string what;
    // The nodes are counted here and listed in the collapsed block with what each could not decide; the verdict
    // and the estimates are named here.
    for (const auto& item : diagnosis.undecided)
        if (item.kind != diagnose::undecided_item::what::node)
            what += (what.empty() ? "" : ", ") + undecided_text(item);
    if (count > 0) what += (what.empty() ? "" : ", ") + count_text(count, "rule node", "rule nodes");
    phrase line = phrase().strong("Not decided on this capture:").words(" ").marked(what).words(".");
    if (diagnosis.provisional) {
        line.words(" The first finding is provisional: ");
        if (!diagnosis.findings.empty() && diagnosis.findings.front().at_least_work)
            line.words(diagnosis.findings.front().id == "unexplained"
                           ? "no rule node fired at this capture's bounds, nor with every resource at the least work "
                             "its counters prove (open shares at their lower bounds, resources without counters at "
                             "none); "
                           : "no rule node fired at this capture's bounds, and it fires with every resource at the "
                             "least work its counters prove (open shares at their lower bounds, resources without "
                             "counters at none); ");
        std::vector<const diagnose::diagnosis::contender*> rivals;
        const diagnose::diagnosis::contender* instead = nullptr;
        for (const auto& listed : diagnosis.could_outrank) {
            if (listed.if_first_gainless)
                instead = &listed;
            else
                rivals.push_back(&listed);
        }
        if (rivals.empty() && !instead) line.words("a rule node that could not be evaluated may outrank it");
        for (std::size_t i = 0; i < rivals.size(); ++i) line.words(i ? ", " : "").code(rivals[i]->id);
        if (!rivals.empty())
            line.words(rivals.size() == 1 ? " may outrank it" : " may outrank it once their counters are in");
        if (instead)
            line.words(std::string(rivals.empty() ? "" : "; ") +
                       "its own gain is open down to none: if it proves "
                       "within run-to-run noise, ")
                .code(instead->id)
                .words(" leads instead");
        line.words(".");
    } else if (!diagnosis.findings.empty() && diagnosis.findings.front().id != "missing-counters") {
        line.words(" The first finding stands: its fix already reaches the floor the counters prove.");
    }
    out.add_paragraph(std::move(line));
    // On a details page the first fix already says to re-export the raw page (no new profile): the
    // command that profiles again goes to the collapsed block.
    if (form != ncu_form::details) {
        std::vector<phrase> items;
        write_collect(items, diagnosis, form, target_chip);
        if (!items.empty()) out.add_list(std::move(items));
    }
}

// The rule nodes that could not be evaluated, each with the values it lacked: in the collapsed block.
void write_nodes_not_evaluated(std::vector<phrase>& items, const diagnose::diagnosis& diagnosis) {
    std::string nodes;
    std::size_t count = 0;
    for (const auto& visit : diagnosis.path) {
        if (visit.result != diagnose::visited_node::outcome::cannot_evaluate) continue;
        // The values it could not decide (a metric, or a derived value built on several); the command
        // above names every metric.
        std::string open;
        for (const auto& evidence : visit.values)
            if (!evidence.value()) open += (open.empty() ? "" : ", ") + evidence_name(evidence);
        nodes += std::string(count++ ? "; " : "") + "`" + visit.tree + "/" + visit.node + "` (" +
                 (open.empty() ? "a value it divides by may be zero" : open) + ")";
    }
    if (count > 0) items.push_back(phrase().marked("Rule nodes not evaluated: " + nodes + "."));
}

// A section of about 25 lines: what the kernel is, its verdict and the numbers that decided it,
// the top findings; then a collapsed block with everything else.
doc::document kernel_section(const analysed_kernel& kernel, std::size_t rank, const std::string& label, ncu_form form,
                             const chip* target_chip) {
    doc::document out;
    out.add_heading({3, phrase(std::to_string(rank) + ". ").code(label), true});
    std::vector<phrase> facts;
    facts.push_back(phrase("Full name: ")
                        .code(kernel.group.name)
                        .words("; origin: ")
                        .marked(origin_text(kernel.origin, kernel.group.cc)));
    facts.push_back(count_text(kernel.group.launches, "launch", "launches") + " (first: ID " + kernel.group.first_id +
                    ", line " + std::to_string(kernel.group.first_line) + "), grid " +
                    dims_text(kernel.group.grid_size) + ", block " + dims_text(kernel.group.block_size));
    if (!kernel.roof.placed) {
        facts.push_back(
            phrase("Not placed on the roofline: the capture lacks ").marked(lacking_text(kernel.roof.missing)));
        // What was measured all the same (a capture with times but no roofs: a --metrics export of
        // a GPU no spec identifies).
        if (kernel.roof.duration_ns > 0) {
            phrase measured("Measured: " + format_duration_ns(kernel.roof.duration_ns) + " (" +
                            format_percent(kernel.share) + " of the workload)");
            if (kernel.roof.bytes_dram)
                measured.words(", " + format_si(*kernel.roof.bytes_dram, "B") + " of DRAM traffic (" +
                               format_si(*kernel.roof.bytes_dram / (kernel.roof.duration_ns * 1e-9), "B/s") + ")");
            for (const auto& res_use : kernel.roof.resources)
                measured
                    .words(", " + std::string(name(res_use.id)) + " " + format_percent(res_use.utilisation) + " busy (")
                    .code(res_use.formula)
                    .words(")");
            facts.push_back(std::move(measured));
        }
        out.add_list(std::move(facts));
        write_ncu_rules(out, kernel);
        return out;
    }
    std::string time = "Time: " + format_duration_ns(kernel.roof.duration_ns) + " (" + format_percent(kernel.share) +
                       " of the workload)";
    if (kernel.group.launches > 1)
        time += ", " + format_duration_ns(kernel.roof.duration_ns / double(kernel.group.launches)) + " per launch";
    time += "; floor " + format_duration_ns(kernel.roof.floor_ns) + " on " +
            (kernel.roof.binding ? std::string(name(*kernel.roof.binding)) : std::string("?")) + ", " +
            format_percent(kernel.roof.pct_of_roof / 100.0) + " of the roof";
    facts.push_back(time);
    out.add_list(std::move(facts));
    out.add_paragraph(phrase().strong(verdict_text(kernel.verdict)));
    std::vector<phrase> reasons;
    for (const auto& reason : kernel.verdict.reasons) reasons.push_back(phrase().marked(reason_text(reason)));
    out.add_list(std::move(reasons));
    for (const auto& warning : kernel.roof.warnings)
        out.add_paragraph(phrase("> Warning: ").marked(warning_text(warning)));
    const auto& findings = kernel.diagnosis.findings;
    if (!findings.empty()) {
        out.add_paragraph(std::string(findings.size() > top_findings ? "Top findings" : "Findings") + ":");
        doc::nested_list top;
        for (std::size_t i = 0; i < std::min(findings.size(), top_findings); ++i)
            write_finding_short(top, findings[i],
                                i == 0 ? kernel.diagnosis.tied_with_first : std::vector<std::string>{},
                                i == 0 && kernel.diagnosis.provisional);
        out.add_nested(std::move(top));
        if (findings.size() > top_findings)
            out.add_paragraph(count_text(findings.size() - top_findings, "more finding", "more findings") + " below.");
    }
    write_not_decided(out, kernel, form, target_chip);

    doc::document more;
    std::vector<phrase> lines;
    std::string clocks =
        "Clocks: SM " + format_si(kernel.roof.sm_clock_hz, "Hz") + " (" + sm_clock_text(kernel.roof) + ")";
    if (kernel.roof.dram_clock_hz > 0) clocks += ", DRAM " + format_si(kernel.roof.dram_clock_hz, "Hz");
    lines.push_back(phrase().marked(clocks));
    write_nodes_not_evaluated(lines, kernel.diagnosis);
    if (form == ncu_form::details) write_collect(lines, kernel.diagnosis, form, target_chip);
    lines.push_back("Arithmetic intensity (FLOP/B): DRAM " + intensity_text(kernel.roof, resource::dram) + ", L2 " +
                    intensity_text(kernel.roof, resource::l2) + ", L1 " + intensity_text(kernel.roof, resource::l1));
    more.add_list(std::move(lines));
    write_resources(more, kernel.roof);
    write_diagnosis(more, kernel.diagnosis);
    write_ncu_rules(more, kernel);
    out.add_details("Clocks, every resource, every finding with its estimate, the rule trees walked", more);
    return out;
}

// The report as documents, part by part: the head (header, summary, opportunities, chart) and a section
// per kernel, each handed to `print` and dropped, so a report of 10,000 kernels is never held whole.
void for_each_part(const analysis& analysed, const print_options& options,
                   const std::function<std::string(const std::string& alt)>& chart_html,
                   const std::function<void(const doc::document&)>& print) {
    const std::vector<std::string> labels = kernel_labels(analysed);
    {
        doc::document head;
        write_header(head, analysed);
        write_summary(head, analysed, labels);
        write_opportunities(head, analysed, labels);
        if (!options.chart_file.empty()) {
            const std::string alt =
                "Roofline chart: every kernel, numbered by its row in the summary; those without FLOPs on the memory "
                "panel";
            head.add_figure({alt, options.chart_file, chart_html ? chart_html(alt) : std::string()});
        }
        head.add_heading(2, "Kernels");
        print(head);
    }
    const chip* target_chip = chip_for_cc(analysed.gpu.compute_capability);
    for (std::size_t i = 0; i < analysed.kernels.size(); ++i)
        print(kernel_section(analysed.kernels[i], i + 1, labels[i], analysed.read.form, target_chip));
}

}  // namespace

void write_markdown(const analysis& analysed, const print_options& options, std::ostream& out) {
    doc::markdown_writer writer(out);
    for_each_part(analysed, options, nullptr, [&](const doc::document& part) { writer.write(part); });
}

void write_report_html_body(const analysis& analysed, const print_options& options,
                            const std::function<std::string(const std::string& alt)>& chart_html, std::ostream& out) {
    for_each_part(analysed, options, chart_html, [&](const doc::document& part) { doc::write_html(out, part); });
}

std::string render_markdown(const analysis& analysed, const print_options& options) {
    std::ostringstream out;
    write_markdown(analysed, options, out);
    return out.str();
}

}  // namespace roofline
