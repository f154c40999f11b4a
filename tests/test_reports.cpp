// Golden reports for a committed real capture. A mismatch prints the first differing line;
// ROOFLINE_UPDATE_GOLDEN=1 rewrites the golden files (commit them after reading the diff).
#include "analyzer/report/report.hpp"
#include "analyzer/report/table.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>

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
        for (const char* f :
             {"name", "launches", "duration_ns", "bound", "limiter", "pct_of_roof", "floor_ns", "arithmetic_intensity", "findings"})
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

TEST_CASE("on a GPU with no measured practical shares the estimates stay, and both reports say the shares are defaults") {
    // The H100 capture read against the H100 PCIe spec, which has no practical_fraction: every
    // roof the H100 SXM measured takes its share as a default.
    analyze_options o;
    o.gpu = "h100-pcie";
    o.gpu_override = true;  // the capture says H100 SXM: the spec is chosen on purpose
    auto a = analyze_example("examples/h100/pairs_raw.csv", o);
    REQUIRE_FALSE(a.default_practical.empty());
    CHECK(std::find(a.default_practical.begin(), a.default_practical.end(), resource::dram) != a.default_practical.end());
    std::size_t findings = 0, estimated = 0;
    bool fusion_estimated = false;
    for (const auto& k : a.kernels) {
        if (const resource_use* d = k.roof.find(resource::dram)) {
            CHECK(d->practical_default);
            CHECK(d->practical == 0.872);  // the H100 SXM's measured DRAM share
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
    CHECK(md.find("87.2% (default)") != std::string::npos);
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
    "the opportunities list every estimated finding of the workload by the time it adds, most first, never more than a kernel's time") {
    auto a = analyze_example("examples/h100/pairs_raw.csv");
    auto j = nlohmann::json::parse(render_json(a));
    const auto& ops = j["opportunities"];
    std::size_t estimated = 0;
    for (const auto& k : j["kernels"]) {
        double combined = 0.0;
        for (const auto& f : k["findings"]) {
            if (f.value("source", "") != "roofline" || !f["est_time_saved_combined_ns"].is_number()) continue;
            if (f["est_time_saved_combined_ns"].get<double>() > 0) ++estimated;
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
    CHECK(md.find("| 1 | 1. `unnamed>::wmma_global` | tensor-underused | ") != std::string::npos);
}

TEST_CASE("the table builder escapes cells for markdown and refuses a row of the wrong width") {
    table t({"name", "value"});
    t.row({"a|b", "line\nbreak"}).row({"", "x"});
    CHECK(t.markdown() == "| name | value |\n|---|---|\n| a\\|b | line break |\n| | x |\n");
    CHECK_THROWS_AS(t.row({"only one"}), std::logic_error);
}

TEST_CASE("every report format prints through the one interface, and an unknown one is refused by name") {
    auto a = analyze_named("examples/h100/kernels_raw.csv");
    CHECK(find_report_format("html") == nullptr);
    for (const auto& f : report_formats()) {
        CAPTURE(f.name);
        const std::string text = f.print(a, {});
        CHECK_FALSE(text.empty());
        CHECK(text == f.print(a, {}));  // deterministic
    }
    CHECK(find_report_format("markdown")->print(a, {}) == render_markdown(a));
    CHECK(find_report_format("svg")->print(a, {}).rfind("<svg ", 0) == 0);
    CHECK(report_format_names() == "markdown, json, terminal, svg");
}
