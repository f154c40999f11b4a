// Golden reports for a committed real capture. A mismatch prints the first differing line;
// ROOFLINE_UPDATE_GOLDEN=1 rewrites the golden files (commit them after reading the diff).
#include "analyzer/report/report.hpp"
#include "analyzer/report/table.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

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
