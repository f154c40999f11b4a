// Golden reports for a committed real capture. A mismatch prints the first differing line;
// ROOFLINE_UPDATE_GOLDEN=1 rewrites the golden files (commit them after reading the diff).
#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"
#include "models/classify.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <set>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>

using namespace roofline;
using namespace roofline::test;

namespace {

analysis analyze_named(const std::string& rel) {
    std::ifstream in(source_path(rel), std::ios::binary);
    return analyze(in, rel, {});
}

void check_golden(const std::string& actual, const std::string& golden_rel) {
    std::string path = source_path(golden_rel);
    if (std::getenv("ROOFLINE_UPDATE_GOLDEN")) {
        std::ofstream(path, std::ios::binary) << actual;
        return;
    }
    std::string expected = read_text(path);
    if (actual == expected) return;
    std::istringstream a(actual), e(expected);
    std::string la, le;
    std::size_t line = 0;
    while (true) {
        ++line;
        bool ga = bool(std::getline(a, la)), ge = bool(std::getline(e, le));
        if (!ga && !ge) break;
        if (la != le || ga != ge) {
            FAIL_CHECK(golden_rel << ":" << line << " differs\n  expected: " << le << "\n  actual:   " << la);
            return;
        }
    }
}

}  // namespace

TEST_CASE("markdown report of the H100 kernels capture matches its golden file") {
    check_golden(render_markdown(analyze_named("examples/h100/kernels_raw.csv")), "tests/golden/kernels_raw.md");
}

TEST_CASE("JSON report of the H100 kernels capture matches its golden file") {
    check_golden(render_json(analyze_named("examples/h100/kernels_raw.csv")), "tests/golden/kernels_raw.json");
}

TEST_CASE("markdown report of the details export keeps ncu's own findings") {
    std::string md = render_markdown(analyze_named("examples/h100/kernels_details.csv"));
    check_golden(md, "tests/golden/kernels_details.md");
    CHECK(md.find("Nsight Compute says") != std::string::npos);
}

TEST_CASE("the JSON report carries the documented fields") {
    auto j = nlohmann::json::parse(render_json(analyze_named("examples/h100/kernels_details.csv")));
    CHECK(j["gpu"]["id"] == "h100-sxm");
    REQUIRE(j["kernels"].size() == 8);
    for (const auto& k : j["kernels"]) {
        for (const char* f : {"name", "launches", "duration_ns", "bound", "limiter", "share_of_roof", "floor_ns",
                              "arithmetic_intensity", "findings"})
            CHECK(k.contains(f));
        for (const auto& f : k["findings"]) {
            CHECK((f["source"] == "ncu" || f["source"] == "roofline"));
            if (f["source"] == "roofline")
                for (const char* field : {"id", "evidence", "explanation", "fixes", "est_speedup", "est_time_saved_ns"})
                    CHECK(f.contains(field));
        }
        CHECK(k.contains("rule_path"));
    }
}

TEST_CASE(
    "on a GPU with no measured practical shares the estimates stay, and both reports say the shares are defaults") {
    // The H100 capture read against the H100 PCIe spec, which has no practical_fraction: every
    // roof the H100 SXM measured takes its share as a default.
    analyze_options o;
    o.gpu = "h100-pcie";
    o.gpu_override = true;  // the capture says H100 SXM: the spec is chosen on purpose
    auto a = analyze_example("examples/h100/pairs_raw.csv", o);
    REQUIRE_FALSE(a.default_practical.empty());
    CHECK(std::find(a.default_practical.begin(), a.default_practical.end(), resource::dram) !=
          a.default_practical.end());
    std::size_t findings = 0, estimated = 0;
    bool fusion_estimated = false;
    for (const auto& k : a.kernels) {
        if (const resource_use* d = k.roof.find(resource::dram)) {
            CHECK(d->practical_default);
            CHECK(d->practical == 0.897);  // the H100 SXM's measured DRAM share
        }
        for (const auto& f : k.diagnosis.findings) {
            ++findings;
            estimated += f.est_speedup.has_value();
            fusion_estimated |= f.id == "fusion-candidate" && f.est_speedup.has_value();
        }
    }
    CHECK(findings > 0);
    CHECK(estimated == findings);  // no estimate lost for want of a measured share
    CHECK(fusion_estimated);       // the fusion estimate needs the DRAM share: it used to vanish here
    const std::string md = render_markdown(a);
    CHECK(md.find("are defaults, not measured on this GPU") != std::string::npos);
    CHECK(md.find("89.7% (default)") != std::string::npos);
    CHECK(md.find("--set full") == std::string::npos);
    auto j = nlohmann::json::parse(render_json(a));
    const auto& defaults = j["gpu"]["default_practical_shares"];
    CHECK(std::find(defaults.begin(), defaults.end(), "dram") != defaults.end());
    CHECK(j["gpu"]["default_practical_shares_note"].get<std::string>().find("H100 SXM") != std::string::npos);
    // On the GPU whose shares were measured there is no such note.
    auto measured = analyze_example("examples/h100/pairs_raw.csv");
    CHECK(measured.default_practical.empty());
    CHECK(render_markdown(measured).find("are defaults") == std::string::npos);
    CHECK(nlohmann::json::parse(render_json(measured))["gpu"]["default_practical_shares_note"].is_null());
}

