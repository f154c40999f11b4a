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

ojson optional_number(const std::optional<double>& v) { return v ? json_number<ojson>(*v) : ojson(nullptr); }
ojson positive_number(double v) { return v > 0 ? json_number<ojson>(v) : ojson(nullptr); }
ojson text_or_null(const std::string& s) { return s.empty() ? ojson(nullptr) : ojson(s); }

// "point", "comma", or null where the style was not known.
ojson style_json(number_style s) {
    return s == number_style::point ? ojson("point") : s == number_style::comma ? ojson("comma") : ojson(nullptr);
}

ojson optional_name(const std::optional<resource>& r) { return r ? ojson(name(*r)) : ojson(nullptr); }
ojson optional_dims(const std::optional<launch_dims>& d) {
    return d ? ojson::array({d->xyz[0], d->xyz[1], d->xyz[2]}) : ojson(nullptr);
}

// The verdict's steps as values (models/classify.hpp, verdict_reason); the markdown words them.
ojson load_json(const std::optional<unit_load>& u) {
    if (!u) return nullptr;
    return ojson{{"resource", name(u->id)},
                 {"busy", json_number<ojson>(u->busy)},
                 {"practical_share", json_number<ojson>(u->practical)},
                 {"formula", std::string(u->formula)}};
}

ojson reasons_json(const std::vector<verdict_reason>& reasons) {
    ojson out = ojson::array();
    for (const auto& r : reasons) {
        const bool has_value = r.kind == reason_kind::short_launches || r.kind == reason_kind::idle_sms ||
                               r.kind == reason_kind::under_one_wave || r.kind == reason_kind::grid_fills_gpu ||
                               r.kind == reason_kind::tensor_precision || r.kind == reason_kind::verdict_within_noise;
        const bool has_count = r.kind == reason_kind::idle_sms || r.kind == reason_kind::grid_fills_gpu;
        const bool has_threshold = r.kind == reason_kind::short_launches || r.kind == reason_kind::memory_near_roof ||
                                   r.kind == reason_kind::lower_level_named || r.kind == reason_kind::specific_unit ||
                                   r.kind == reason_kind::sm_as_whole || r.kind == reason_kind::below_every_roof;
        out.push_back({{"kind", name(r.kind)},
                       {"unit", load_json(r.unit)},
                       {"compared_with", load_json(r.other)},
                       {"named", optional_name(r.named)},
                       {"value", has_value ? json_number<ojson>(r.value) : ojson(nullptr)},
                       {"count", has_count ? json_number<ojson>(r.count) : ojson(nullptr)},
                       {"threshold", has_threshold ? json_number<ojson>(r.threshold) : ojson(nullptr)},
                       {"missing", r.kind == reason_kind::not_placed ? ojson(lacking_text(r.lacks)) : ojson(nullptr)},
                       {"alternatives", r.alternatives}});
    }
    return out;
}

ojson resources_json(const kernel_roofline& roof) {
    ojson res = ojson::array();
    for (const auto& r : roof.resources) {
        const bool floor = info(r.id).in_floor;
        res.push_back(
            {{"id", name(r.id)},
             {"kind", info(r.id).kind == resource_kind::memory ? "memory" : "compute"},
             {"work", positive_number(r.work)},
             {"peak_per_second", positive_number(r.peak)},
             {"peak_source", text_or_null(peak_source_text(r.peak_from))},
             {"peak_estimated", r.peak_estimated},
             {"utilisation", json_number<ojson>(r.utilisation)},
             {"useful", floor ? json_number<ojson>(r.useful) : ojson(nullptr)},
             {"practical_share", floor ? json_number<ojson>(r.practical) : ojson(nullptr)},
             {"practical_share_default", floor ? ojson(r.practical_default) : ojson(nullptr)},
             {"floor_ns", floor ? json_number<ojson>(r.floor_ns) : ojson(nullptr)},
             {"formula", r.formula},
             {"useful_formula", text_or_null(useful_formula_text(r.useful_from))},
             // Where the capture does not separate useful work from waste: useful and floor_ns are upper bounds.
             {"useful_lo", floor && !r.exact() ? json_number<ojson>(r.useful_lo) : ojson(nullptr)},
             {"missing_metrics", std::vector<std::string>(r.missing.begin(), r.missing.end())}});
    }
    return res;
}

