#include "analyzer/validate/pairs_report.hpp"

#include "analyzer/base/embedded.hpp"
#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace roofline {
namespace {

using json = nlohmann::json;

json load_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw input_error(error_code::io, path, 0, 0, "cannot open the pairs file");
    try {
        return json::parse(in);
    } catch (const json::exception& error) {
        throw input_error(error_code::bad_spec, path, 0, 0, std::string("not a valid pairs file: ") + error.what());
    }
}

// runner_timing.txt: "name rel_err median_us launches GB/s GFLOP/s" rows.
std::map<std::string, double> read_runner_timing(const std::string& path) {
    std::map<std::string, double> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string name, err, median;
        if (!(ss >> name >> err >> median)) continue;
        try {
            std::size_t used = 0;
            double us = std::stod(median, &used);
            if (used == median.size()) out[name] = us;
        } catch (const std::exception&) {
        }
    }
    return out;
}

// Targets are judged to the hundredth: "85.0% under 85%" would read as a contradiction.
std::string two_decimals(double value) { return decimals(value, 2); }

std::string slash_verdict(const classification& verdict) { return verdict_text(verdict, "/"); }

std::string text_or(const json& node, const char* key, const std::string& fallback = "") {
    return node.contains(key) && node[key].is_string() ? node[key].get<std::string>() : fallback;
}

std::string known_miss(const json& entry, const std::string& gpu, const char* side) {
    if (!entry.contains("known_misses") || !entry["known_misses"].contains(gpu)) return "";
    const json& miss = entry["known_misses"][gpu];
    if (miss.is_string()) return side ? "" : miss.get<std::string>();
    return side ? text_or(miss, side) : "";
}

void fill_side(pair_side& side, const json& node, const analysis& analysed, const std::map<std::string, double>& timing,
               const std::string& capture) {
    side.case_name = text_or(node, "case");
    side.expect = text_or(node, "expect");
    for (const auto& pattern : node.at("kernels")) {
        const auto kernel_name = pattern.get<std::string>();
        const analysed_kernel* found = nullptr;
        for (const auto& kernel : analysed.kernels)
            if (kernel.group.name.find(kernel_name) != std::string::npos) found = &kernel;
        if (!found)
            throw input_error(error_code::no_kernels, capture, 0, 0,
                              "pair case " + side.case_name + ": no kernel named \"" + kernel_name + "\"");
        side.kernels.push_back(kernel_name.substr(0, kernel_name.find('(')));
        side.found.push_back(found);
        side.verdicts.push_back(slash_verdict(found->verdict));
        side.ncu_ns += found->roof.duration_ns;
        if (!side.roof_pct) {
            if (const resource_use* usage = found->roof.find(found->verdict.limiter))
                side.roof_pct = usage->utilisation * 100.0;
            if (const resource_use* usage = found->roof.find(resource::l2)) side.l2_pct = usage->utilisation * 100.0;
        }
        if (side.kernels.size() == 1 && !found->diagnosis.findings.empty()) {
            side.first_finding = found->diagnosis.findings.front().id;
            side.first_finding_est = found->diagnosis.findings.front().est_speedup;
            side.first_finding_after_ns = found->diagnosis.findings.front().est_time_after_ns;
            if (side.first_finding_est)
                side.first_finding_binds_after = binds_after_text(found->diagnosis.findings.front().binds_after);
        }
    }
    auto timed = timing.find(side.case_name);
    if (timed != timing.end()) side.runner_us = timed->second;
}

bool side_matches(const pair_side& side) {
    for (const auto& verdict : side.verdicts)
        if (verdict != side.expect) return false;
    return true;
}

void judge(pairs_report& report, const std::string& what, bool matches, const std::string& miss) {
    if (!matches && miss.empty())
        report.problems.push_back(what + " differs from what it was built to show, and pairs.json lists no reason");
    if (matches && !miss.empty())
        report.problems.push_back(what + " now matches its expectation: drop its known miss from pairs.json");
}

// The library kernel a pair is held to (cuBLAS for the tensor pair), from its own capture.
void fill_reference(pair_row& row, const json& ref, const std::string& dir) {
    std::string path = dir + "/" + text_or(ref, "capture");
    analysis ra = analyze_file(path, {});
    row.reference_label = text_or(ref, "label");
    for (const auto& kernel : ra.kernels)
        for (const auto& pattern : ref.at("kernels"))
            if (kernel.group.name.find(pattern.get<std::string>()) != std::string::npos) {
                row.reference_ns = row.reference_ns.value_or(0.0) + kernel.roof.duration_ns;
                if (!row.reference_kernel.empty()) continue;
                row.reference_kernel = kernel.group.name;
                row.reference_verdict = slash_verdict(kernel.verdict);
                if (const resource_use* usage = kernel.roof.find(kernel.verdict.limiter))
                    row.reference_roof_pct = usage->utilisation * 100.0;
                if (const resource_use* usage = kernel.roof.find(resource::l2))
                    row.reference_l2_pct = usage->utilisation * 100.0;
            }
}

}  // namespace

