#include "analyzer/base/format.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"

#include <algorithm>

#include <sstream>

namespace roofline {
namespace {

// Markdown table cells cannot hold '|' or line breaks.
std::string cell(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}


std::string rate_unit(const resource_use& r) { return r.kind == resource_kind::memory ? "B/s" : (r.id == "tensor_int8" ? "OP/s" : "FLOP/s"); }
std::string work_unit(const resource_use& r) { return r.kind == resource_kind::memory ? "B" : (r.id == "tensor_int8" ? "OP" : "FLOP"); }

std::string intensity_text(const kernel_roofline& k, const std::string& level) {
    auto v = k.intensity(level);
    return v ? format_number(*v) : "n/a";
}

void write_resources(std::ostringstream& o, const kernel_roofline& k) {
    o << "| resource | work | peak at capture clock | busy | useful | practical share | floor | how |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : k.resources) {
        o << "| " << r.id << (r.id == k.binding_practical ? " (binds)" : "") << " | "
          << (r.work > 0 ? format_si(r.work, work_unit(r)) : "-") << " | "
          << (r.peak > 0 ? format_si(r.peak, rate_unit(r)) : "-") << " | " << format_percent(r.utilisation) << " | "
          << (r.in_floor ? format_percent(r.useful) : "-") << " | " << (r.in_floor ? format_percent(r.practical) : "-") << " | "
          << (r.in_floor ? format_duration_ns(r.floor_ns) : "-") << " | " << cell(r.formula)
          << (r.useful_formula.empty() ? "" : "; useful: " + cell(r.useful_formula)) << (r.peak_source.empty() ? "" : "; peak " + cell(r.peak_source))
          << " |\n";
    }
    for (const auto& n : k.notes) o << "\nNote: " << n << ".\n";
}

std::string value_text(const std::optional<double>& v) { return v ? format_number(*v) : "missing"; }

// The findings, then the path through every tree with the value of each condition's inputs.
void write_diagnosis(std::ostringstream& o, const rules::diagnosis& d) {
    if (!d.findings.empty()) {
        o << "\nFindings:\n";
        for (const auto& f : d.findings) {
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
            for (const auto& e : f.evidence) o << "  - `" << e.expression << "` = " << value_text(e.value) << "\n";
            for (const auto& x : f.fixes) o << "  - Fix: " << x << "\n";
        }
    }
    o << "\nRule trees walked:\n\n";
    for (const auto& v : d.path) {
        o << std::string(2 * std::size_t(v.depth), ' ') << "- " << v.tree << " / " << v.node << ": "
          << (v.result == rules::visited_node::outcome::fired       ? "fired"
              : v.result == rules::visited_node::outcome::not_fired ? "no"
                                                                    : "cannot evaluate");
        std::string values;
        for (const auto& x : v.values) values += (values.empty() ? "" : ", ") + x.expression + " = " + named_value_text(x);
        if (!values.empty()) o << " (" << values << ")";
        o << "\n";
    }
    for (const auto& n : d.notes) o << "\nNote: " << n << ".\n";
    if (!d.missing_metrics.empty())
        o << "\nSome rules could not run: the capture lacks " << d.missing_metrics.size() << " value(s); collect them with `"
          << rules::ncu_flags_for(d.missing_metrics) << "`.\n";
}

}  // namespace

std::string named_value_text(const rules::evidence_value& x, const char* absent) {
    if (!x.value) return absent;
    if (rules::fact_type(x.expression) == rules::value_type::boolean) return *x.value != 0.0 ? "true" : "false";
    return format_number(*x.value);
}

std::string plain_name(const std::string& name) {
    std::string s = short_name(name);
    auto at = s.rfind(">::");
    return at == std::string::npos ? s : s.substr(at + 3);
}