TEST_CASE("the same input gives byte-identical reports") {
    auto a = analyze_named("examples/h100/torch_ops_raw.csv");
    auto b = analyze_named("examples/h100/torch_ops_raw.csv");
    CHECK(render_markdown(a) == render_markdown(b));
    CHECK(render_json(a) == render_json(b));
}

TEST_CASE(
    "the opportunities list every estimated finding of the workload by the time it adds, most first, never more than a "
    "kernel's time") {
    auto a = analyze_example("examples/h100/pairs_raw.csv");
    auto j = nlohmann::json::parse(render_json(a));
    const auto& ops = j["opportunities"];
    std::size_t estimated = 0;
    for (const auto& k : j["kernels"]) {
        double combined = 0.0;
        for (const auto& f : k["findings"]) {
            if (f.value("source", "") != "roofline" || !f["est_time_saved_combined_ns"].is_number()) continue;
            // An opportunity: a saving, by a fix that gains more than run-to-run noise.
            if (f["est_time_saved_combined_ns"].get<double>() > 0 &&
                f["est_speedup"].get<double>() >= 1.0 + roofline::run_to_run_noise)
                ++estimated;
            // Savings on one kernel overlap: what each adds to those above it never sums past the kernel's time.
            if (f["tree"] != "workload") combined += f["est_time_saved_combined_ns"].get<double>();
            CHECK(f["est_time_saved_combined_ns"].get<double>() <= f["est_time_saved_ns"].get<double>() + 1e-6);
        }
        CHECK(combined <= k["duration_ns"].get<double>());
    }
    REQUIRE(ops.size() == estimated);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        CAPTURE(i);
        if (i) CHECK(ops[i]["est_time_saved_ns"].get<double>() <= ops[i - 1]["est_time_saved_ns"].get<double>());
        // Each one is a finding of the kernel it names, with the same estimate.
        const auto& k = j["kernels"][ops[i]["kernel_index"].get<std::size_t>()];
        CHECK(k["name"] == ops[i]["kernel"]);
        bool found = false;
        for (const auto& f : k["findings"])
            found |= f["id"] == ops[i]["id"] && f["est_time_saved_combined_ns"] == ops[i]["est_time_saved_ns"];
        CHECK(found);
    }
    CHECK(ops[0]["id"] == "tensor-underused");  // the WMMA kernel: a quarter of the workload's time
    const std::string md = render_markdown(a);
    CHECK(md.find("## Opportunities") < md.find("## Kernels"));
    CHECK(md.find("| 1 | 1. `wmma_global` | tensor-underused | ") != std::string::npos);
}

TEST_CASE("the table builder escapes cells for markdown and refuses a row of the wrong width") {
    table t({"name", "value"});
    t.row({"a|b", "line\nbreak"}).row({"", "x"});
    CHECK(t.markdown() == "| name | value |\n|---|---|\n| a\\|b | line break |\n| | x |\n");
    CHECK_THROWS_AS(t.row({"only one"}), std::logic_error);
}

TEST_CASE("the table prints as fixed-width text: widths, alignment, cuts, painting, rows of fewer cells") {
    CHECK(pad("ab", 4) == "ab  ");
    CHECK(pad("ab", 4, align::right) == "  ab");
    CHECK(pad("abcdef", 4) == "abcdef");                   // never cut unless asked
    CHECK(pad("abcdef", 4, align::left, true) == "abc~");  // cut to exactly the width
    table t({{"#", align::right, 3, true, 0}, {"name", align::left, 6, true}, {"time", align::right}, {"note"}});
    t.row({"1", "copy_vec4", "1.81 ms", "first"}).row({"10", "ab", "9 us", ""});
    // The last column is not padded; the second row ends at its last cell with no trailing spaces.
    CHECK(t.text() == "  #  name       time  note\n  1  copy_~  1.81 ms  first\n 10  ab         9 us\n");
    text_layout layout;
    layout.header = false;
    layout.paint_cell = [](std::size_t row, std::size_t col, const std::string& cell) {
        return row == 0 && col == 1 ? "[" + cell + "]" : cell;
    };
    layout.after_row = [](std::size_t row) { return row == 1 ? std::string("\n     more") : std::string(); };
    CHECK(t.text(layout) == "  1  [copy_~]  1.81 ms  first\n 10  ab         9 us\n     more\n");
}