pairs_report build_pairs_report(const std::string& dir, const std::string& pairs_file) {
    // The pairs built in (kernels/pairs.json when roofline was built) unless a file is named.
    json spec = pairs_file.empty() ? json::parse(embedded_pairs().at(0).contents) : load_json(pairs_file);
    pairs_report report;
    report.capture = dir + "/pairs_raw.csv";
    analyze_options keep;
    keep.keep_metrics = true;  // lessons evaluate a finding's evidence on the fixed kernel
    report.capture_analysis = std::make_shared<const analysis>(analyze_file(report.capture, keep));
    const analysis& analysed = *report.capture_analysis;
    report.gpu_id = analysed.gpu.id;
    report.gpu_name = analysed.gpu.name;
    auto timing = read_runner_timing(dir + "/runner_timing.txt");
    for (const auto& pair_spec : spec.at("pairs")) {
        pair_row row;
        row.id = text_or(pair_spec, "id");
        row.bottleneck = text_or(pair_spec, "bottleneck");
        row.question = text_or(pair_spec, "question");
        row.fix = text_or(pair_spec, "fix");
        fill_side(row.naive, pair_spec.at("naive"), analysed, timing, report.capture);
        fill_side(row.fixed, pair_spec.at("fixed"), analysed, timing, report.capture);
        row.naive.known_miss = known_miss(pair_spec, report.gpu_id, "naive");
        row.fixed.known_miss = known_miss(pair_spec, report.gpu_id, "fixed");
        judge(report, row.id + " naive (" + row.naive.case_name + ")", side_matches(row.naive), row.naive.known_miss);
        judge(report, row.id + " fixed (" + row.fixed.case_name + ")", side_matches(row.fixed), row.fixed.known_miss);
        if (pair_spec.contains("reference")) fill_reference(row, pair_spec["reference"], dir);
        report.pairs.push_back(std::move(row));
    }
    for (const auto& ref : spec.at("references")) {
        reference_row row;
        row.case_name = text_or(ref, "case");
        row.kernel = text_or(ref, "kernel");
        row.expect = text_or(ref, "expect");
        row.roof = text_or(ref, "roof");
        row.known_miss = known_miss(ref, report.gpu_id, nullptr);
        if (ref.contains("target_pct")) row.target_pct = ref["target_pct"].get<double>();
        const analysed_kernel* found = nullptr;
        for (const auto& kernel : analysed.kernels)
            if (kernel.group.name.find(row.kernel) != std::string::npos) found = &kernel;
        if (!found)
            throw input_error(error_code::no_kernels, report.capture, 0, 0,
                              "reference " + row.case_name + ": no kernel named \"" + row.kernel + "\"");
        row.verdict = slash_verdict(found->verdict);
        if (auto roof = resource_named(row.roof))
            if (const resource_use* usage = found->roof.find(*roof)) row.roof_pct = usage->utilisation * 100.0;
        if (const resource_use* usage = found->roof.find(resource::l2)) row.l2_pct = usage->utilisation * 100.0;
        judge(report, "reference " + row.case_name, row.verdict == row.expect, row.known_miss);
        if (row.target_pct && (!row.roof_pct || *row.roof_pct < *row.target_pct))
            report.targets_missed.push_back(
                row.case_name + " reaches " + (row.roof_pct ? two_decimals(*row.roof_pct) : std::string("?")) +
                "% of the " + row.roof + " roof, under the " + format_percent(*row.target_pct / 100.0) + " target");
        report.references.push_back(std::move(row));
    }
    for (const auto& pair : report.pairs)
        if (pair.fixed.expect.rfind("memory/", 0) == 0 && (!pair.fixed.roof_pct || *pair.fixed.roof_pct < 80.0))
            report.targets_missed.push_back(
                pair.id + ": the fixed kernel reaches " +
                (pair.fixed.roof_pct ? two_decimals(*pair.fixed.roof_pct) : std::string("?")) +
                "% of its memory roof, under the 80% target");
    return report;
}

namespace {

std::string verdict_cell(const pair_side& side) {
    return side_matches(side) ? side_verdicts(side) : side_verdicts(side) + " (built for " + side.expect + ")";
}

}  // namespace

