// The markdown report: the workload's summary and opportunities, then each kernel's section with
// its roofline, verdict, findings and the path through every rule tree.
#include "analyzer/base/format.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/table.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <sstream>

namespace roofline {
namespace {

// A kernel's name in a heading or a cell: its short name as code. Headings are no table, so the
// '|' a table would escape is escaped here too.
std::string heading_name(const std::string& name) {
    std::string out;
    for (char c : code(short_name(name))) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

void write_resources(std::ostream& o, const kernel_roofline& k) {
    table t({"resource", "work", "peak at capture clock", "busy", "useful", "practical share", "floor", "how"});
    for (const auto& r : k.resources) {
        const bool floor = info(r.id).in_floor;
        t.row({std::string(name(r.id)) + (r.id == k.binding_practical ? " (binds)" : ""),
               r.work > 0 ? format_si(r.work, work_unit(r.id)) : "-", r.peak > 0 ? format_si(r.peak, rate_unit(r.id)) : "-",
               format_percent(r.utilisation), floor ? format_percent(r.useful) : "-",
               floor ? format_percent(r.practical) + (r.practical_default ? " (default)" : "") : "-",
               floor ? format_duration_ns(r.floor_ns) : "-",
               r.formula + (r.useful_formula.empty() ? "" : "; useful: " + r.useful_formula) +
                   (r.peak_source.empty() ? "" : "; peak " + r.peak_source)});
    }
    o << t.markdown();
    for (const auto& n : k.notes) o << "\nNote: " << n << ".\n";
}

const char* outcome_text(rules::visited_node::outcome r) {
    switch (r) {
        case rules::visited_node::outcome::fired:
            return "fired";
        case rules::visited_node::outcome::not_fired:
            return "no";
        default:
            return "cannot evaluate";
    }
}

void write_finding(std::ostream& o, const rules::finding& f) {
    o << "\n- **" << f.id << "**";
    if (f.est_speedup)
        o << " (est. " << format_number(*f.est_speedup) << "x alone; saves " << format_duration_ns(*f.est_time_saved_combined_ns)
          << (f.est_time_saved_combined_ns != f.est_time_saved_ns ? " beyond the findings above" : "") << ")";
    o << ": " << f.title << ". " << f.explain << "\n";
    if (f.est_speedup) {
        o << "  - Estimate: " << f.estimate_why << " Time after the fix " << format_duration_ns(*f.est_time_after_ns) << ", set by "
          << f.binds_after << ".\n";
        for (const auto& c : f.estimate_changes) o << "    - changes `" << c << "`\n";
    }
    for (const auto& e : f.evidence) o << "  - `" << e.expression << "` = " << named_value_text(e) << "\n";
    for (const auto& x : f.fixes) o << "  - Fix: " << x << "\n";
}

// The findings, then the path through every tree with the value of each condition's inputs.
void write_diagnosis(std::ostream& o, const rules::diagnosis& d, ncu_form form) {
    if (!d.findings.empty()) {
        o << "\nFindings:\n";
        for (const auto& f : d.findings) write_finding(o, f);
    }
    o << "\nRule trees walked:\n\n";
    for (const auto& v : d.path) {
        o << std::string(2 * std::size_t(v.depth), ' ') << "- " << v.tree << " / " << v.node << ": " << outcome_text(v.result);
        std::string values;
        for (const auto& x : v.values) values += (values.empty() ? "" : ", ") + x.expression + " = " + named_value_text(x);
        if (!values.empty()) o << " (" << values << ")";
        o << "\n";
    }
    for (const auto& n : d.notes) o << "\nNote: " << n << ".\n";
    if (!d.missing_metrics.empty() && form == ncu_form::details)
        // A details page shows a few display names per section; the raw page of the same report holds every metric collected.
        o << "\nSome rules could not run: the details page lacks " << d.missing_metrics.size()
          << " value(s); the raw page of the same report holds every metric it collected: export it with `ncu -i REPORT.ncu-rep --csv "
             "--page raw > report.csv` and analyse report.csv (what it still lacks, collect with `"
          << rules::ncu_flags_for(d.missing_metrics) << "`).\n";
    else if (!d.missing_metrics.empty())
        o << "\nSome rules could not run: the capture lacks " << d.missing_metrics.size() << " value(s); collect them with `"
          << rules::ncu_flags_for(d.missing_metrics) << "`.\n";
}

void write_header(std::ostream& o, const analysis& a, const std::string& chart) {
    o << "# Roofline report: " << a.input << "\n\n";
    o << "- GPU: **" << a.gpu.name << "** (`" << a.gpu.id << "`, " << a.gpu_how << "; spec " << a.gpu.file << ")\n";
    o << "- Input: " << ncu_form_name(a.read.form) << ", " << a.launches_kept << " of " << a.launches_read << " launches analysed, "
      << a.kernels.size() << (a.kernels.size() == 1 ? " kernel, " : " kernels, ") << format_duration_ns(a.total_ns) << " of GPU time\n";
    o << "- Numbers: " << number_style_name(a.read.style) << (a.read.style_assumed ? " (assumed: every grouped value was ambiguous)" : "")
      << "\n";
    if (a.read.skipped_lines) o << "- Skipped " << a.read.skipped_lines << " lines that are not CSV (==PROF== lines, program output)\n";
    for (const auto& n : a.read.notes) o << "- Note: " << n << "\n";
    if (!a.default_practical.empty()) {
        std::string names;
        for (resource r : a.default_practical) names += (names.empty() ? "" : ", ") + std::string(name(r));
        o << "- Practical shares of " << names << " are defaults, " << default_practical_reason()
          << ". Each kernel's resource table marks them (default).\n";
    }
    o << "- Ceilings: each kernel's peaks are taken at the clocks the capture reports (ncu locks the SM to its base clock unless "
         "told otherwise). Where the capture holds ncu's own peak counters they are used; otherwise the spec's figure is scaled "
         "to that clock. Each resource's row says which.\n\n";
    if (!chart.empty()) o << "![Roofline chart: every kernel at its DRAM arithmetic intensity](" << chart << ")\n\n";
}

void write_summary(std::ostream& o, const analysis& a) {
    o << "## Summary\n\n";
    table t({"#", "kernel", "launches", "total time", "% of workload", "AI (FLOP/B, DRAM)", "achieved", "% of roof", "bound / limiter"});
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        const auto& k = a.kernels[i];
        t.row({std::to_string(i + 1), code(short_name(k.group.name)), std::to_string(k.group.launches),
               format_duration_ns(k.roof.duration_ns), format_percent(k.share), intensity_text(k.roof, resource::dram), achieved_text(k),
               roof_pct_text(k), verdict_text(k.verdict)});
    }
    o << t.markdown();
}

void write_opportunities(std::ostream& o, const analysis& a) {
    const auto ops = opportunities(a);
    if (ops.empty()) return;
    o << "\n## Opportunities\n\nEvery finding with a gain estimate, by the GPU time it would save over the whole workload "
         "(estimates are capped by the roof that binds once the fix is in; see each kernel's section for the formula).\n\n";
    table t({"rank", "kernel", "finding", "est. speedup of the kernel", "est. time saved", "% of workload time"});
    const std::size_t shown = std::min<std::size_t>(ops.size(), 20);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& op = ops[i];
        const double saved = *op.finding->est_time_saved_combined_ns;
        t.row({std::to_string(i + 1), std::to_string(op.kernel_rank + 1) + ". " + code(short_name(a.kernels[op.kernel_rank].group.name)),
               op.finding->id, format_number(*op.finding->est_speedup) + "x", format_duration_ns(saved),
               a.total_ns > 0 ? format_percent(saved / a.total_ns) : "-"});
    }
    o << t.markdown();
    if (ops.size() > shown) o << "\n" << ops.size() - shown << " more in the kernels' sections.\n";
}

std::string dims_text(const std::optional<launch_dims>& d) { return d ? to_string(*d) : "?"; }

void write_kernel(std::ostream& o, const analysed_kernel& k, std::size_t rank, ncu_form form) {
    o << "\n### " << rank << ". " << heading_name(k.group.name) << "\n\n";
    o << "- Full name: " << code(k.group.name) << "\n";
    o << "- Launches: " << k.group.launches << " (first: ID " << k.group.first_id << ", line " << k.group.first_line << "); grid "
      << dims_text(k.group.grid_size) << ", block " << dims_text(k.group.block_size) << "\n";
    if (!k.roof.placed) {
        o << "- Not placed on the roofline: the capture lacks " << k.roof.missing << "\n";
        return;
    }
    o << "- Time: " << format_duration_ns(k.roof.duration_ns) << " in all, "
      << format_duration_ns(k.roof.duration_ns / double(k.group.launches)) << " per launch; floor " << format_duration_ns(k.roof.floor_ns)
      << " on " << (k.roof.binding ? name(*k.roof.binding) : "") << " (" << format_percent(k.roof.pct_of_roof / 100.0) << " of the roof)\n";
    o << "- Clocks: SM " << format_si(k.roof.sm_clock_hz, "Hz") << " (" << k.roof.sm_clock_source << ")";
    if (k.roof.dram_clock_hz > 0) o << ", DRAM " << format_si(k.roof.dram_clock_hz, "Hz");
    o << "\n";
    o << "- Arithmetic intensity (FLOP/B): DRAM " << intensity_text(k.roof, resource::dram) << ", L2 "
      << intensity_text(k.roof, resource::l2) << ", L1 " << intensity_text(k.roof, resource::l1) << "\n";
    o << "\n**" << verdict_text(k.verdict) << "**\n\n";
    for (const auto& r : k.verdict.reasons) o << "- " << r << "\n";
    o << "\n";
    write_resources(o, k.roof);
    for (const auto& w : k.roof.warnings) o << "\n> Warning: " << w << "\n";
    write_diagnosis(o, k.diagnosis, form);
    if (!k.group.rules.empty()) {
        o << "\nNsight Compute says:\n\n";
        for (const auto& r : k.group.rules) {
            o << "- " << r.type << " `" << r.name << "` (" << r.section << ")";
            if (r.est_speedup_pct >= 0) o << ", est. speedup " << format_number(r.est_speedup_pct) << "% " << r.speedup_type;
            std::string description = r.description;
            std::replace(description.begin(), description.end(), '\n', ' ');
            o << ": " << description << "\n";
        }
    }
}

}  // namespace

void write_markdown(const analysis& a, const print_options& options, std::ostream& o) {
    write_header(o, a, options.chart_file);
    write_summary(o, a);
    write_opportunities(o, a);
    o << "\n## Kernels\n";
    for (std::size_t i = 0; i < a.kernels.size(); ++i) write_kernel(o, a.kernels[i], i + 1, a.read.form);
}

std::string render_markdown(const analysis& a, const print_options& options) {
    std::ostringstream o;
    write_markdown(a, options, o);
    return o.str();
}

}  // namespace roofline