TEST_CASE("every report format prints through the one interface, and an unknown one is refused by name") {
    auto a = analyze_named("examples/h100/kernels_raw.csv");
    CHECK(find_report_format("pdf") == nullptr);
    for (const auto& f : report_formats()) {
        CAPTURE(f.name);
        const std::string text = f.print(a, {});
        CHECK_FALSE(text.empty());
        CHECK(text == f.print(a, {}));  // deterministic
    }
    CHECK(find_report_format("markdown")->print(a, {}) == render_markdown(a));
    CHECK(find_report_format("svg")->print(a, {}).rfind("<svg ", 0) == 0);
    CHECK(find_report_format("html")->print(a, {}) == render_html(a));
    CHECK(report_format_names() == "markdown, json, terminal, html, svg");
}

namespace {

// The captures whose reports the tests below read: raw and details pages, many kernels, long names.
const char* const report_inputs[] = {"examples/h100/kernels_raw.csv",    "examples/h100/kernels_details.csv",
                                     "examples/h100/torch_ops_raw.csv",  "examples/h100/pairs_raw.csv",
                                     "examples/h100/cublas_ref_raw.csv", "examples/h200/kernels_raw.csv"};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// Each kernel's section: from its "### " heading to the next one.
std::vector<std::string> kernel_sections(const std::string& md) {
    std::vector<std::string> out;
    auto at = md.find("\n### ");
    while (at != std::string::npos) {
        auto next = md.find("\n### ", at + 1);
        out.push_back(md.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
        at = next;
    }
    return out;
}

}  // namespace

TEST_CASE(
    "the markdown report reads top-down: GPU, input, one line on the ceilings, summary, opportunities, chart, "
    "kernels") {
    print_options o;
    o.chart_file = "report.svg";
    const std::string md = render_markdown(analyze_named("examples/h100/kernels_raw.csv"), o);
    const auto gpu = md.find("- GPU: "), summary = md.find("## Summary"), ops = md.find("## Opportunities"),
               chart = md.find("![Roofline chart"), kernels = md.find("## Kernels");
    CHECK(gpu < summary);
    CHECK(summary < ops);
    CHECK(ops < chart);
    CHECK(chart < kernels);
    CHECK(kernels != std::string::npos);
    const auto head = lines_of(md.substr(0, summary));
    CHECK(head.size() <= 8);
    CHECK(std::count_if(head.begin(), head.end(),
                        [](const std::string& l) { return l.rfind("- Ceilings:", 0) == 0; }) == 1);
}

TEST_CASE(
    "a kernel's section shows at most 25 lines before a collapsed block that keeps every resource and the whole tree "
    "walk") {
    for (const char* input : report_inputs) {
        CAPTURE(input);
        const auto a = analyze_named(input);
        const std::string md = render_markdown(a);
        const auto sections = kernel_sections(md);
        REQUIRE(sections.size() == a.kernels.size());
        for (std::size_t i = 0; i < sections.size(); ++i) {
            const auto& s = sections[i];
            CAPTURE(lines_of(s).front());
            if (!a.kernels[i].roof.placed) continue;
            const auto details = s.find("<details>");
            REQUIRE(details != std::string::npos);
            CHECK(lines_of(s.substr(0, details)).size() <= 25);
            CHECK(s.find("</details>") != std::string::npos);
            CHECK(s.find("Rule trees walked:") > details);
            CHECK(s.find("| pipe_alu ") > details);  // the long resource table, empty pipe rows included
            CHECK(s.find("- Full name: ") < details);
            CHECK(s.find("**" + verdict_text(a.kernels[i].verdict) + "**") < details);
            for (const auto& f : a.kernels[i].diagnosis.findings)
                CHECK(s.find("- **" + f.id + "**") != std::string::npos);
        }
    }
}

TEST_CASE(
    "every report writes numbers one way: no exponents, shares as percentages, 1 launch and 1 kernel in the singular") {
    const std::regex exponent("[0-9][eE][+-][0-9]{2}");  // how printf %g writes one (prose like "1e-3" in a fix is no
                                                         // number the engine wrote)
    // Shares, not the durations that share a prefix (practical_floor_ns is a time).
    const std::regex share_not_percent(
        "(util|useful|pressure|practical)_(?!floor_ns)[a-z0-9_]+ = [-0-9.]+[kMGT]?(?![%0-9.kMGT])");
    const std::regex bad_plural("[^0-9.]1 (launches|kernels|lines)\\b");
    for (const char* input : report_inputs) {
        CAPTURE(input);
        const std::string md = render_markdown(analyze_named(input));
        for (const auto& l : lines_of(md)) {
            if (l.rfind("- Full name:", 0) == 0) continue;  // a kernel's signature is as ncu wrote it
            CAPTURE(l);
            CHECK_FALSE(std::regex_search(l, exponent));
            CHECK_FALSE(std::regex_search(l, share_not_percent));
            CHECK_FALSE(std::regex_search(l, bad_plural));
        }
    }
    analyze_options one;
    one.filter.kernel_name = "copy_vec4";
    const std::string md = render_markdown(analyze_example("examples/h100/kernels_raw.csv", one));
    CHECK(md.find("- Input: raw page, 1 of 15 launches analysed, 1 kernel, ") != std::string::npos);
    CHECK(md.find("- 1 launch (first: ID ") != std::string::npos);
    CHECK(count_text(1, "launch", "launches") == "1 launch");
    CHECK(count_text(0, "launch", "launches") == "0 launches");
    diagnose::evidence_value util{"util_dram", 0.00081};
    CHECK(named_value_text(util) == "0.1%");
    diagnose::evidence_value pct{"sm__maximum_warps_per_active_cycle_pct", 100.0};
    CHECK(named_value_text(pct) == "100.0%");
    diagnose::evidence_value blocks{"grid_blocks", 4.0};
    CHECK(named_value_text(blocks) == "4");
    diagnose::evidence_value bytes{"bytes_dram", 1.18e8};
    CHECK(named_value_text(bytes) == "118M");
}

TEST_CASE("tables name kernels by a short name without namespaces or parameters, unique within the report") {
    CHECK(kernel_label("void (anonymous namespace)::copy_vec4(const float4 *, float4 *, unsigned long)") ==
          "copy_vec4");
    CHECK(kernel_label("void unnamed>::fma_chain<float>(float *, int)") == "fma_chain<float>");
    CHECK(kernel_label(
              "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
              "at::detail::Array<char *, 1>>(int, at::native::FillFunctor<float>, at::detail::Array<char *, 1>)") ==
          "vectorized_elementwise_kernel<...>");
    const std::string long_template = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_" + std::string(200, 'x') +
                                      "<" + std::string(40, 'y') + ">>(Params)";
    CHECK(kernel_label(long_template).size() <= 40);
    CHECK(kernel_label("gemm") == "gemm");
    // Names that shorten alike are numbered in kernel order.
    analysis a;
    a.kernels.resize(3);
    a.kernels[0].group.name = "void ns1::k<int>(int)";
    a.kernels[1].group.name = "void ns2::k<int>(int)";
    a.kernels[2].group.name = "void k2(int)";
    CHECK(kernel_labels(a) == std::vector<std::string>{"k<int> #1", "k<int> #2", "k2"});
    // In every report, no kernel cell of the summary runs past 45 characters, and the labels are unique.
    for (const char* input : report_inputs) {
        CAPTURE(input);
        const auto an = analyze_named(input);
        auto labels = kernel_labels(an);
        for (const auto& l : labels) CHECK(l.size() <= 45);
        std::sort(labels.begin(), labels.end());
        CHECK(std::adjacent_find(labels.begin(), labels.end()) == labels.end());
        const std::string md = render_markdown(an);
        for (const auto& k : an.kernels) CHECK(md.find("- Full name: " + code_span(k.group.name)) != std::string::npos);
    }
}

namespace {

// Calls `f` on every value of the document with its path.
void walk(const nlohmann::json& j, const std::string& at,
          const std::function<void(const nlohmann::json&, const std::string&)>& f) {
    f(j, at);
    if (j.is_object())
        for (const auto& [k, v] : j.items()) walk(v, at + "/" + k, f);
    else if (j.is_array())
        for (std::size_t i = 0; i < j.size(); ++i) walk(j[i], at + "/" + std::to_string(i), f);
}

}  // namespace

TEST_CASE(
    "the JSON report writes integers as integers, null for the unknown, and no more than six significant digits") {
    for (const char* input : report_inputs) {
        CAPTURE(input);
        const auto j = nlohmann::json::parse(render_json(analyze_named(input)));
        walk(j, "", [](const nlohmann::json& v, const std::string& at) {
            CAPTURE(at);
            CHECK_FALSE((v.is_string() && v.get<std::string>().empty()));  // "" is never written for unknown
            if (v.is_number_float()) {
                const double d = v.get<double>();
                char buf[32];
                auto end = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general, 6).ptr;
                double back = 0;
                std::from_chars(buf, end, back);
                CHECK(back == d);  // no float noise past six digits
            }
        });
        for (const auto& k : j["kernels"]) {
            CHECK(k["launches"].is_number_integer());
            for (const char* dims : {"grid_size", "block_size"}) {
                REQUIRE(k[dims].is_array());
                CHECK(k[dims].size() == 3);
                for (const auto& d : k[dims]) CHECK(d.is_number_integer());
            }
            const double share = k["share_of_roof"].is_null() ? 0.0 : k["share_of_roof"].get<double>();
            CHECK(share >= 0.0);
            CHECK(share <= 1.5);  // a fraction, like utilisation and share_of_workload
        }
    }
    // The details page has no FLOP counters: FLOPs and intensities are unknown alike.
    const auto d = nlohmann::json::parse(render_json(analyze_named("examples/h100/kernels_details.csv")));
    for (const auto& k : d["kernels"]) {
        CHECK(k["flops"].is_null());
        CHECK(k["arithmetic_intensity"]["dram"].is_null());
    }
    const auto r = nlohmann::json::parse(render_json(analyze_named("examples/h100/kernels_raw.csv")));
    CHECK(r["kernels"][0]["grid_size"] == nlohmann::json::array({4, 1, 1}));
    CHECK(r["kernels"][0]["flops"].is_number());
}