std::string side_verdicts(const pair_side& side) {
    std::string out;
    for (std::size_t i = 0; i < side.verdicts.size(); ++i) {
        if (i && side.verdicts[i] == side.verdicts[i - 1]) continue;
        out += (out.empty() ? "" : ", ") + side.verdicts[i];
    }
    return out;
}

std::string side_kernels(const pair_side& side) {
    std::string out;
    for (const auto& kernel : side.kernels) out += (out.empty() ? "" : " + ") + std::string("`") + kernel + "`";
    return out;
}

std::string render_pairs_markdown(const pairs_report& report) {
    std::ostringstream out;
    out << "# Naive -> fixed pairs on the " << report.gpu_name << "\n\n";
    out << "Generated by `roofline pairs` from `" << report.capture
        << "` (one `ncu --set full` launch of each kernel) and "
           "`runner_timing.txt` (the runner's unprofiled median over 21 runs after 3 warm-ups); do not edit by hand. "
           "ncu times are at the clock ncu locks (base clock); roof percentages are the limiter's utilisation at that "
           "clock "
           "(see each kernel's section in `roofline analyze` for the peak and its source). The last two columns: "
           "the floor the first finding's estimate says binds once its fix is in, and the fixed kernel's time under "
           "ncu over the time after the fix that estimate gives (1 = the fixed kernel sits on that floor; above 1, "
           "short of it; below 1, faster than the estimate allowed).\n\n";
    table pairs({"pair", "built to show", "naive", "ncu time", "verdict", "first finding (est. speedup)", "fixed",
                 "ncu time", "verdict", "speedup (ncu)", "speedup (runner)", "binds after the fix",
                 "fixed / time after"});
    for (const auto& pair : report.pairs)
        pairs.row(
            {pair.id, pair.bottleneck, side_kernels(pair.naive), format_duration_ns(pair.naive.ncu_ns),
             verdict_cell(pair.naive),
             (pair.naive.first_finding.empty() ? std::string("-") : pair.naive.first_finding) +
                 (pair.naive.first_finding_est ? " (" + format_times(*pair.naive.first_finding_est) + ")"
                                               : std::string()),
             side_kernels(pair.fixed), format_duration_ns(pair.fixed.ncu_ns), verdict_cell(pair.fixed),
             format_times(pair.naive.ncu_ns / pair.fixed.ncu_ns),
             pair.naive.runner_us && pair.fixed.runner_us ? format_times(*pair.naive.runner_us / *pair.fixed.runner_us)
                                                          : "-",
             pair.naive.first_finding_binds_after.empty() ? std::string("-") : pair.naive.first_finding_binds_after,
             pair.naive.first_finding_after_ns && *pair.naive.first_finding_after_ns > 0
                 ? format_number(pair.fixed.ncu_ns / *pair.naive.first_finding_after_ns)
                 : std::string("-")});
    out << pairs.markdown();
    bool any_reference = false;
    for (const auto& pair : report.pairs)
        if (pair.reference_ns) {
            if (!any_reference) out << "\nLibrary references:\n\n";
            any_reference = true;
            out << "- " << pair.id << ": " << pair.reference_label << " takes "
                << format_duration_ns(*pair.reference_ns) << " under ncu, "
                << format_times(pair.fixed.ncu_ns / *pair.reference_ns) << " faster than the fixed kernel\n";
        }
    out << "\n## Roof references\n\n";
    table refs({"kernel", "verdict", "roof", "% of roof", "target"});
    for (const auto& ref : report.references)
        refs.row({code_span(ref.kernel.substr(0, ref.kernel.find('('))),
                  ref.verdict + (ref.verdict == ref.expect ? "" : " (built for " + ref.expect + ")"), ref.roof,
                  ref.roof_pct ? format_percent(*ref.roof_pct / 100.0) : "-",
                  ref.target_pct ? format_percent(*ref.target_pct / 100.0) : "-"});
    out << refs.markdown();
    out << "\n## Where the capture differs from what a kernel was built to show\n\n";
    bool any = false;
    for (const auto& pair : report.pairs)
        for (const pair_side* side : {&pair.naive, &pair.fixed})
            if (!side->known_miss.empty()) {
                any = true;
                out << "- " << pair.id << ", `" << side->case_name << "`: " << side->known_miss << "\n";
            }
    for (const auto& ref : report.references)
        if (!ref.known_miss.empty()) {
            any = true;
            out << "- reference `" << ref.case_name << "`: " << ref.known_miss << "\n";
        }
    for (const auto& missed : report.targets_missed) {
        any = true;
        out << "- target missed: " << missed << "\n";
    }
    if (!any) out << "Nowhere.\n";
    for (const auto& problem : report.problems) out << "- UNEXPLAINED: " << problem << "\n";
    return out.str();
}

}  // namespace roofline