// The resources the capture has no counter for: each busy and useful share between 0 and `at_most`.
ojson unmeasured_json(const kernel_roofline& roof) {
    ojson out = ojson::array();
    for (const auto& u : roof.unmeasured)
        out.push_back({{"id", name(u.id)},
                       {"at_most", json_number<ojson>(u.hi)},
                       {"missing_metrics", std::vector<std::string>(u.missing.begin(), u.missing.end())}});
    return out;
}

ojson value_json(const diagnose::evidence_value& e) {
    if (const auto v = e.value())
        return e.type == diagnose::value_type::boolean ? ojson(*v != 0.0) : json_number<ojson>(*v);
    // Only bounded by the capture: [lo, hi] for a number, null for an undecided boolean.
    if (const auto b = e.bounds(); b && e.type == diagnose::value_type::number)
        return ojson::array({json_number<ojson>(b->lo), json_number<ojson>(b->hi)});
    return ojson(nullptr);
}

// Findings of the rule trees, then the rows Nsight Compute's own rules wrote.
ojson findings_json(const analysed_kernel& k) {
    ojson findings = ojson::array();
    for (const auto& f : k.diagnosis.findings) {
        ojson evidence = ojson::array();
        for (const auto& e : f.evidence)
            evidence.push_back({{"expression", evidence_name(e)}, {"value", value_json(e)}});
        findings.push_back({{"id", f.id},
                            {"source", "roofline"},
                            {"tree", f.tree},
                            {"node", f.node},
                            {"title", finding_title(f)},
                            {"explanation", finding_explain(f)},
                            {"evidence", evidence},
                            {"fixes", finding_fixes(f)},
                            {"est_speedup", optional_number(f.est_speedup)},
                            {"est_time_saved_ns", optional_number(f.est_time_saved_ns)},
                            {"est_time_saved_combined_ns", optional_number(f.est_time_saved_combined_ns)},
                            {"est_time_after_ns", optional_number(f.est_time_after_ns)},
                            {"binds_after", text_or_null(binds_after_text(f.binds_after))},
                            {"estimate", text_or_null(finding_estimate_why(f))},
                            {"estimate_changes", finding_estimate_changes(f)}});
    }
    for (const auto& r : k.group.rules)
        findings.push_back(
            {{"id", r.name},
             {"source", "ncu"},
             {"type", text_or_null(r.type)},
             {"section", text_or_null(r.section)},
             {"description", r.description},
             {"est_speedup_pct", r.est_speedup_pct >= 0 ? json_number<ojson>(r.est_speedup_pct) : ojson(nullptr)},
             {"speedup_type", text_or_null(r.speedup_type)}});
    return findings;
}

ojson path_json(const diagnose::diagnosis& d) {
    ojson path = ojson::array();
    for (const auto& v : d.path) {
        ojson values = ojson::object();
        for (const auto& x : v.values) values[evidence_name(x)] = value_json(x);
        path.push_back({{"tree", v.tree},
                        {"node", v.node},
                        {"depth", v.depth},
                        {"result", v.result == diagnose::visited_node::outcome::fired       ? "fired"
                                   : v.result == diagnose::visited_node::outcome::not_fired ? "not fired"
                                                                                            : "cannot evaluate"},
                        {"values", values},
                        {"missing", std::vector<std::string>(v.missing.begin(), v.missing.end())},
                        {"within_noise", v.within_noise}});
    }
    return path;
}

// Whose kernel it is (rules/origins/*.json): kind, library, the pattern that matched and what the name says.
ojson origin_json(const kernel_origin& o) {
    ojson e;
    e["kind"] = name(o.kind);
    e["library"] = o.library.empty() ? ojson(nullptr) : ojson(o.library.str());
    e["pattern"] = o.pattern.empty() ? ojson(nullptr) : ojson(o.pattern.str());
    e["source_owned"] = source_owned(o.kind);
    ojson facts = ojson::object();
    const origin_facts& f = o.facts;
    if (f.built_for_sm > 0) facts["built_for_sm"] = f.built_for_sm;
    if (f.alignment > 0) facts["alignment"] = f.alignment;
    if (f.vector_width > 0) facts["vector_width"] = f.vector_width;
    if (f.split_k) facts["split_k"] = true;
    if (!f.tile.empty()) facts["tile"] = f.tile;
    if (!f.math.empty()) facts["math"] = f.math.str();
    if (!f.path.empty()) facts["path"] = f.path.str();
    if (!f.fused_ops.empty()) facts["fused_ops"] = f.fused_ops;
    e["facts"] = std::move(facts);
    return e;
}

