#include "analyzer/explain.hpp"
#include "analyzer/input_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <regex>
#include <set>

using namespace roofline;
using namespace roofline::test;

namespace {
std::set<std::string> tree_findings(const std::vector<rules::rule_tree>& trees) {
    std::set<std::string> ids;
    std::function<void(const rules::rule_node&)> visit = [&](const rules::rule_node& n) {
        if (!n.finding.empty()) ids.insert(n.finding);
        for (const auto& c : n.children) visit(c);
    };
    for (const auto& t : trees)
        for (const auto& r : t.roots) visit(r);
    return ids;
}
}  // namespace

TEST_CASE("explain knows findings, metrics, stall reasons, derived values and error codes") {
    auto trees = rules::load_rule_trees();
    auto has = [&](const char* name, const char* text) {
        auto e = explain(name, trees);
        CAPTURE(name);
        REQUIRE(e.has_value());
        CHECK(e->find(text) != std::string::npos);
    };
    has("uncoalesced-global", "Time once fixed");
    has("gpu__time_duration.sum", "duration");
    has("long_scoreboard", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
    has("util_dram", "utilisation");
    has("practical_dram", "share of that roof");
    has("bad_number", "a cell that must hold a number does not");
    CHECK_FALSE(explain("nonsense", trees).has_value());
    CHECK_FALSE(explain("util_nonsense", trees).has_value());
}

TEST_CASE("every finding the trees can report is in the catalogue of rules/README.md, and back") {
    auto trees = rules::load_rule_trees();
    auto ids = tree_findings(trees);
    std::string readme = read_text(source_path("rules/README.md"));
    auto catalogue_at = readme.find("## Finding catalogue");
    REQUIRE(catalogue_at != std::string::npos);
    std::set<std::string> documented;
    std::regex row(R"(\n\| ([a-z0-9-]+) \| ([a-z0-9-]+) \|)");
    std::string catalogue = readme.substr(catalogue_at);
    for (std::sregex_iterator it(catalogue.begin(), catalogue.end(), row), end; it != end; ++it) documented.insert((*it)[1]);
    documented.erase("id");  // the header row
    ids.insert("fusion-candidate");  // found across kernels (analyzer/rules/fusion.cpp), not by a tree
    CHECK(ids == documented);
    for (const auto& id : ids) CHECK(explain(id, trees).has_value());
}
