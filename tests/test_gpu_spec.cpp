#include "analyzer/base/input_error.hpp"
#include "models/gpu_match.hpp"
#include "models/gpu_spec.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace roofline;

TEST_CASE("the shipped specs load and carry a source for every number") {
    auto specs = load_gpu_specs();
    std::vector<std::string> ids;
    for (const auto& s : specs) ids.push_back(s.id);
    for (const char* want : {"h100-sxm", "h100-pcie", "h200", "b200", "rtx-5090", "a100-sxm4-80gb"})
        CHECK(std::find(ids.begin(), ids.end(), want) != ids.end());
    for (const auto& s : specs) {
        CAPTURE(s.id);
        CHECK_FALSE(s.sm_count.source.empty());
        for (const auto& [p, n] : s.peaks_tflops) CHECK_FALSE(n.source.empty());
        CHECK(s.dram_bandwidth_tbs.value > 0);
    }
}

TEST_CASE("a spec with a missing field names the file and the field") {
    auto text = roofline::test::read_text(roofline::test::source_path("hwspecs/h100-sxm.json"));
    auto j = nlohmann::json::parse(text);
    j["peaks_tflops"].erase("fp32");
    CHECK_THROWS_WITH_AS(parse_gpu_spec(j.dump(), "my.json"), "my.json: field \"peaks_tflops.fp32\": missing", input_error);
    j = nlohmann::json::parse(text);
    j["dram_bandwidth_tbs"]["value"] = "fast";
    CHECK_THROWS_WITH_AS(parse_gpu_spec(j.dump(), "my.json"), "my.json: field \"dram_bandwidth_tbs.value\": expected a number or null",
                         input_error);
    j = nlohmann::json::parse(text);
    j["sm_count"].erase("source");
    CHECK_THROWS_WITH_AS(parse_gpu_spec(j.dump(), "my.json"), "my.json: field \"sm_count.source\": missing", input_error);
    CHECK_THROWS_WITH_AS(parse_gpu_spec("{\n  \"id\": \"x\",\n  oops\n}", "bad.json"), "bad.json:3:3: not valid JSON", input_error);
}

TEST_CASE("detection: device name first, then CC and SMs, then the DRAM clock") {
    auto specs = load_gpu_specs();
    CHECK(match_gpu(specs, {"NVIDIA H100 80GB HBM3", "9.0", 132, 2619}, "", "f").spec->id == "h100-sxm");
    // The details page has no device name: CC 9.0 and 132 SMs fit the H100 SXM and the H200.
    CHECK(match_gpu(specs, {"", "9.0", 132, 2618.0}, "", "f").spec->id == "h100-sxm");
    CHECK(match_gpu(specs, {"", "9.0", 132, 3201.0}, "", "f").spec->id == "h200");
    CHECK(match_gpu(specs, {"", "9.0", 114, std::nullopt}, "", "f").spec->id == "h100-pcie");
    CHECK(match_gpu(specs, {"", "8.0", 108, std::nullopt}, "", "f").spec->id == "a100-sxm4-80gb");
    CHECK_THROWS_WITH_AS(match_gpu(specs, {"", "9.0", std::nullopt, std::nullopt}, "", "f"),
                         doctest::Contains("fits several GPU specs (h100-pcie, h100-sxm, h200); pass --gpu"), input_error);
    CHECK_THROWS_WITH_AS(match_gpu(specs, {"Mystery GPU", "7.5", 40, std::nullopt}, "", "cap.csv"),
                         doctest::Contains("cap.csv: no GPU spec matches \"Mystery GPU\" (CC 7.5, 40 SMs)"), input_error);
    CHECK(match_gpu(specs, {"NVIDIA H100 80GB HBM3", "9.0", 132, 2619}, "h200", "f").spec->id == "h200");
    CHECK_THROWS_WITH_AS(match_gpu(specs, {}, "v100", "f"), doctest::Contains("--gpu v100 names no known GPU"), input_error);
}

TEST_CASE("--hwspecs overrides a shipped spec by id and adds a new one; the shipped list is left as it was") {
    const auto shipped = load_gpu_specs();
    using namespace roofline::test;
    auto dir = temp_path("hwspecs-override");
    std::filesystem::create_directories(dir);
    auto h100 = nlohmann::json::parse(read_text(source_path("hwspecs/h100-sxm.json")));
    h100["name"] = "My H100";
    std::ofstream(dir / "a.json") << h100.dump();
    h100["id"] = "my-gpu";
    std::ofstream(dir / "b.json") << h100.dump();
    auto specs = load_gpu_specs(dir.string());
    CHECK(specs.size() == shipped.size() + 1);
    auto named = [&](const std::string& id) {
        return std::find_if(specs.begin(), specs.end(), [&](const gpu_spec& s) { return s.id == id; });
    };
    REQUIRE(named("h100-sxm") != specs.end());
    CHECK(named("h100-sxm")->name == "My H100");
    CHECK(named("h100-sxm")->file == (dir / "a.json").string());
    CHECK(named("my-gpu") != specs.end());
    CHECK(load_gpu_specs().size() == shipped.size());
    std::filesystem::remove_all(dir);
}

TEST_CASE("every figure a roof is built from is finite and above zero") {
    using namespace roofline::test;
    const auto text = read_text(source_path("hwspecs/h100-sxm.json"));
    auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& field) {
        auto j = nlohmann::json::parse(text);
        edit(j);
        CHECK_THROWS_WITH_AS(parse_gpu_spec(j.dump(), "my.json"),
                             ("my.json: field \"" + field + "\": must be a finite number above zero").c_str(), input_error);
    };
    refused([](auto& j) { j["peaks_tflops"]["fp32"]["at_clock_mhz"] = 0; }, "peaks_tflops.fp32.at_clock_mhz");
    refused([](auto& j) { j["boost_clock_mhz"]["value"] = -1980; }, "boost_clock_mhz.value");
    refused([](auto& j) { j["detect"]["dram_clock_mhz"] = 0; }, "detect.dram_clock_mhz");
    // JSON has no infinity; a literal past the double range reads as one.
    auto inf = text;
    const std::string from = "\"value\": 1980";
    REQUIRE(inf.find(from) != std::string::npos);
    inf.replace(inf.find(from), from.size(), "\"value\": 1e999");
    CHECK_THROWS_WITH_AS(parse_gpu_spec(inf, "my.json"), doctest::Contains("my.json: a number out of range"), input_error);
}