ojson kernel_json(const analysed_kernel& k, const std::string& label, const chip* c) {
    ojson e;
    e["name"] = k.group.name;
    e["short_name"] = label;
    e["origin"] = origin_json(k.origin);
    e["block_size"] = optional_dims(k.group.block_size);
    e["grid_size"] = optional_dims(k.group.grid_size);
    e["launches"] = k.group.launches;
    e["duration_ns"] = k.roof.placed ? json_number<ojson>(k.roof.duration_ns) : ojson(nullptr);
    e["share_of_workload"] = json_number<ojson>(k.share);
    e["bound"] = name(k.verdict.bound);
    e["limiter"] = optional_name(k.verdict.limiter);
    e["reasons"] = reasons_json(k.verdict.reasons);
    // What the counters leave open: every bound and limiter not excluded (one each where decided).
    ojson bounds = ojson::array(), limiters = ojson::array();
    for (bound b : k.verdict.possible_bounds) bounds.push_back(name(b));
    for (resource r : k.verdict.possible_limiters) limiters.push_back(name(r));
    e["possible_bounds"] = bounds;
    e["possible_limiters"] = limiters;
    ojson tied_limiters = ojson::array(), tied_bounds = ojson::array();
    for (resource r : k.verdict.tied_limiters) tied_limiters.push_back(name(r));
    for (bound b : k.verdict.tied_bounds) tied_bounds.push_back(name(b));
    e["tied_limiters"] = tied_limiters;
    e["tied_bounds"] = tied_bounds;
    e["share_of_roof"] = k.roof.placed ? json_number<ojson>(k.roof.pct_of_roof / 100.0) : ojson(nullptr);
    e["share_of_roof_at_most"] = k.roof.placed ? json_number<ojson>(k.roof.pct_of_roof_hi / 100.0) : ojson(nullptr);
    e["floor_ns"] = k.roof.placed ? json_number<ojson>(k.roof.floor_ns) : ojson(nullptr);
    e["binding_resource"] = optional_name(k.roof.binding);
    e["flops"] = k.roof.flops_counted ? json_number<ojson>(k.roof.flops) : ojson(nullptr);
    e["bytes"] = {{"dram", optional_number(k.roof.bytes_dram)},
                  {"l2", optional_number(k.roof.bytes_l2)},
                  {"l1", optional_number(k.roof.bytes_l1)}};
    e["arithmetic_intensity"] = {{"dram", optional_number(k.roof.intensity(resource::dram))},
                                 {"l2", optional_number(k.roof.intensity(resource::l2))},
                                 {"l1", optional_number(k.roof.intensity(resource::l1))}};
    e["clocks_hz"] = {{"sm", positive_number(k.roof.sm_clock_hz)}, {"dram", positive_number(k.roof.dram_clock_hz)}};
    e["resources"] = resources_json(k.roof);
    e["unmeasured"] = unmeasured_json(k.roof);
    ojson warnings = ojson::array();  // as sentences, as report schema 3 has them
    for (const auto& w : k.roof.warnings) warnings.push_back(warning_text(w));
    e["warnings"] = warnings;
    e["findings"] = findings_json(k);
    e["rule_path"] = path_json(k.diagnosis);
    // Never silent: what the capture does not decide, the metrics that would (the chip's own names),
    // and the ncu options that collect them. Empty and null on a complete capture.
    const diagnose::collect_flags flags = diagnose::ncu_flags_for(k.diagnosis.missing_metrics, c);
    std::vector<std::string> missing = flags.metrics;
    for (const auto& x : flags.sections) missing.push_back("section:" + x);
    ojson undecided = ojson::array();
    for (const auto& u : k.diagnosis.undecided) undecided.push_back(undecided_text(u));
    e["undecided"] = std::move(undecided);
    e["missing_metrics"] = missing;
    e["uncollectable_metrics"] = flags.uncollectable;
    e["collect"] = flags.empty() ? ojson(nullptr) : ojson("ncu " + flags.text());
    e["first_finding_tied_with"] = k.diagnosis.tied_with_first;
    // Where the capture left nodes undecided, the first finding is provisional: what may outrank it.
    e["first_finding_provisional"] = k.diagnosis.provisional;
    ojson contenders = ojson::array();
    for (const auto& c : k.diagnosis.could_outrank) {
        ojson needs = ojson::array();
        for (const auto& m : c.needs) needs.push_back(m.str());
        contenders.push_back(
            {{"finding", c.id.str()}, {"tree", c.tree.str()}, {"node", c.node.str()}, {"needs", needs}});
    }
    e["could_outrank_first"] = std::move(contenders);
    e["within_noise"] = k.diagnosis.within_noise;
    return e;
}

}  // namespace

