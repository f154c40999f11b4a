#include "analyzer/base/input_error.hpp"
#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/report/explain.hpp"
#include "analyzer/report/reference.hpp"
#include "models/classify.hpp"
#include "models/resources.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <regex>
#include <set>

using namespace roofline;
using namespace roofline::test;

namespace {
std::set<std::string> tree_findings(const std::vector<diagnose::rule_tree>& trees) {
    std::set<std::string> ids;
    std::function<void(const diagnose::rule_node&)> visit = [&](const diagnose::rule_node& n) {
        if (!n.finding.empty()) ids.insert(n.finding);
        for (const auto& c : n.children) visit(c);
    };
    for (const auto& t : trees)
        for (const auto& r : t.roots) visit(r);
    return ids;
}
}  // namespace

TEST_CASE("explain knows findings, metrics, stall reasons, derived values and error codes") {
    auto trees = diagnose::load_rule_trees();
    auto has = [&](const char* name, const char* text) {
        auto e = explain(name, trees);
        CAPTURE(name);
        REQUIRE(e.has_value());
        CHECK(e->find(text) != std::string::npos);
    };
    has("uncoalesced-global", "Estimate:");
    has("gpu__time_duration.sum", "GPU time");
    has("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "HFMA2.MMA");
    has("long_scoreboard", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
    has("util_dram", "busy share");
    has("practical_dram", "real kernels reach");
    has("unexplained", "No rule explains");
    has("bad_number", "a cell that must hold a number does not");
    CHECK_FALSE(explain("nonsense", trees).has_value());
    CHECK_FALSE(explain("util_nonsense", trees).has_value());
}

TEST_CASE("every finding the trees can report is in the catalogue of rules/README.md, and back") {
    auto trees = diagnose::load_rule_trees();
    auto ids = tree_findings(trees);
    std::string readme = read_text(source_path("rules/README.md"));
    auto catalogue_at = readme.find("## Finding catalogue");
    REQUIRE(catalogue_at != std::string::npos);
    std::set<std::string> documented;
    std::regex row(R"(\n\| ([a-z0-9-]+) \| ([a-z0-9-]+) \|)");
    std::string catalogue = readme.substr(catalogue_at);
    for (std::sregex_iterator it(catalogue.begin(), catalogue.end(), row), end; it != end; ++it)
        documented.insert((*it)[1]);
    documented.erase("id");          // the header row
    ids.insert("fusion-candidate");  // found across kernels (analyzer/diagnose/fusion.cpp), not by a tree
    ids.insert("unexplained");       // the catch-all of analyzer/diagnose/diagnose.cpp
    ids.insert("missing-counters");  // its twin where the capture lacked what a node needed
    CHECK(ids == documented);
    for (const auto& id : ids) CHECK(explain(id, trees).has_value());
}

TEST_CASE("docs/metrics.md is the catalogue, generated, and every metric the engine's sources name is in it") {
    CHECK(metric_catalogue_markdown() == read_text(source_path("docs/metrics.md")));
    // Metric ids written in the model and the rules' C++ (quoted strings with "__"): each is in the catalogue.
    std::regex quoted(R"re("([a-z0-9_]+__[a-z0-9_.]+)")re");
    std::vector<std::string> files;
    for (const char* dir : {"models", "analyzer"})
        for (const auto& e : std::filesystem::recursive_directory_iterator(source_path(dir)))
            if (e.path().extension() == ".cpp") files.push_back(e.path().string());
    REQUIRE(files.size() > 20);
    for (const auto& file : files) {
        std::string text = read_text(file);
        for (std::sregex_iterator it(text.begin(), text.end(), quoted), end; it != end; ++it) {
            std::string id = (*it)[1];
            if (id.back() == '_') continue;  // a prefix the code completes (sm__inst_executed_pipe_ + name)
            CAPTURE(file);
            CAPTURE(id);
            CHECK(find_metric(id) != nullptr);
        }
    }
}

TEST_CASE("explain knows every label a report prints: bounds, resources, verdicts and finding ids") {
    auto trees = diagnose::load_rule_trees();
    auto knows = [&](const std::string& name) {
        CAPTURE(name);
        CHECK(explain(name, trees).has_value());
    };
    for (bound b : all_bounds()) knows(name(b));  // small_grid, launch, latency, ...
    for (const auto& r : all_resources()) knows(r.name);
    for (bound b : {bound::memory, bound::compute})
        for (const auto& r : all_resources()) {
            knows(std::string(name(b)) + " / " + r.name);  // as the reports print a verdict
            knows(std::string(name(b)) + "/" + r.name);    // as kernels/pairs.json writes it
        }
    for (const auto& id : tree_findings(trees)) knows(id);
    knows("fusion-candidate");
    knows("unexplained");
    knows("missing-counters");
    CHECK(explain("small_grid", trees)->find("fewer blocks than the GPU has SMs") != std::string::npos);
    CHECK(explain("compute / tensor_bf16", trees)->find("tensor-core FLOP roof") != std::string::npos);
    // Every bound, limiter and finding the shipped captures' reports hold, as the JSON report names them.
    for (const char* capture :
         {"examples/h100/kernels_raw.csv", "examples/h100/pairs_raw.csv", "examples/h100/kernels_details.csv"}) {
        const analysis a = analyze_file(source_path(capture), {});
        for (const auto& k : a.kernels) {
            knows(verdict_text(k.verdict));
            for (const auto& f : k.diagnosis.findings) knows(f.id);
        }
    }
}