TEST_CASE("the JSON report records the tool's version and the options the analysis ran with") {
    auto j = nlohmann::json::parse(render_json(analyze_named("examples/h100/kernels_raw.csv")));
    CHECK(j["tool"]["name"] == "roofline");
    CHECK(std::regex_match(j["tool"]["version"].get<std::string>(), std::regex("[0-9]+\\.[0-9]+\\.[0-9]+")));
    const auto& none = j["input"]["options"];
    CHECK(none["kernel_name"].is_null());
    CHECK(none["launch_skip"] == 0);
    CHECK(none["launch_count"].is_null());
    CHECK(none["gpu"].is_null());
    CHECK(none["gpu_override"] == false);
    CHECK(none["device"].is_null());
    CHECK(none["numbers"].is_null());
    CHECK(j["input"]["number_style"] == "point");
    analyze_options o;
    o.gpu = "h100-pcie";
    o.gpu_override = true;  // the capture ran on an H100 SXM
    o.device = "0";
    o.filter.kernel_name = "regex:^fma_chain";  // the function name, as ncu matches by default
    o.filter.launch_skip = 1;
    o.filter.launch_count = 2;
    o.read.numbers = number_style::point;
    const auto specs = temp_path("extra-specs");
    std::filesystem::create_directories(specs);  // an empty folder of extra specs
    o.hwspecs_dir = specs.string();
    const auto with = nlohmann::json::parse(render_json(analyze_example("examples/h100/kernels_raw.csv", o)));
    const auto& opt = with["input"]["options"];
    CHECK(opt["gpu"] == "h100-pcie");
    CHECK(opt["gpu_override"] == true);
    CHECK(opt["device"] == "0");
    CHECK(opt["kernel_name"] == "regex:^fma_chain");
    CHECK(opt["kernel_name_base"] == "function");
    CHECK(opt["launch_skip"] == 1);
    CHECK(opt["launch_count"] == 2);
    CHECK(opt["numbers"] == "point");
    CHECK(opt["hwspecs_dir"] == specs.string());
    std::filesystem::remove(specs);
    CHECK(opt["rules_dir"].is_null());
}

TEST_CASE("terminal labels: names that differ only past the width are numbered, each with its own number") {
    // Cut to 8 columns, the three show the same start and the same two characters where they differ from
    // the others: only numbers tell them apart, #1, #2 and #3 (a label rewritten in the loop used to leave
    // the last one unnumbered).
    const std::vector<std::string> names = {"abcdefgh1xyz", "abcdefgh2xyz", "abcdefgh3xyz"};
    const auto labels = distinct_labels(names, 8);
    REQUIRE(labels.size() == 3);
    CHECK(labels[0].substr(labels[0].size() - 2) == "#1");
    CHECK(labels[1].substr(labels[1].size() - 2) == "#2");
    CHECK(labels[2].substr(labels[2].size() - 2) == "#3");
    for (const auto& l : labels) CHECK(l.size() <= 8);
}
