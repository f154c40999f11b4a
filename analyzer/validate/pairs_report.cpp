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
    } catch (const json::exception& e) {
        throw input_error(error_code::bad_spec, path, 0, 0, std::string("not a valid pairs file: ") + e.what());
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
std::string two_decimals(double v) { return decimals(v, 2); }

std::string slash_verdict(const classification& c) { return verdict_text(c, "/"); }

std::string text_or(const json& j, const char* key, const std::string& fallback = "") {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

std::string known_miss(const json& entry, const std::string& gpu, const char* side) {
    if (!entry.contains("known_misses") || !entry["known_misses"].contains(gpu)) return "";
    const json& m = entry["known_misses"][gpu];
    if (m.is_string()) return side ? "" : m.get<std::string>();
    return side ? text_or(m, side) : "";
}

void fill_side(pair_side& s, const json& j, const analysis& a, const std::map<std::string, double>& timing,
               const std::string& capture) {
    s.case_name = text_or(j, "case");
    s.expect = text_or(j, "expect");
    for (const auto& pattern : j.at("kernels")) {
        const auto p = pattern.get<std::string>();
        const analysed_kernel* found = nullptr;
        for (const auto& k : a.kernels)
            if (k.group.name.find(p) != std::string::npos) found = &k;
        if (!found)
            throw input_error(error_code::no_kernels, capture, 0, 0,
                              "pair case " + s.case_name + ": no kernel named \"" + p + "\"");
        s.kernels.push_back(p.substr(0, p.find('(')));
        s.found.push_back(found);
        s.verdicts.push_back(slash_verdict(found->verdict));
        s.ncu_ns += found->roof.duration_ns;
        if (!s.roof_pct) {
            if (const resource_use* r = found->roof.find(found->verdict.limiter)) s.roof_pct = r->utilisation * 100.0;
            if (const resource_use* r = found->roof.find(resource::l2)) s.l2_pct = r->utilisation * 100.0;
        }
        if (s.kernels.size() == 1 && !found->diagnosis.findings.empty()) {
            s.first_finding = found->diagnosis.findings.front().id;
            s.first_finding_est = found->diagnosis.findings.front().est_speedup;
            s.first_finding_after_ns = found->diagnosis.findings.front().est_time_after_ns;
            if (s.first_finding_est)
                s.first_finding_binds_after = binds_after_text(found->diagnosis.findings.front().binds_after);
        }
    }
    auto t = timing.find(s.case_name);
    if (t != timing.end()) s.runner_us = t->second;
}

bool side_matches(const pair_side& s) {
    for (const auto& v : s.verdicts)
        if (v != s.expect) return false;
    return true;
}

void judge(pairs_report& r, const std::string& what, bool matches, const std::string& miss) {
    if (!matches && miss.empty())
        r.problems.push_back(what + " differs from what it was built to show, and pairs.json lists no reason");
    if (matches && !miss.empty())
        r.problems.push_back(what + " now matches its expectation: drop its known miss from pairs.json");
}

// The library kernel a pair is held to (cuBLAS for the tensor pair), from its own capture.
void fill_reference(pair_row& row, const json& ref, const std::string& dir) {
    std::string path = dir + "/" + text_or(ref, "capture");
    analysis ra = analyze_file(path, {});
    row.reference_label = text_or(ref, "label");
    for (const auto& k : ra.kernels)
        for (const auto& pattern : ref.at("kernels"))
            if (k.group.name.find(pattern.get<std::string>()) != std::string::npos) {
                row.reference_ns = row.reference_ns.value_or(0.0) + k.roof.duration_ns;
                if (!row.reference_kernel.empty()) continue;
                row.reference_kernel = k.group.name;
                row.reference_verdict = slash_verdict(k.verdict);
                if (const resource_use* u = k.roof.find(k.verdict.limiter))
                    row.reference_roof_pct = u->utilisation * 100.0;
                if (const resource_use* u = k.roof.find(resource::l2)) row.reference_l2_pct = u->utilisation * 100.0;
            }
}

}  // namespace

pairs_report build_pairs_report(const std::string& dir, const std::string& pairs_file) {
    // The pairs built in (kernels/pairs.json when roofline was built) unless a file is named.
    json spec = pairs_file.empty() ? json::parse(embedded_pairs().at(0).contents) : load_json(pairs_file);
    pairs_report r;
    r.capture = dir + "/pairs_raw.csv";
    analyze_options keep;
    keep.keep_metrics = true;  // lessons evaluate a finding's evidence on the fixed kernel
    r.capture_analysis = std::make_shared<const analysis>(analyze_file(r.capture, keep));
    const analysis& a = *r.capture_analysis;
    r.gpu_id = a.gpu.id;
    r.gpu_name = a.gpu.name;
    auto timing = read_runner_timing(dir + "/runner_timing.txt");
    for (const auto& p : spec.at("pairs")) {
        pair_row row;
        row.id = text_or(p, "id");
        row.bottleneck = text_or(p, "bottleneck");
        row.question = text_or(p, "question");
        row.fix = text_or(p, "fix");
        fill_side(row.naive, p.at("naive"), a, timing, r.capture);
        fill_side(row.fixed, p.at("fixed"), a, timing, r.capture);
        row.naive.known_miss = known_miss(p, r.gpu_id, "naive");
        row.fixed.known_miss = known_miss(p, r.gpu_id, "fixed");
        judge(r, row.id + " naive (" + row.naive.case_name + ")", side_matches(row.naive), row.naive.known_miss);
        judge(r, row.id + " fixed (" + row.fixed.case_name + ")", side_matches(row.fixed), row.fixed.known_miss);
        if (p.contains("reference")) fill_reference(row, p["reference"], dir);
        r.pairs.push_back(std::move(row));
    }
    for (const auto& ref : spec.at("references")) {
        reference_row row;
        row.case_name = text_or(ref, "case");
        row.kernel = text_or(ref, "kernel");
        row.expect = text_or(ref, "expect");
        row.roof = text_or(ref, "roof");
        row.known_miss = known_miss(ref, r.gpu_id, nullptr);
        if (ref.contains("target_pct")) row.target_pct = ref["target_pct"].get<double>();
        const analysed_kernel* found = nullptr;
        for (const auto& k : a.kernels)
            if (k.group.name.find(row.kernel) != std::string::npos) found = &k;
        if (!found)
            throw input_error(error_code::no_kernels, r.capture, 0, 0,
                              "reference " + row.case_name + ": no kernel named \"" + row.kernel + "\"");
        row.verdict = slash_verdict(found->verdict);
        if (auto roof = resource_named(row.roof))
            if (const resource_use* u = found->roof.find(*roof)) row.roof_pct = u->utilisation * 100.0;
        if (const resource_use* u = found->roof.find(resource::l2)) row.l2_pct = u->utilisation * 100.0;
        judge(r, "reference " + row.case_name, row.verdict == row.expect, row.known_miss);
        if (row.target_pct && (!row.roof_pct || *row.roof_pct < *row.target_pct))
            r.targets_missed.push_back(
                row.case_name + " reaches " + (row.roof_pct ? two_decimals(*row.roof_pct) : std::string("?")) +
                "% of the " + row.roof + " roof, under the " + format_percent(*row.target_pct / 100.0) + " target");
        r.references.push_back(std::move(row));
    }
    for (const auto& p : r.pairs)
        if (p.fixed.expect.rfind("memory/", 0) == 0 && (!p.fixed.roof_pct || *p.fixed.roof_pct < 80.0))
            r.targets_missed.push_back(p.id + ": the fixed kernel reaches " +
                                       (p.fixed.roof_pct ? two_decimals(*p.fixed.roof_pct) : std::string("?")) +
                                       "% of its memory roof, under the 80% target");
    return r;
}

namespace {

std::string verdict_cell(const pair_side& s) {
    return side_matches(s) ? side_verdicts(s) : side_verdicts(s) + " (built for " + s.expect + ")";
}

}  // namespace

std::string side_verdicts(const pair_side& s) {
    std::string v;
    for (std::size_t i = 0; i < s.verdicts.size(); ++i) {
        if (i && s.verdicts[i] == s.verdicts[i - 1]) continue;
        v += (v.empty() ? "" : ", ") + s.verdicts[i];
    }
    return v;
}

std::string side_kernels(const pair_side& s) {
    std::string v;
    for (const auto& k : s.kernels) v += (v.empty() ? "" : " + ") + std::string("`") + k + "`";
    return v;
}

std::string render_pairs_markdown(const pairs_report& r) {
    std::ostringstream o;
    o << "# Naive -> fixed pairs on the " << r.gpu_name << "\n\n";
    o << "Generated by `roofline pairs` from `" << r.capture
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
    for (const auto& p : r.pairs)
        pairs.row(
            {p.id, p.bottleneck, side_kernels(p.naive), format_duration_ns(p.naive.ncu_ns), verdict_cell(p.naive),
             (p.naive.first_finding.empty() ? std::string("-") : p.naive.first_finding) +
                 (p.naive.first_finding_est ? " (" + format_times(*p.naive.first_finding_est) + ")" : std::string()),
             side_kernels(p.fixed), format_duration_ns(p.fixed.ncu_ns), verdict_cell(p.fixed),
             format_times(p.naive.ncu_ns / p.fixed.ncu_ns),
             p.naive.runner_us && p.fixed.runner_us ? format_times(*p.naive.runner_us / *p.fixed.runner_us) : "-",
             p.naive.first_finding_binds_after.empty() ? std::string("-") : p.naive.first_finding_binds_after,
             p.naive.first_finding_after_ns && *p.naive.first_finding_after_ns > 0
                 ? format_number(p.fixed.ncu_ns / *p.naive.first_finding_after_ns)
                 : std::string("-")});
    o << pairs.markdown();
    bool any_reference = false;
    for (const auto& p : r.pairs)
        if (p.reference_ns) {
            if (!any_reference) o << "\nLibrary references:\n\n";
            any_reference = true;
            o << "- " << p.id << ": " << p.reference_label << " takes " << format_duration_ns(*p.reference_ns)
              << " under ncu, " << format_times(p.fixed.ncu_ns / *p.reference_ns) << " faster than the fixed kernel\n";
        }
    o << "\n## Roof references\n\n";
    table refs({"kernel", "verdict", "roof", "% of roof", "target"});
    for (const auto& ref : r.references)
        refs.row({code_span(ref.kernel.substr(0, ref.kernel.find('('))),
                  ref.verdict + (ref.verdict == ref.expect ? "" : " (built for " + ref.expect + ")"), ref.roof,
                  ref.roof_pct ? format_percent(*ref.roof_pct / 100.0) : "-",
                  ref.target_pct ? format_percent(*ref.target_pct / 100.0) : "-"});
    o << refs.markdown();
    o << "\n## Where the capture differs from what a kernel was built to show\n\n";
    bool any = false;
    for (const auto& p : r.pairs)
        for (const pair_side* s : {&p.naive, &p.fixed})
            if (!s->known_miss.empty()) {
                any = true;
                o << "- " << p.id << ", `" << s->case_name << "`: " << s->known_miss << "\n";
            }
    for (const auto& ref : r.references)
        if (!ref.known_miss.empty()) {
            any = true;
            o << "- reference `" << ref.case_name << "`: " << ref.known_miss << "\n";
        }
    for (const auto& t : r.targets_missed) {
        any = true;
        o << "- target missed: " << t << "\n";
    }
    if (!any) o << "Nowhere.\n";
    for (const auto& p : r.problems) o << "- UNEXPLAINED: " << p << "\n";
    return o.str();
}

}  // namespace roofline
