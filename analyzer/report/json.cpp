// The JSON report (docs/report-json.md, docs/report.schema.json). Numbers are rounded to six
// significant digits (ncu's counters and clocks carry no more) and written as integers where the
// rounded value is one; unknown values are null, never "" or 0.
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <sstream>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "unknown"
#endif

namespace roofline {
namespace {

using ojson = nlohmann::ordered_json;

ojson optional_number(const std::optional<double>& value) {
    return value ? json_number<ojson>(*value) : ojson(nullptr);
}
ojson positive_number(double value) { return value > 0 ? json_number<ojson>(value) : ojson(nullptr); }
ojson text_or_null(const std::string& text) { return text.empty() ? ojson(nullptr) : ojson(text); }

// "point", "comma", or null where the style was not known.
ojson style_json(number_style style) {
    return style == number_style::point   ? ojson("point")
           : style == number_style::comma ? ojson("comma")
                                          : ojson(nullptr);
}

ojson optional_name(const std::optional<resource>& id) { return id ? ojson(name(*id)) : ojson(nullptr); }
ojson optional_dims(const std::optional<launch_dims>& dims) {
    return dims ? ojson::array({dims->xyz[0], dims->xyz[1], dims->xyz[2]}) : ojson(nullptr);
}

// The verdict's steps as values (models/classify.hpp, verdict_reason); the markdown words them.
ojson load_json(const std::optional<unit_load>& load) {
    if (!load) return nullptr;
    return ojson{{"resource", name(load->id)},
                 {"busy", json_number<ojson>(load->busy)},
                 {"practical_share", json_number<ojson>(load->practical)},
                 {"formula", std::string(load->formula)}};
}

ojson reasons_json(const std::vector<verdict_reason>& reasons) {
    ojson out = ojson::array();
    for (const auto& reason : reasons) {
        const bool has_value =
            reason.kind == reason_kind::short_launches || reason.kind == reason_kind::idle_sms ||
            reason.kind == reason_kind::under_one_wave || reason.kind == reason_kind::grid_fills_gpu ||
            reason.kind == reason_kind::tensor_precision || reason.kind == reason_kind::verdict_within_noise;
        const bool has_count = reason.kind == reason_kind::idle_sms || reason.kind == reason_kind::grid_fills_gpu;
        const bool has_threshold =
            reason.kind == reason_kind::short_launches || reason.kind == reason_kind::memory_near_roof ||
            reason.kind == reason_kind::lower_level_named || reason.kind == reason_kind::specific_unit ||
            reason.kind == reason_kind::sm_as_whole || reason.kind == reason_kind::below_every_roof;
        out.push_back(
            {{"kind", name(reason.kind)},
             {"unit", load_json(reason.unit)},
             {"compared_with", load_json(reason.other)},
             {"named", optional_name(reason.named)},
             {"value", has_value ? json_number<ojson>(reason.value) : ojson(nullptr)},
             {"count", has_count ? json_number<ojson>(reason.count) : ojson(nullptr)},
             {"threshold", has_threshold ? json_number<ojson>(reason.threshold) : ojson(nullptr)},
             {"missing", reason.kind == reason_kind::not_placed ? ojson(lacking_text(reason.lacks)) : ojson(nullptr)},
             {"alternatives", reason.alternatives}});
    }
    return out;
}

ojson resources_json(const kernel_roofline& roof) {
    ojson res = ojson::array();
    for (const auto& res_use : roof.resources) {
        const bool floor = info(res_use.id).in_floor;
        res.push_back(
            {{"id", name(res_use.id)},
             {"kind", info(res_use.id).kind == resource_kind::memory ? "memory" : "compute"},
             {"work", positive_number(res_use.work)},
             {"peak_per_second", positive_number(res_use.peak)},
             {"peak_source", text_or_null(peak_source_text(res_use.peak_from))},
             {"peak_estimated", res_use.peak_estimated},
             {"utilisation", json_number<ojson>(res_use.utilisation)},
             {"useful", floor ? json_number<ojson>(res_use.useful) : ojson(nullptr)},
             {"practical_share", floor ? json_number<ojson>(res_use.practical) : ojson(nullptr)},
             {"practical_share_default", floor ? ojson(res_use.practical_default) : ojson(nullptr)},
             {"floor_ns", floor ? json_number<ojson>(res_use.floor_ns) : ojson(nullptr)},
             {"formula", res_use.formula},
             {"useful_formula", text_or_null(useful_formula_text(res_use.useful_from))},
             // Where the capture does not separate useful work from waste: useful and floor_ns are upper bounds.
             {"useful_lo", floor && !res_use.exact() ? json_number<ojson>(res_use.useful_lo) : ojson(nullptr)},
             {"missing_metrics", std::vector<std::string>(res_use.missing.begin(), res_use.missing.end())}});
    }
    return res;
}

// The resources the capture has no counter for: each busy and useful share between 0 and `at_most`.
ojson unmeasured_json(const kernel_roofline& roof) {
    ojson out = ojson::array();
    for (const auto& unmeasured : roof.unmeasured)
        out.push_back(
            {{"id", name(unmeasured.id)},
             {"at_most", json_number<ojson>(unmeasured.hi)},
             {"missing_metrics", std::vector<std::string>(unmeasured.missing.begin(), unmeasured.missing.end())}});
    return out;
}

ojson value_json(const diagnose::evidence_value& evidence) {
    if (const auto value = evidence.value())
        return evidence.type == diagnose::value_type::boolean ? ojson(*value != 0.0) : json_number<ojson>(*value);
    // Only bounded by the capture: [lo, hi] for a number, null for an undecided boolean.
    if (const auto bounds = evidence.bounds(); bounds && evidence.type == diagnose::value_type::number)
        return ojson::array({json_number<ojson>(bounds->lo), json_number<ojson>(bounds->hi)});
    return ojson(nullptr);
}

// Findings of the rule trees, then the rows Nsight Compute's own rules wrote.
ojson findings_json(const analysed_kernel& kernel) {
    ojson findings = ojson::array();
    for (const auto& finding : kernel.diagnosis.findings) {
        ojson evidence = ojson::array();
        for (const auto& value : finding.evidence)
            evidence.push_back({{"expression", evidence_name(value)}, {"value", value_json(value)}});
        findings.push_back({{"id", finding.id},
                            {"source", "roofline"},
                            {"tree", finding.tree},
                            {"node", finding.node},
                            {"title", finding_title(finding)},
                            {"explanation", finding_explain(finding)},
                            {"evidence", evidence},
                            {"fixes", finding_fixes(finding)},
                            {"est_speedup", optional_number(finding.est_speedup)},
                            {"est_time_saved_ns", optional_number(finding.est_time_saved_ns)},
                            {"est_time_saved_combined_ns", optional_number(finding.est_time_saved_combined_ns)},
                            {"est_time_after_ns", optional_number(finding.est_time_after_ns)},
                            {"est_speedup_at_most", optional_number(finding.est_speedup_at_most)},
                            {"est_speedup_at_least", optional_number(finding.est_speedup_at_least)},
                            {"fired_at_least_work", finding.at_least_work},
                            {"binds_after", text_or_null(binds_after_text(finding.binds_after))},
                            {"estimate", text_or_null(finding_estimate_why(finding))},
                            {"estimate_changes", finding_estimate_changes(finding)}});
    }
    for (const auto& rule : kernel.group.rules)
        findings.push_back(
            {{"id", rule.name},
             {"source", "ncu"},
             {"type", text_or_null(rule.type)},
             {"section", text_or_null(rule.section)},
             {"description", rule.description},
             {"est_speedup_pct", rule.est_speedup_pct >= 0 ? json_number<ojson>(rule.est_speedup_pct) : ojson(nullptr)},
             {"speedup_type", text_or_null(rule.speedup_type)}});
    return findings;
}

ojson path_json(const diagnose::diagnosis& diagnosis) {
    ojson path = ojson::array();
    for (const auto& visit : diagnosis.path) {
        ojson values = ojson::object();
        for (const auto& evidence : visit.values) values[evidence_name(evidence)] = value_json(evidence);
        path.push_back({{"tree", visit.tree},
                        {"node", visit.node},
                        {"depth", visit.depth},
                        {"result", visit.result == diagnose::visited_node::outcome::fired       ? "fired"
                                   : visit.result == diagnose::visited_node::outcome::not_fired ? "not fired"
                                                                                                : "cannot evaluate"},
                        {"values", values},
                        {"missing", std::vector<std::string>(visit.missing.begin(), visit.missing.end())},
                        {"within_noise", visit.within_noise}});
    }
    return path;
}

// Whose kernel it is (rules/origins/*.json): kind, library, the pattern that matched and what the name says.
ojson origin_json(const kernel_origin& origin) {
    ojson out;
    out["kind"] = name(origin.kind);
    out["library"] = origin.library.empty() ? ojson(nullptr) : ojson(origin.library.str());
    out["pattern"] = origin.pattern.empty() ? ojson(nullptr) : ojson(origin.pattern.str());
    out["source_owned"] = source_owned(origin.kind);
    ojson facts = ojson::object();
    const origin_facts& name_facts = origin.facts;
    if (name_facts.built_for_sm > 0) facts["built_for_sm"] = name_facts.built_for_sm;
    if (name_facts.alignment > 0) facts["alignment"] = name_facts.alignment;
    if (name_facts.vector_width > 0) facts["vector_width"] = name_facts.vector_width;
    if (name_facts.split_k) facts["split_k"] = true;
    if (!name_facts.tile.empty()) facts["tile"] = name_facts.tile;
    if (!name_facts.math.empty()) facts["math"] = name_facts.math.str();
    if (!name_facts.path.empty()) facts["path"] = name_facts.path.str();
    if (!name_facts.fused_ops.empty()) facts["fused_ops"] = name_facts.fused_ops;
    out["facts"] = std::move(facts);
    return out;
}

ojson kernel_json(const analysed_kernel& kernel, const std::string& label, const chip* target_chip) {
    ojson out;
    out["name"] = kernel.group.name;
    out["short_name"] = label;
    out["origin"] = origin_json(kernel.origin);
    out["block_size"] = optional_dims(kernel.group.block_size);
    out["grid_size"] = optional_dims(kernel.group.grid_size);
    out["launches"] = kernel.group.launches;
    out["duration_ns"] = kernel.roof.placed ? json_number<ojson>(kernel.roof.duration_ns) : ojson(nullptr);
    out["share_of_workload"] = json_number<ojson>(kernel.share);
    out["bound"] = name(kernel.verdict.bound);
    out["limiter"] = optional_name(kernel.verdict.limiter);
    out["reasons"] = reasons_json(kernel.verdict.reasons);
    // What the counters leave open: every bound and limiter not excluded (one each where decided).
    ojson bounds = ojson::array(), limiters = ojson::array();
    for (bound kind : kernel.verdict.possible_bounds) bounds.push_back(name(kind));
    for (resource id : kernel.verdict.possible_limiters) limiters.push_back(name(id));
    out["possible_bounds"] = bounds;
    out["possible_limiters"] = limiters;
    ojson tied_limiters = ojson::array(), tied_bounds = ojson::array();
    for (resource id : kernel.verdict.tied_limiters) tied_limiters.push_back(name(id));
    for (bound kind : kernel.verdict.tied_bounds) tied_bounds.push_back(name(kind));
    out["tied_limiters"] = tied_limiters;
    out["tied_bounds"] = tied_bounds;
    out["share_of_roof"] = kernel.roof.placed ? json_number<ojson>(kernel.roof.pct_of_roof / 100.0) : ojson(nullptr);
    out["share_of_roof_at_most"] =
        kernel.roof.placed ? json_number<ojson>(kernel.roof.pct_of_roof_hi / 100.0) : ojson(nullptr);
    out["floor_ns"] = kernel.roof.placed ? json_number<ojson>(kernel.roof.floor_ns) : ojson(nullptr);
    out["binding_resource"] = optional_name(kernel.roof.binding);
    out["flops"] = kernel.roof.flops_counted ? json_number<ojson>(kernel.roof.flops) : ojson(nullptr);
    out["bytes"] = {{"dram", optional_number(kernel.roof.bytes_dram)},
                    {"l2", optional_number(kernel.roof.bytes_l2)},
                    {"l1", optional_number(kernel.roof.bytes_l1)}};
    out["arithmetic_intensity"] = {{"dram", optional_number(kernel.roof.intensity(resource::dram))},
                                   {"l2", optional_number(kernel.roof.intensity(resource::l2))},
                                   {"l1", optional_number(kernel.roof.intensity(resource::l1))}};
    out["clocks_hz"] = {{"sm", positive_number(kernel.roof.sm_clock_hz)},
                        {"dram", positive_number(kernel.roof.dram_clock_hz)}};
    out["resources"] = resources_json(kernel.roof);
    out["unmeasured"] = unmeasured_json(kernel.roof);
    ojson warnings = ojson::array();  // as sentences, as report schema 3 has them
    for (const auto& warning : kernel.roof.warnings) warnings.push_back(warning_text(warning));
    out["warnings"] = warnings;
    out["findings"] = findings_json(kernel);
    out["rule_path"] = path_json(kernel.diagnosis);
    // Never silent: what the capture does not decide, the metrics that would (the chip's own names),
    // and the ncu options that collect them. Empty and null on a complete capture.
    const diagnose::collect_flags flags = diagnose::ncu_flags_for(kernel.diagnosis.missing_metrics, target_chip);
    std::vector<std::string> missing = flags.metrics;
    for (const auto& section : flags.sections) missing.push_back("section:" + section);
    ojson undecided = ojson::array();
    for (const auto& item : kernel.diagnosis.undecided) undecided.push_back(undecided_text(item));
    out["undecided"] = std::move(undecided);
    out["missing_metrics"] = missing;
    out["uncollectable_metrics"] = flags.uncollectable;
    out["collect"] = flags.empty() ? ojson(nullptr) : ojson("ncu " + flags.text());
    out["first_finding_tied_with"] = kernel.diagnosis.tied_with_first;
    // Where the capture left nodes undecided, the first finding is provisional: what may outrank it.
    out["first_finding_provisional"] = kernel.diagnosis.provisional;
    ojson contenders = ojson::array();
    for (const auto& contender : kernel.diagnosis.could_outrank) {
        ojson needs = ojson::array();
        for (const auto& metric : contender.needs) needs.push_back(metric.str());
        contenders.push_back({{"finding", contender.id.str()},
                              {"tree", contender.tree.str()},
                              {"node", contender.node.str()},
                              {"needs", needs},
                              {"if_first_gainless", contender.if_first_gainless}});
    }
    out["could_outrank_first"] = std::move(contenders);
    out["within_noise"] = kernel.diagnosis.within_noise;
    return out;
}

}  // namespace

// Names are bytes as ncu wrote them; any that are not UTF-8 are written with U+FFFD (the reader
// notes which).
std::string dump(const ojson& value) { return value.dump(2, ' ', false, ojson::error_handler_t::replace); }

// The text of `value` as an element two levels down the document: every line indented four more.
void write_nested(std::ostream& out, const ojson& value) {
    const std::string text = dump(value);
    std::string indented = "    ";
    for (char ch : text) {
        indented += ch;
        if (ch == '\n') indented += "    ";
    }
    out << indented;
}

void write_json(const analysis& analysed, const print_options&, std::ostream& stream) {
    // The document is written a kernel at a time: one kernel's tree in memory, not every kernel's
    // (a capture of 10,000 distinct kernels holds gigabytes as one tree). The bytes are those of
    // dumping the whole document with an indent of 2.
    ojson head;
    head["schema"] = "roofline-report/3";
    head["tool"] = {{"name", "roofline"}, {"version", ROOFLINE_VERSION}};
    const analyze_options& opt = analysed.options;
    head["input"] = {{"file", analysed.input},
                     {"form", ncu_form_name(analysed.read.form)},
                     {"number_style", style_json(analysed.read.style)},
                     {"number_style_assumed", analysed.read.style_assumed},
                     {"launches_read", analysed.launches_read},
                     {"launches_analysed", analysed.launches_kept},
                     {"skipped_lines", analysed.read.skipped_lines},
                     {"notes", analysed.read.notes},
                     // The options of `roofline analyze` that shaped this report; null = not given.
                     {"options",
                      {{"kernel_name", text_or_null(opt.filter.kernel_name)},
                       {"kernel_name_base", kernel_name_base_name(opt.filter.base)},
                       {"launch_skip", opt.filter.launch_skip},
                       {"launch_count", opt.filter.launch_count ? ojson(*opt.filter.launch_count) : ojson(nullptr)},
                       {"gpu", text_or_null(opt.gpu)},
                       {"gpu_override", opt.gpu_override},
                       {"device", text_or_null(opt.device)},
                       {"numbers", style_json(opt.read.numbers)},
                       {"hwspecs_dir", text_or_null(opt.hwspecs_dir)},
                       {"rules_dir", text_or_null(opt.rules_dir)}}}};
    ojson defaults = ojson::array();
    for (resource id : analysed.default_practical) defaults.push_back(name(id));
    head["gpu"] = {{"id", analysed.gpu.id},
                   {"name", analysed.gpu.name},
                   {"spec_file", analysed.gpu.file},
                   {"matched", gpu_match_text(analysed.gpu_how)},
                   {"default_practical_shares", defaults},
                   {"default_practical_shares_note",
                    analysed.default_practical.empty() ? ojson(nullptr) : ojson(default_practical_reason())}};
    head["total_duration_ns"] = json_number<ojson>(analysed.total_ns);
    std::string out = dump(head);
    out.pop_back();  // the closing brace: the kernels and the opportunities follow
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    stream << out << ",\n  \"kernels\": ";
    if (analysed.kernels.empty()) {
        stream << "[]";
    } else {
        stream << "[\n";
        const std::vector<std::string> labels = kernel_labels(analysed);
        const chip* target_chip = chip_for_cc(analysed.gpu.compute_capability);
        for (std::size_t i = 0; i < analysed.kernels.size(); ++i) {
            write_nested(stream, kernel_json(analysed.kernels[i], labels[i], target_chip));
            stream << (i + 1 < analysed.kernels.size() ? ",\n" : "\n");
        }
        stream << "  ]";
    }
    ojson ops = ojson::array();
    for (const auto& op : opportunities(analysed))
        ops.push_back(
            {{"kernel", analysed.kernels[op.kernel_rank].group.name},
             {"kernel_index", op.kernel_rank},
             {"id", op.finding->id},
             {"est_speedup", optional_number(op.finding->est_speedup)},
             {"est_time_saved_ns", optional_number(op.finding->est_time_saved_combined_ns)},
             {"share_of_workload_saved",
              analysed.total_ns > 0 ? json_number<ojson>(*op.finding->est_time_saved_combined_ns / analysed.total_ns)
                                    : ojson(nullptr)}});
    ojson tail;
    tail["opportunities"] = ops;
    const std::string rest = dump(tail);  // "{\n  \"opportunities\": ...\n}"
    stream << ",\n" << rest.substr(2) << "\n";
}

std::string render_json(const analysis& analysed, const print_options& options) {
    std::ostringstream stream;
    write_json(analysed, options, stream);
    return stream.str();
}

}  // namespace roofline