// The name up to its parameter list: "transpose_naive(const float *, ...)" -> "transpose_naive".
// ncu writes anonymous namespaces as "unnamed>::", with no opening '<', so depth never goes
// below zero.
std::string short_name(const std::string& name) {
    std::string s = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<') ++depth;
        else if (s[i] == '>') depth = depth > 0 ? depth - 1 : 0;
        else if (s[i] == '(' && depth == 0 && i > 0) return s.substr(0, i);
    }
    return s;
}

std::string verdict_text(const classification& c) { return c.limiter.empty() ? c.bound : c.bound + " / " + c.limiter; }

std::string achieved_text(const kernel_result& k) {
    // The limiter's rate when it has a work count (a compute/fp32 kernel shows FLOP/s even
    // when ncu's SM throughput binds), else the binding resource's.
    const resource_use* b = k.roof.find(k.verdict.limiter);
    if (!b || b->work <= 0) b = k.roof.find(k.roof.binding);
    if (!b) return "-";
    if (b->work > 0 && k.roof.duration_ns > 0)
        return format_si(b->work / (k.roof.duration_ns * 1e-9), rate_unit(*b)) + " " + b->id;
    return format_percent(b->utilisation) + " of " + b->id;
}

std::string roof_pct_text(const kernel_result& k) {
    if (!k.roof.placed) return "-";
    std::string t = format_percent(k.roof.pct_of_roof / 100.0);
    if (!k.roof.binding.empty() && !k.verdict.limiter.empty() && k.roof.binding != k.verdict.limiter) t += " " + k.roof.binding;
    return t;
}

std::vector<opportunity> opportunities(const analysis& a) {
    std::vector<opportunity> out;
    for (std::size_t i = 0; i < a.kernels.size(); ++i)
        for (const auto& f : a.kernels[i].diagnosis.findings)
            if (f.est_time_saved_combined_ns && *f.est_time_saved_combined_ns > 0) out.push_back({i, &f});
    std::stable_sort(out.begin(), out.end(), [](const opportunity& x, const opportunity& y) {
        return *x.finding->est_time_saved_combined_ns > *y.finding->est_time_saved_combined_ns;
    });
    return out;
}