// Names are bytes as ncu wrote them; any that are not UTF-8 are written with U+FFFD (the reader
// notes which).
std::string dump(const ojson& j) { return j.dump(2, ' ', false, ojson::error_handler_t::replace); }

// The text of `j` as an element two levels down the document: every line indented four more.
void write_nested(std::ostream& out, const ojson& j) {
    const std::string text = dump(j);
    std::string indented = "    ";
    for (char c : text) {
        indented += c;
        if (c == '\n') indented += "    ";
    }
    out << indented;
}

void write_json(const analysis& a, const print_options&, std::ostream& o) {
    // The document is written a kernel at a time: one kernel's tree in memory, not every kernel's
    // (a capture of 10,000 distinct kernels holds gigabytes as one tree). The bytes are those of
    // dumping the whole document with an indent of 2.
    ojson head;
    head["schema"] = "roofline-report/3";
    head["tool"] = {{"name", "roofline"}, {"version", ROOFLINE_VERSION}};
    const analyze_options& opt = a.options;
    head["input"] = {{"file", a.input},
                     {"form", ncu_form_name(a.read.form)},
                     {"number_style", style_json(a.read.style)},
                     {"number_style_assumed", a.read.style_assumed},
                     {"launches_read", a.launches_read},
                     {"launches_analysed", a.launches_kept},
                     {"skipped_lines", a.read.skipped_lines},
                     {"notes", a.read.notes},
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
    for (resource r : a.default_practical) defaults.push_back(name(r));
    head["gpu"] = {{"id", a.gpu.id},
                   {"name", a.gpu.name},
                   {"spec_file", a.gpu.file},
                   {"matched", gpu_match_text(a.gpu_how)},
                   {"default_practical_shares", defaults},
                   {"default_practical_shares_note",
                    a.default_practical.empty() ? ojson(nullptr) : ojson(default_practical_reason())}};
    head["total_duration_ns"] = json_number<ojson>(a.total_ns);
    std::string out = dump(head);
    out.pop_back();  // the closing brace: the kernels and the opportunities follow
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    o << out << ",\n  \"kernels\": ";
    if (a.kernels.empty()) {
        o << "[]";
    } else {
        o << "[\n";
        const std::vector<std::string> labels = kernel_labels(a);
        const chip* c = chip_for_cc(a.gpu.compute_capability);
        for (std::size_t i = 0; i < a.kernels.size(); ++i) {
            write_nested(o, kernel_json(a.kernels[i], labels[i], c));
            o << (i + 1 < a.kernels.size() ? ",\n" : "\n");
        }
        o << "  ]";
    }
    ojson ops = ojson::array();
    for (const auto& op : opportunities(a))
        ops.push_back({{"kernel", a.kernels[op.kernel_rank].group.name},
                       {"kernel_index", op.kernel_rank},
                       {"id", op.finding->id},
                       {"est_speedup", optional_number(op.finding->est_speedup)},
                       {"est_time_saved_ns", optional_number(op.finding->est_time_saved_combined_ns)},
                       {"share_of_workload_saved",
                        a.total_ns > 0 ? json_number<ojson>(*op.finding->est_time_saved_combined_ns / a.total_ns)
                                       : ojson(nullptr)}});
    ojson tail;
    tail["opportunities"] = ops;
    const std::string rest = dump(tail);  // "{\n  \"opportunities\": ...\n}"
    o << ",\n" << rest.substr(2) << "\n";
}

std::string render_json(const analysis& a, const print_options& options) {
    std::ostringstream o;
    write_json(a, options, o);
    return o.str();
}

}  // namespace roofline
