// docs/report.schema.json against every JSON report the tests can make, and the validator
// (tests/json_schema.hpp) against documents that break it.
#include "analyzer/base/input_error.hpp"
#include "analyzer/report/report.hpp"
#include "json_schema.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

using namespace roofline;
using namespace roofline::test;
using nlohmann::json;

namespace {

const schema_validator& report_schema() {
    static const schema_validator v(json::parse(read_text(source_path("docs/report.schema.json"))));
    return v;
}

std::string joined(const std::vector<std::string>& errors) {
    std::string out;
    for (std::size_t i = 0; i < errors.size() && i < 10; ++i) out += errors[i] + "\n";
    return out;
}

json report_of(const std::string& rel, const analyze_options& o = {}) {
    return json::parse(render_json(analyze_example(rel, o)));
}

}  // namespace

TEST_CASE(
    "the validator checks types, nullable types, enums, bounds, required and extra properties, items, oneOf and $ref") {
    schema_validator v(json::parse(R"({
      "type": "object",
      "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 3},
        "x": {"type": ["number", "null"]},
        "e": {"enum": ["a", "b"]},
        "v": {"type": "array", "items": {"$ref": "#/$defs/small"}, "minItems": 1, "maxItems": 2},
        "o": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "number"}]},
        "m": {"type": "object", "additionalProperties": {"type": "boolean"}}
      },
      "required": ["n"],
      "additionalProperties": false,
      "$defs": {"small": {"type": "number", "maximum": 10}}
    })"));
    CHECK(v.errors(json::parse(R"({"n": 2, "x": null, "e": "a", "v": [1, 2], "o": "s", "m": {"k": true}})")).empty());
    CHECK(v.errors(json::parse(R"({"n": 2, "x": 1.5, "o": 3.5})")).empty());
    CHECK(v.errors(json::parse(R"({"n": 2.5})")).size() == 1);                // not an integer
    CHECK(v.errors(json::parse(R"({"n": 0})")).size() == 1);                  // under the minimum
    CHECK(v.errors(json::parse(R"({"n": 4})")).size() == 1);                  // over the maximum
    CHECK(v.errors(json::parse(R"({"n": 1, "x": "1"})")).size() == 1);        // a string where a number or null goes
    CHECK(v.errors(json::parse(R"({"n": 1, "e": "c"})")).size() == 1);        // not in the enum
    CHECK(v.errors(json::parse(R"({"x": 1})")).size() == 1);                  // lacks n
    CHECK(v.errors(json::parse(R"({"n": 1, "y": 1})")).size() == 1);          // an extra property
    CHECK(v.errors(json::parse(R"({"n": 1, "v": [1, 11]})")).size() == 1);    // an item over its $ref's maximum
    CHECK(v.errors(json::parse(R"({"n": 1, "v": []})")).size() == 1);         // fewer items than minItems
    CHECK(v.errors(json::parse(R"({"n": 1, "v": [1, 2, 3]})")).size() == 1);  // more than maxItems
    CHECK(v.errors(json::parse(R"({"n": 1, "o": 3})")).size() == 1);     // an integer is also a number: two of oneOf
    CHECK(v.errors(json::parse(R"({"n": 1, "o": null})")).size() == 1);  // none of oneOf
    CHECK(v.errors(json::parse(R"({"n": 1, "m": {"k": 1}})")).size() == 1);  // additionalProperties as a schema
    CHECK(v.errors(json::parse(R"([1])")).size() == 1);                      // not an object
    // A keyword it does not know is an error, not a rule silently skipped.
    CHECK_THROWS(schema_validator(json::parse(R"({"pattern": "^a"})")).errors(json::parse(R"("b")")));
    CHECK_THROWS(schema_validator(json::parse(R"({"$ref": "#/$defs/none"})")).errors(json::parse("1")));
}

TEST_CASE("every JSON report of the committed captures and the corpus validates against docs/report.schema.json") {
    std::vector<std::string> files;
    for (const char* dir : {"examples/h100", "examples/h200", "examples/wild", "tests/corpus"})
        for (const auto& e : std::filesystem::directory_iterator(source_path(dir))) {
            const std::string name = e.path().filename().string();
            if (e.path().extension() != ".csv" || name.rfind("fail_", 0) == 0) continue;
            files.push_back(std::string(dir) + "/" + name);
        }
    std::sort(files.begin(), files.end());
    std::size_t validated = 0;
    for (const auto& rel : files) {
        CAPTURE(rel);
        analysis a;
        try {
            a = analyze_example(rel);
        } catch (const input_error&) {
            continue;  // not a capture this engine analyses (a session page, a summary without a GPU): no report to
                       // check
        }
        const auto errors = report_schema().errors(json::parse(render_json(a)));
        CHECK_MESSAGE(errors.empty(), joined(errors));
        ++validated;
    }
    CHECK(validated >= 30);
    // With every option recorded.
    analyze_options o;
    o.gpu = "h100-pcie";
    o.gpu_override = true;
    o.device = "0";
    o.filter.kernel_name = "regex:copy";
    o.filter.launch_count = 3;
    o.read.numbers = number_style::point;
    CHECK(report_schema().errors(report_of("examples/h100/kernels_raw.csv", o)).empty());
}

TEST_CASE("the golden JSON report validates, and a report broken in any of these ways does not") {
    const json good = json::parse(read_text(source_path("tests/golden/kernels_raw.json")));
    REQUIRE(report_schema().errors(good).empty());
    auto broken = [&](auto edit) {
        json j = good;
        edit(j);
        return report_schema().errors(j).size();
    };
    CHECK(broken([](json& j) { j["kernels"][0]["grid_size"] = "(4, 1, 1)"; }) == 1);          // the old string form
    CHECK(broken([](json& j) { j["kernels"][0]["grid_size"] = json::array({4, 1}); }) == 1);  // two of three
    CHECK(broken([](json& j) { j["kernels"][0]["flops"] = ""; }) == 1);                       // "" for unknown
    CHECK(broken([](json& j) { j["kernels"][0]["launches"] = 1.5; }) == 1);  // a count that is not an integer
    CHECK(broken([](json& j) { j["kernels"][0]["share_of_workload"] = 34.5; }) ==
          1);  // a percentage where a fraction goes
    CHECK(broken([](json& j) { j["kernels"][0]["bound"] = "memory / dram"; }) == 1);
    CHECK(broken([](json& j) { j.erase("tool"); }) == 1);
    CHECK(broken([](json& j) { j["input"]["options"]["extra"] = 1; }) == 1);
    CHECK(broken([](json& j) { j["kernels"][0]["findings"][0]["source"] = "other"; }) == 1);  // neither kind of finding
    CHECK(broken([](json& j) { j["kernels"][0]["resources"][0]["kind"] = "io"; }) == 1);
    CHECK(broken([](json& j) { j["schema"] = "roofline-report/1"; }) == 1);
}

namespace {

std::vector<std::string> schema_errors(const std::string& schema_rel, const nlohmann::json& doc) {
    return roofline::test::schema_validator(
               nlohmann::json::parse(roofline::test::read_text(roofline::test::source_path(schema_rel))))
        .errors(doc);
}

}  // namespace

TEST_CASE("every shipped rule tree and GPU spec validates against the schema its $schema names") {
    namespace fs = std::filesystem;
    std::size_t files = 0;
    for (const auto& [folder, schema] :
         {std::pair<std::string, std::string>{"rules", "docs/rule-tree.schema.json"},
          std::pair<std::string, std::string>{"hwspecs", "docs/gpu-spec.schema.json"},
          std::pair<std::string, std::string>{"rules/origins", "docs/kernel-origin.schema.json"}}) {
        for (const auto& entry : fs::directory_iterator(roofline::test::source_path(folder))) {
            if (entry.path().extension() != ".json") continue;
            CAPTURE(entry.path().string());
            const auto doc = nlohmann::json::parse(roofline::test::read_text(entry.path().string()));
            // An editor finds it from the file's folder.
            const std::string up = folder.find('/') == std::string::npos ? "../" : "../../";
            CHECK(doc.value("$schema", "") == up + schema);
            const auto errors = schema_errors(schema, doc);
            for (const auto& e : errors) FAIL_CHECK(e);
            ++files;
        }
    }
    CHECK(files >= 20);
}

TEST_CASE(
    "the schemas refuse what the parsers refuse: a missing field, a wrong kind of fix, a figure of zero, a typo") {
    auto tree = nlohmann::json::parse(roofline::test::read_text(roofline::test::source_path("rules/stalls.json")));
    tree["roots"][0].erase("explain");
    CHECK(schema_errors("docs/rule-tree.schema.json", tree) == std::vector<std::string>{"/roots/0: lacks explain"});
    tree = nlohmann::json::parse(roofline::test::read_text(roofline::test::source_path("rules/stalls.json")));
    tree["roots"][0]["estimate"]["fix"] = "removes_everything";
    CHECK(schema_errors("docs/rule-tree.schema.json", tree).size() == 1);
    tree["roots"][0]["estimate"]["fix"] = "removes_waste";
    tree["roots"][0]["whne"] = "true";  // a misspelt key the parser would ignore
    CHECK(schema_errors("docs/rule-tree.schema.json", tree) == std::vector<std::string>{"/roots/0: unexpected whne"});
    auto spec = nlohmann::json::parse(roofline::test::read_text(roofline::test::source_path("hwspecs/h200.json")));
    spec["sm_count"]["value"] = 0;
    CHECK(schema_errors("docs/gpu-spec.schema.json", spec) == std::vector<std::string>{"/sm_count/value: 0 <= 0"});
    spec = nlohmann::json::parse(roofline::test::read_text(roofline::test::source_path("hwspecs/h200.json")));
    spec["peaks_tflops"].erase("tensor_fp8");
    CHECK(schema_errors("docs/gpu-spec.schema.json", spec) ==
          std::vector<std::string>{"/peaks_tflops: lacks tensor_fp8"});
}