std::string render_markdown(const analysis& a, const std::string& chart) {
    std::ostringstream o;
    o << "# Roofline report: " << a.input << "\n\n";
    o << "- GPU: **" << a.gpu.name << "** (`" << a.gpu.id << "`, " << a.gpu_how << "; spec " << a.gpu.file << ")\n";
    o << "- Input: " << ncu_form_name(a.read.form) << ", " << a.launches_kept << " of " << a.launches_read
      << " launches analysed, " << a.kernels.size() << (a.kernels.size() == 1 ? " kernel, " : " kernels, ")
      << format_duration_ns(a.total_ns) << " of GPU time\n";
    o << "- Numbers: " << number_style_name(a.read.style)
      << (a.read.style_assumed ? " (assumed: every grouped value was ambiguous)" : "") << "\n";
    if (a.read.skipped_lines) o << "- Skipped " << a.read.skipped_lines << " lines that are not CSV (==PROF== lines, program output)\n";
    for (const auto& n : a.read.notes) o << "- Note: " << n << "\n";
    o << "- Ceilings: each kernel's peaks are taken at the clocks the capture reports (ncu locks the SM to its base clock unless "
         "told otherwise). Where the capture holds ncu's own peak counters they are used; otherwise the spec's figure is scaled "
         "to that clock. Each resource's row says which.\n\n";

    if (!chart.empty()) o << "![Roofline chart: every kernel at its DRAM arithmetic intensity](" << chart << ")\n\n";
    o << "## Summary\n\n";
    o << "| # | kernel | launches | total time | % of workload | AI (FLOP/B, DRAM) | achieved | % of roof | bound / limiter |\n";
    o << "|---|---|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        const auto& k = a.kernels[i];
        o << "| " << i + 1 << " | `" << cell(short_name(k.group.name)) << "` | " << k.group.launches << " | "
          << format_duration_ns(k.roof.duration_ns) << " | " << format_percent(k.share) << " | " << intensity_text(k.roof, "dram")
          << " | " << cell(achieved_text(k)) << " | " << roof_pct_text(k) << " | "
          << verdict_text(k.verdict) << " |\n";
    }
    const auto ops = opportunities(a);
    if (!ops.empty()) {
        o << "\n## Opportunities\n\nEvery finding with a gain estimate, by the GPU time it would save over the whole workload "
             "(estimates are capped by the roof that binds once the fix is in; see each kernel's section for the formula).\n\n";
        o << "| rank | kernel | finding | est. speedup of the kernel | est. time saved | % of workload time |\n|---|---|---|---|---|---|\n";
        const std::size_t shown = std::min<std::size_t>(ops.size(), 20);
        for (std::size_t i = 0; i < shown; ++i) {
            const auto& op = ops[i];
            o << "| " << i + 1 << " | " << op.kernel_rank + 1 << ". `" << cell(short_name(a.kernels[op.kernel_rank].group.name)) << "` | "
              << op.finding->id << " | " << format_number(*op.finding->est_speedup) << "x | " << format_duration_ns(*op.finding->est_time_saved_combined_ns)
              << " | " << (a.total_ns > 0 ? format_percent(*op.finding->est_time_saved_combined_ns / a.total_ns) : "-") << " |\n";
        }
        if (ops.size() > shown) o << "\n" << ops.size() - shown << " more in the kernels' sections.\n";
    }
    o << "\n## Kernels\n";
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        const auto& k = a.kernels[i];
        o << "\n### " << i + 1 << ". `" << cell(short_name(k.group.name)) << "`\n\n";
        o << "- Full name: `" << k.group.name << "`\n";
        o << "- Launches: " << k.group.launches << " (first: ID " << k.group.first_id << ", line " << k.group.first_line
          << "); grid " << k.group.grid_size << ", block " << k.group.block_size << "\n";
        if (!k.roof.placed) {
            o << "- Not placed on the roofline: the capture lacks " << k.roof.missing << "\n";
            continue;
        }
        o << "- Time: " << format_duration_ns(k.roof.duration_ns) << " in all, " << format_duration_ns(k.roof.duration_ns / double(k.group.launches))
          << " per launch; floor " << format_duration_ns(k.roof.floor_ns) << " on " << k.roof.binding << " ("
          << format_percent(k.roof.pct_of_roof / 100.0) << " of the roof)\n";
        o << "- Clocks: SM " << format_si(k.roof.sm_clock_hz, "Hz") << " (" << k.roof.sm_clock_source << ")";
        if (k.roof.dram_clock_hz > 0) o << ", DRAM " << format_si(k.roof.dram_clock_hz, "Hz");
        o << "\n";
        o << "- Arithmetic intensity (FLOP/B): DRAM " << intensity_text(k.roof, "dram") << ", L2 " << intensity_text(k.roof, "l2")
          << ", L1 " << intensity_text(k.roof, "l1") << "\n";
        o << "\n**" << verdict_text(k.verdict) << "**\n\n";
        for (const auto& r : k.verdict.reasons) o << "- " << r << "\n";
        o << "\n";
        write_resources(o, k.roof);
        for (const auto& w : k.roof.warnings) o << "\n> Warning: " << w << "\n";
        write_diagnosis(o, k.diagnosis);
        if (!k.group.rules.empty()) {
            o << "\nNsight Compute says:\n\n";
            for (const auto& r : k.group.rules) {
                o << "- " << r.type << " `" << r.name << "` (" << r.section << ")";
                if (r.est_speedup_pct >= 0) o << ", est. speedup " << format_number(r.est_speedup_pct) << "% " << r.speedup_type;
                o << ": " << cell(r.description) << "\n";
            }
        }
    }
    return o.str();
}

}  // namespace roofline
