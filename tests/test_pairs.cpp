// The validation table of kernels/ on the committed H100 and H200 captures.
#include "analyzer/validate/pairs_report.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace roofline;
using namespace roofline::test;

namespace {
const pair_row& pair_named(const pairs_report& r, const std::string& id) {
    for (const auto& p : r.pairs)
        if (p.id == id) return p;
    throw std::runtime_error("no pair " + id);
}
}  // namespace

TEST_CASE("every verdict on the real captures is what its pair was built to show, or a listed miss") {
    for (const char* gpu : {"h100", "h200"}) {
        CAPTURE(gpu);
        // Paths as the README's command gives them, so the table names them the same way.
        const working_folder in_folder(ROOFLINE_SOURCE_DIR);
        auto r = build_pairs_report(std::string("examples/") + gpu, "kernels/pairs.json");
        CHECK(r.problems.empty());
        for (const auto& p : r.problems) MESSAGE(p);
        CHECK(r.pairs.size() == 13);
        // PAIRS.md is generated, never typed: regenerating gives the same bytes.
        CHECK(render_pairs_markdown(r) == read_text(source_path(std::string("examples/") + gpu + "/PAIRS.md")));
    }
}

TEST_CASE("the H100 capture reaches the roofs the references were built for") {
    const working_folder in_folder(ROOFLINE_SOURCE_DIR);
    auto r = build_pairs_report("examples/h100", "kernels/pairs.json");
    std::size_t references = 0;
    for (const auto& ref : r.references) {
        CAPTURE(ref.case_name);
        if (ref.case_name != "copy_vec4" && ref.case_name != "fma_fp32") continue;
        ++references;
        REQUIRE(ref.roof_pct);
        CHECK(*ref.roof_pct >= 85.0);
    }
    CHECK(references == 2);  // both references are in the capture: the checks above cannot be skipped
    // Every fixed memory-bound kernel reaches 80% of its memory roof, but the random gather
    // (79.5% of L2 at full occupancy), which PAIRS.md lists as a missed target.
    for (const auto& p : r.pairs) {
        CAPTURE(p.id);
        if (p.fixed.expect.rfind("memory/", 0) != 0) continue;
        REQUIRE(p.fixed.roof_pct.has_value());
        if (p.id == "occupancy-limited") {
            CHECK(*p.fixed.roof_pct == doctest::Approx(79.5).epsilon(0.005));
            CHECK(std::count_if(r.targets_missed.begin(), r.targets_missed.end(),
                                [](const std::string& m) { return m.find("occupancy-limited") == 0; }) == 1);
        } else {
            CHECK(*p.fixed.roof_pct >= 80.0);
        }
    }
    // Every fix gains: the naive side is slower under ncu and in the unprofiled runner.
    for (const auto& p : r.pairs) {
        CAPTURE(p.id);
        CHECK(p.naive.ncu_ns > 1.4 * p.fixed.ncu_ns);
        REQUIRE(p.naive.runner_us.has_value());
        CHECK(*p.naive.runner_us > 1.4 * *p.fixed.runner_us);
    }
    CHECK(pair_named(r, "tensor-underused").reference_ns.has_value());
}

TEST_CASE("a verdict that differs without a reason is reported") {
    auto spec = nlohmann::json::parse(read_text(source_path("kernels/pairs.json")));
    spec["pairs"][0]["naive"]["expect"] = "compute/fp32";
    auto path = temp_path("pairs-test.json").string();
    std::ofstream(path) << spec.dump();
    auto r = build_pairs_report(source_path("examples/h100"), path);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].find("uncoalesced-global naive (transpose_naive) differs") == 0);
}
