// The markdown report, read top-down: the GPU and input, the summary table, the ranked
// opportunities, the chart, then one short section per kernel (verdict, the evidence that decided
// it, the top findings with their estimates) whose clocks, resources, full findings and rule-tree
// walk sit in a collapsed <details> block, so the file stays complete.
#include "analyzer/base/format.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <sstream>

namespace roofline {
namespace {

// A label in a heading: as code. Headings are no table, so the '|' a table would escape is escaped
// here too.
std::string heading_name(const std::string& label) {
    std::string out;
    for (char c : code_span(label)) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

void write_resources(std::ostream& o, const kernel_roofline& k) {
    table t({"resource", "work", "peak at capture clock", "busy", "useful", "practical share", "floor", "how"});
    for (const auto& r : k.resources) {
        const bool floor = info(r.id).in_floor;
        t.row({std::string(name(r.id)) + (r.id == k.binding_practical ? " (binds)" : ""),
               r.work > 0 ? format_si(r.work, work_unit(r.id)) : "-",
               r.peak > 0 ? format_si(r.peak, rate_unit(r.id)) + (r.peak_estimated ? " (estimated)" : "") : "-",
               format_percent(r.utilisation), floor ? format_percent(r.useful) : "-",
               floor ? format_percent(r.practical) + (r.practical_default ? " (default)" : "") : "-",
               floor ? format_duration_ns(r.floor_ns) : "-",
               r.formula +
                   (r.useful_from == useful_basis::busy ? "" : "; useful: " + useful_formula_text(r.useful_from)) +
                   (r.peak_from.empty() ? "" : "; peak " + peak_source_text(r.peak_from))});
    }
    o << t.markdown();
    for (const auto& n : k.notes) o << "\nNote: " << note_text(n) << ".\n";
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

std::string evidence_line(const std::vector<diagnose::evidence_value>& values) {
    std::string out;
    for (const auto& e : values)
        out += (out.empty() ? "" : ", ") + code_span(evidence_name(e)) + " = " + named_value_text(e);
    return out;
}

// A top finding in three lines: what, the numbers that fired it, the first fix.
void write_finding_short(std::ostream& o, const diagnose::finding& f, const std::vector<std::string>& tied,
                         bool provisional = false) {
    o << "- **" << f.id << "**" << (provisional ? " (provisional)" : "") << gain_text(f) << ": " << finding_title(f)
      << ".";
    if (f.est_time_after_ns)
        o << " Time after the fix " << format_duration_ns(*f.est_time_after_ns) << ", set by "
          << binds_after_text(f.binds_after) << ".";
    if (!tied.empty()) {
        std::string t;
        for (const auto& x : tied) t += (t.empty() ? "" : ", ") + x;
        o << " Tied within run-to-run noise (" << format_percent(run_to_run_noise) << ") with " << t
          << ": their times after the fix cannot be told apart, and the order is fixed, not measured.";
    }
    o << "\n";
    if (!f.evidence.empty()) o << "  - Evidence: " << evidence_line(f.evidence) << "\n";
    const std::vector<std::string> fixes = finding_fixes(f);
    if (!fixes.empty()) o << "  - Fix: " << fixes.front() << "\n";
}

void write_finding(std::ostream& o, const diagnose::finding& f) {
    o << "\n- **" << f.id << "**" << gain_text(f) << ": " << finding_title(f) << ". " << finding_explain(f) << "\n";
    if (f.est_speedup) {
        o << "  - Estimate: " << finding_estimate_why(f) << " Time after the fix "
          << format_duration_ns(*f.est_time_after_ns) << ", set by " << binds_after_text(f.binds_after) << ".\n";
        for (const auto& c : finding_estimate_changes(f)) o << "    - changes `" << c << "`\n";
    }
    for (const auto& e : f.evidence) o << "  - `" << evidence_name(e) << "` = " << named_value_text(e) << "\n";
    for (const auto& x : finding_fixes(f)) o << "  - Fix: " << x << "\n";
}

// Every finding in full, then the path through every tree with the value of each condition's inputs.
void write_diagnosis(std::ostream& o, const diagnose::diagnosis& d) {
    if (!d.findings.empty()) {
        o << "\nFindings:\n";
        for (const auto& f : d.findings) write_finding(o, f);
    }
    o << "\nRule trees walked:\n\n";
    for (const auto& v : d.path) {
        o << std::string(2 * std::size_t(v.depth), ' ') << "- " << v.tree << " / " << v.node << ": "
          << outcome_text(v.result) << (v.within_noise ? " (within run-to-run noise of where it turns)" : "");
        std::string values;
        for (const auto& x : v.values)
            values += (values.empty() ? "" : ", ") + evidence_name(x) + " = " + named_value_text(x);
        if (!values.empty()) o << " (" << values << ")";
        o << "\n";
    }
    for (const auto& n : d.notes) o << "\nNote: " << note_text(n) << ".\n";
}

void write_header(std::ostream& o, const analysis& a) {
    o << "# Roofline report: " << a.input << "\n\n";
    o << "- GPU: **" << a.gpu.name << "** (`" << a.gpu.id << "`, " << gpu_match_text(a.gpu_how) << "; spec "
      << a.gpu.file << ")\n";
    o << "- Input: " << ncu_form_name(a.read.form) << ", " << a.launches_kept << " of "
      << count_text(a.launches_read, "launch", "launches") << " analysed, "
      << count_text(a.kernels.size(), "kernel", "kernels") << ", " << format_duration_ns(a.total_ns)
      << " of GPU time; numbers " << number_style_name(a.read.style)
      << (a.read.style_assumed ? " (assumed: every grouped value was ambiguous)" : "") << "\n";
    if (a.read.skipped_lines)
        o << "- Skipped " << count_text(a.read.skipped_lines, "line", "lines")
          << " that are not CSV (==PROF== lines, program output)\n";
    for (const auto& n : a.read.notes) o << "- Note: " << n << "\n";
    if (!a.default_practical.empty()) {
        std::string names;
        for (resource r : a.default_practical) names += (names.empty() ? "" : ", ") + std::string(name(r));
        o << "- Practical shares of " << names << " are defaults, " << default_practical_reason()
          << ". Each kernel's resource table marks them (default).\n";
    }
    std::size_t lacking_kernels = 0;
    for (const auto& k : a.kernels) lacking_kernels += k.diagnosis.undecided.empty() ? 0 : 1;
    if (lacking_kernels > 0)
        o << "- Counters missing: on " << lacking_kernels << " of " << count_text(a.kernels.size(), "kernel", "kernels")
          << " the capture does not decide the verdict, a rule node or an estimate (each kernel's section says what, "
             "and the command "
             "that collects it); "
          << (a.read.form == ncu_form::details
                  ? "a details page shows few metrics: the raw page of the same report holds every one collected\n"
                  : "`roofline metrics --format section` writes every metric the engine reads as one section file\n");
    o << "- Ceilings: peaks at the clocks the capture ran at, from ncu's peak counters where it has them, else the "
         "spec's figure "
         "scaled to that clock (each kernel's resource table says which).\n";
    std::vector<std::string> estimated;
    for (const auto& k : a.kernels)
        for (const auto& r : k.roof.resources)
            if (r.peak_estimated && std::find(estimated.begin(), estimated.end(), name(r.id)) == estimated.end())
                estimated.push_back(name(r.id));
    if (!estimated.empty()) {
        std::string names;
        for (const auto& e : estimated) names += (names.empty() ? "" : ", ") + e;
        o << "- Estimated roofs: " << names
          << " come from spec figures that are neither published for this GPU nor measured in the "
          << "capture (" << a.gpu.file
          << " says how each was derived); every number built on them is an estimate too.\n";
    }
    o << "\n";
}

void write_summary(std::ostream& o, const analysis& a, const std::vector<std::string>& labels) {
    o << "## Summary\n\n";
    table t({"#", "kernel", "origin", "launches", "total time", "% of workload", "AI (FLOP/B, DRAM)", "achieved",
             "% of roof", "bound / limiter"});
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        const auto& k = a.kernels[i];
        t.row({std::to_string(i + 1), code_span(labels[i]), origin_label(k.origin), std::to_string(k.group.launches),
               format_duration_ns(k.roof.duration_ns), format_percent(k.share), intensity_text(k.roof, resource::dram),
               achieved_text(k), roof_pct_text(k), verdict_text(k.verdict)});
    }
    o << t.markdown();
}

void write_opportunities(std::ostream& o, const analysis& a, const std::vector<std::string>& labels) {
    const auto ops = opportunities(a);
    if (ops.empty()) return;
    o << "\n## Opportunities\n\nEvery finding with a gain estimate, by the GPU time it would save over the whole "
         "workload "
         "(estimates are capped by the roof that binds once the fix is in; each kernel's section gives the "
         "formula).\n\n";
    table t({"rank", "kernel", "finding", "est. speedup of the kernel", "est. time saved", "% of workload time"});
    const std::size_t shown = std::min<std::size_t>(ops.size(), 20);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& op = ops[i];
        const double saved = *op.finding->est_time_saved_combined_ns;
        t.row({std::to_string(i + 1), std::to_string(op.kernel_rank + 1) + ". " + code_span(labels[op.kernel_rank]),
               op.finding->id, format_times(*op.finding->est_speedup), format_duration_ns(saved),
               a.total_ns > 0 ? format_percent(saved / a.total_ns) : "-"});
    }
    o << t.markdown();
    if (ops.size() > shown) o << "\n" << ops.size() - shown << " more in the kernels' sections.\n";
}

std::string dims_text(const std::optional<launch_dims>& d) { return d ? to_string(*d) : "?"; }

// Findings shown in a kernel's section before its details block.
constexpr std::size_t top_findings = 3;

void write_ncu_rules(std::ostream& o, const analysed_kernel& k) {
    if (k.group.rules.empty()) return;
    o << "\nNsight Compute says:\n\n";
    for (const auto& r : k.group.rules) {
        o << "- " << r.type << " `" << r.name << "` (" << r.section << ")";
        if (r.est_speedup_pct >= 0)
            o << ", est. speedup " << format_percent(r.est_speedup_pct / 100.0) << " " << r.speedup_type;
        std::string description = r.description;
        std::replace(description.begin(), description.end(), '\n', ' ');
        o << ": " << description << "\n";
    }
}

// The command that collects the counters the capture lacks (the chip's own names; never a metric the
// capture already holds). `gap`: a blank line before the first bullet.
void write_collect(std::ostream& o, const diagnose::diagnosis& d, ncu_form form, const chip* c, bool gap) {
    const diagnose::collect_flags flags = diagnose::ncu_flags_for(d.missing_metrics, c);
    if (gap && (!flags.empty() || !flags.uncollectable.empty())) o << "\n";
    if (!flags.empty()) {
        if (form == ncu_form::details)
            // A details page shows a few display names per section; the raw page of the same report holds every metric
            // collected.
            o << "- The details page shows a few values per section: the raw page of the same report holds every "
                 "metric it collected "
                 "(`ncu -i REPORT.ncu-rep --csv --page raw > report.csv`). What the report lacks, collect with `ncu "
              << flags.text() << " ...`.\n";
        else
            o << "- Collect what is missing with `ncu " << flags.text()
              << " ...`, or everything the engine reads with `roofline metrics --format section` (its file serves "
                 "every GPU).\n";
    }
    if (!flags.uncollectable.empty()) {
        std::string u;
        for (const auto& id : flags.uncollectable) u += (u.empty() ? "" : ", ") + code_span(id);
        o << "- No counter of this GPU measures " << u << ": what depends on it stays undecided here.\n";
    }
}

// What the capture left undecided on this kernel, and what could outrank a provisional first finding.
void write_not_decided(std::ostream& o, const analysed_kernel& k, ncu_form form, const chip* c) {
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
    o << "\n**Not decided on this capture:** " << what << ".";
    if (d.provisional) {
        std::string who;
        for (const auto& c : d.could_outrank) who += (who.empty() ? "" : ", ") + code_span(c.id);
        o << " The first finding is provisional: "
          << (who.empty() ? std::string("a rule node that could not be evaluated") : who)
          << (d.could_outrank.size() == 1 ? " may outrank it" : " may outrank it once their counters are in");
        o << ".";
    } else if (!d.findings.empty() && d.findings.front().id != "missing-counters") {
        o << " The first finding stands: its fix already reaches the floor the counters prove.";
    }
    o << "\n";
    // On a details page the first fix already says to re-export the raw page (no new profile): the
    // command that profiles again goes to the collapsed block.
    if (form != ncu_form::details) write_collect(o, d, form, c, true);
}

// The rule nodes that could not be evaluated, each with the values it lacked: in the collapsed block.
void write_nodes_not_evaluated(std::ostream& o, const diagnose::diagnosis& d) {
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
    if (count > 0) o << "- Rule nodes not evaluated: " << nodes << ".\n";
}

// A section of about 25 lines: what the kernel is, its verdict and the numbers that decided it,
// the top findings; then a collapsed block with everything else.
void write_kernel(std::ostream& o, const analysed_kernel& k, std::size_t rank, const std::string& label, ncu_form form,
                  const chip* c) {
    o << "\n### " << rank << ". " << heading_name(label) << "\n\n";
    o << "- Full name: " << code_span(k.group.name) << "; origin: " << origin_text(k.origin, k.group.cc) << "\n";
    o << "- " << count_text(k.group.launches, "launch", "launches") << " (first: ID " << k.group.first_id << ", line "
      << k.group.first_line << "), grid " << dims_text(k.group.grid_size) << ", block " << dims_text(k.group.block_size)
      << "\n";
    if (!k.roof.placed) {
        o << "- Not placed on the roofline: the capture lacks " << lacking_text(k.roof.missing) << "\n";
        // What was measured all the same (a capture with times but no roofs: a --metrics export of
        // a GPU no spec identifies).
        if (k.roof.duration_ns > 0) {
            o << "- Measured: " << format_duration_ns(k.roof.duration_ns) << " (" << format_percent(k.share)
              << " of the workload)";
            if (k.roof.bytes_dram)
                o << ", " << format_si(*k.roof.bytes_dram, "B") << " of DRAM traffic ("
                  << format_si(*k.roof.bytes_dram / (k.roof.duration_ns * 1e-9), "B/s") << ")";
            for (const auto& r : k.roof.resources)
                o << ", " << name(r.id) << " " << format_percent(r.utilisation) << " busy (" << code_span(r.formula)
                  << ")";
            o << "\n";
        }
        write_ncu_rules(o, k);
        return;
    }
    o << "- Time: " << format_duration_ns(k.roof.duration_ns) << " (" << format_percent(k.share) << " of the workload)";
    if (k.group.launches > 1)
        o << ", " << format_duration_ns(k.roof.duration_ns / double(k.group.launches)) << " per launch";
    o << "; floor " << format_duration_ns(k.roof.floor_ns) << " on " << (k.roof.binding ? name(*k.roof.binding) : "?")
      << ", " << format_percent(k.roof.pct_of_roof / 100.0) << " of the roof\n";
    o << "\n**" << verdict_text(k.verdict) << "**\n\n";
    for (const auto& r : k.verdict.reasons) o << "- " << reason_text(r) << "\n";
    for (const auto& w : k.roof.warnings) o << "\n> Warning: " << warning_text(w) << "\n";
    const auto& findings = k.diagnosis.findings;
    if (!findings.empty()) {
        o << "\n" << (findings.size() > top_findings ? "Top findings" : "Findings") << ":\n\n";
        for (std::size_t i = 0; i < std::min(findings.size(), top_findings); ++i)
            write_finding_short(o, findings[i], i == 0 ? k.diagnosis.tied_with_first : std::vector<std::string>{},
                                i == 0 && k.diagnosis.provisional);
        if (findings.size() > top_findings)
            o << "\n" << count_text(findings.size() - top_findings, "more finding", "more findings") << " below.\n";
    }
    write_not_decided(o, k, form, c);

    o << "\n<details><summary>Clocks, every resource, every finding with its estimate, the rule trees "
         "walked</summary>\n\n";
    o << "- Clocks: SM " << format_si(k.roof.sm_clock_hz, "Hz") << " (" << sm_clock_text(k.roof) << ")";
    if (k.roof.dram_clock_hz > 0) o << ", DRAM " << format_si(k.roof.dram_clock_hz, "Hz");
    o << "\n";
    write_nodes_not_evaluated(o, k.diagnosis);
    if (form == ncu_form::details) write_collect(o, k.diagnosis, form, c, false);
    o << "- Arithmetic intensity (FLOP/B): DRAM " << intensity_text(k.roof, resource::dram) << ", L2 "
      << intensity_text(k.roof, resource::l2) << ", L1 " << intensity_text(k.roof, resource::l1) << "\n\n";
    write_resources(o, k.roof);
    write_diagnosis(o, k.diagnosis);
    write_ncu_rules(o, k);
    o << "\n</details>\n";
}

}  // namespace

void write_markdown(const analysis& a, const print_options& options, std::ostream& o) {
    const std::vector<std::string> labels = kernel_labels(a);
    write_header(o, a);
    write_summary(o, a, labels);
    write_opportunities(o, a, labels);
    if (!options.chart_file.empty())
        o << "\n![Roofline chart: every kernel, numbered by its row in the summary; those without FLOPs on the memory "
             "panel]("
          << options.chart_file << ")\n";
    o << "\n## Kernels\n";
    const chip* c = chip_for_cc(a.gpu.compute_capability);
    for (std::size_t i = 0; i < a.kernels.size(); ++i) write_kernel(o, a.kernels[i], i + 1, labels[i], a.read.form, c);
}

std::string render_markdown(const analysis& a, const print_options& options) {
    std::ostringstream o;
    write_markdown(a, options, o);
    return o.str();
}

}  // namespace roofline
