#include "analyzer/base/input_error.hpp"
#include "analyzer/report/text.hpp"
#include "models/gpu_match.hpp"
#include "models/gpu_spec.hpp"
#include "models/roofline_model.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace roofline;

namespace {

const gpu_spec& spec_named(const std::vector<gpu_spec>& specs, const std::string& id) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const gpu_spec& s) { return s.id == id; });
    if (it == specs.end()) throw std::runtime_error("no spec " + id);
    return *it;
}

double peak(const gpu_spec& s, resource r) { return s.peaks_tflops.at(r).value.value_or(-1.0); }

}  // namespace

// The error a spec text gives as "my.json: <what>", its location checked apart: every field error
// names the line and column of the value that is wrong (one line here: the specs are dumped compact).
std::string located_spec_error(const std::string& text) {
    try {
        (void)parse_gpu_spec(text, "my.json");
    } catch (const input_error& e) {
        CHECK(e.line() == 1);
        CHECK(e.column() > 1);
        return e.file() + ": " + e.detail();
    }
    return "no error";
}

TEST_CASE("the shipped specs load and carry a source for every number") {
    auto specs = load_gpu_specs();
    std::vector<std::string> ids;
    for (const auto& s : specs) ids.push_back(s.id);
    for (const char* want : {"h100-sxm", "h100-pcie", "h200", "b200", "rtx-5090", "a100-sxm4-80gb", "l4", "l40s",
                             "a10g", "a100-sxm4-40gb", "a100-pcie-80gb", "gh200-96gb", "gh200-144gb", "rtx-4090", "t4"})
        CHECK(std::find(ids.begin(), ids.end(), want) != ids.end());
    // Every file in hwspecs/ is one of them: a file the loader skipped or refused would be missing.
    std::size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(roofline::test::source_path("hwspecs")))
        if (e.path().extension() == ".json") {
            ++files;
            CAPTURE(e.path().string());
            CHECK_NOTHROW(parse_gpu_spec(roofline::test::read_text(e.path().string()), e.path().string()));
        }
    CHECK(files == specs.size());
    auto sourced = [](const sourced_number& n) { return !n.source.empty(); };
    for (const auto& s : specs) {
        CAPTURE(s.id);
        CHECK_FALSE(s.sm_count.source.empty());
        CHECK_FALSE(s.boost_clock_mhz.source.empty());
        CHECK_FALSE(s.dram_bandwidth_tbs.source.empty());
        for (const auto& [p, n] : s.peaks_tflops) CHECK(sourced(n));
        for (const auto& [p, n] : s.fp16_accumulate) CHECK_FALSE(n.source.empty());
        CHECK(sourced(s.l2_mib));
        CHECK(sourced(s.l1_bytes_per_clock_per_sm));
        CHECK(sourced(s.l2_bytes_per_clock));
        for (const auto& [r, n] : s.practical_fraction) CHECK(sourced(n));
        CHECK(s.dram_bandwidth_tbs.value > 0);
        CHECK(s.peaks_tflops.at(resource::fp32).value.has_value());  // every GPU publishes FP32
    }
}

TEST_CASE("every device name ncu writes for a shipped GPU finds its spec, and no name finds two") {
    auto specs = load_gpu_specs();
    std::map<std::string, std::string> owner;
    for (const auto& s : specs)
        for (const auto& n : s.device_names) {
            CAPTURE(n);
            std::string key = n;
            for (auto& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
            CHECK(owner.emplace(key, s.id).second);
            CHECK(match_gpu(specs, {n, "", std::nullopt, std::nullopt}, "", "f").spec->id == s.id);
        }
    // The device__attribute_display_name of each new GPU, as CUDA (and so ncu, nvidia-smi, PyTorch)
    // spells it; matching ignores case ("NVIDIA L40s" appears in the wild too).
    const std::vector<std::pair<std::string, std::string>> seen = {
        {"NVIDIA L4", "l4"},
        {"NVIDIA L40S", "l40s"},
        {"NVIDIA L40s", "l40s"},
        {"NVIDIA A10G", "a10g"},
        {"Tesla T4", "t4"},
        {"NVIDIA GeForce RTX 4090", "rtx-4090"},
        {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
        {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
        {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
        {"NVIDIA GH200 480GB", "gh200-96gb"},
        {"NVIDIA GH200 120GB", "gh200-96gb"},
        {"NVIDIA GH200 144G HBM3e", "gh200-144gb"},
        {"NVIDIA H100 PCIe", "h100-pcie"},
        {"NVIDIA GeForce RTX 5090", "rtx-5090"},
    };
    for (const auto& [name, id] : seen) {
        CAPTURE(name);
        auto choice = match_gpu(specs, {name, "", std::nullopt, std::nullopt}, "", "f");
        CHECK(choice.spec->id == id);
        CHECK(choice.how.how == gpu_match_reason::kind::device_name);
        CHECK(gpu_match_text(choice.how) == "matched by device name \"" + std::string(name) + "\"");
    }
}

TEST_CASE("without a device name the new GPUs are found by CC and SM count, the A100s by their DRAM clock") {
    auto specs = load_gpu_specs();
    auto id_of = [&](const char* cc, double sms, std::optional<double> dram) {
        return match_gpu(specs, {"", cc, sms, dram}, "", "f").spec->id;
    };
    CHECK(id_of("8.9", 58, std::nullopt) == "l4");
    CHECK(id_of("8.9", 142, std::nullopt) == "l40s");
    CHECK(id_of("8.9", 128, std::nullopt) == "rtx-4090");
    CHECK(id_of("8.6", 80, std::nullopt) == "a10g");
    CHECK(id_of("7.5", 40, std::nullopt) == "t4");
    // Three A100s share CC 8.0 and 108 SMs; their HBM clocks differ (1215, 1512, 1593 MHz).
    CHECK(id_of("8.0", 108, 1215.0) == "a100-sxm4-40gb");
    CHECK(id_of("8.0", 108, 1512.0) == "a100-pcie-80gb");
    CHECK(id_of("8.0", 108, 1593.0) == "a100-sxm4-80gb");
    CHECK_THROWS_WITH_AS(
        match_gpu(specs, {"", "8.0", 108, std::nullopt}, "", "f"),
        doctest::Contains("fits several GPU specs (a100-pcie-80gb, a100-sxm4-40gb, a100-sxm4-80gb); pass --gpu"),
        input_error);
    // The GH200s share CC, SMs and (nearly) DRAM clocks with the H100 SXM and the H200: a capture
    // with no device name keeps matching those two, as before; a GH200 needs its name or --gpu.
    CHECK(id_of("9.0", 132, 2618.0) == "h100-sxm");
    CHECK(id_of("9.0", 132, 3201.0) == "h200");
}

TEST_CASE("a spec with a missing field names the file and the field") {
    auto text = roofline::test::read_text(roofline::test::source_path("hwspecs/h100-sxm.json"));
    auto j = nlohmann::json::parse(text);
    j["peaks_tflops"].erase("fp32");
    CHECK(located_spec_error(j.dump()) ==
          std::string(
              "my.json: field \"peaks_tflops.fp32\": missing [docs/gpu-spec.schema.json#/properties/peaks_tflops]"));
    j = nlohmann::json::parse(text);
    j["dram_bandwidth_tbs"]["value"] = "fast";
    CHECK(located_spec_error(j.dump()) ==
          std::string("my.json: field \"dram_bandwidth_tbs.value\": expected a number or null "
                      "[docs/gpu-spec.schema.json#/properties/dram_bandwidth_tbs]"));
    j = nlohmann::json::parse(text);
    j["sm_count"].erase("source");
    CHECK(located_spec_error(j.dump()) ==
          std::string("my.json: field \"sm_count.source\": missing [docs/gpu-spec.schema.json#/properties/sm_count]"));
    CHECK_THROWS_WITH_AS(parse_gpu_spec("{\n  \"id\": \"x\",\n  oops\n}", "bad.json"), "bad.json:3:3: not valid JSON",
                         input_error);
}

TEST_CASE("detection: device name first, then CC and SMs, then the DRAM clock") {
    auto specs = load_gpu_specs();
    CHECK(match_gpu(specs, {"NVIDIA H100 80GB HBM3", "9.0", 132, 2619}, "", "f").spec->id == "h100-sxm");
    // The details page has no device name: CC 9.0 and 132 SMs fit the H100 SXM and the H200.
    CHECK(match_gpu(specs, {"", "9.0", 132, 2618.0}, "", "f").spec->id == "h100-sxm");
    CHECK(match_gpu(specs, {"", "9.0", 132, 3201.0}, "", "f").spec->id == "h200");
    CHECK(match_gpu(specs, {"", "9.0", 114, std::nullopt}, "", "f").spec->id == "h100-pcie");
    CHECK(match_gpu(specs, {"", "8.0", 108, 1593.0}, "", "f").spec->id == "a100-sxm4-80gb");
    CHECK_THROWS_WITH_AS(
        match_gpu(specs, {"", "9.0", std::nullopt, std::nullopt}, "", "f"),
        doctest::Contains("fits several GPU specs (gh200-144gb, gh200-96gb, h100-pcie, h100-sxm, h200); pass --gpu"),
        input_error);
    // A name no spec lists, with a CC and SM count none has (a V100's), is refused by name.
    CHECK_THROWS_WITH_AS(match_gpu(specs, {"Mystery GPU", "7.0", 80, std::nullopt}, "", "cap.csv"),
                         doctest::Contains("cap.csv: no GPU spec matches \"Mystery GPU\" (CC 7.0, 80 SMs)"),
                         input_error);
    CHECK(match_gpu(specs, {"NVIDIA H100 80GB HBM3", "9.0", 132, 2619}, "h200", "f").spec->id == "h200");
    CHECK_THROWS_WITH_AS(match_gpu(specs, {}, "v100", "f"), doctest::Contains("--gpu v100 names no known GPU"),
                         input_error);
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
        CHECK(located_spec_error(j.dump()) ==
              std::string(("my.json: field \"" + field +
                           "\": must be a finite number above zero [docs/gpu-spec.schema.json#/properties/" +
                           field.substr(0, field.find('.')) + "]")
                              .c_str()));
    };
    refused([](auto& j) { j["peaks_tflops"]["fp32"]["at_clock_mhz"] = 0; }, "peaks_tflops.fp32.at_clock_mhz");
    refused([](auto& j) { j["boost_clock_mhz"]["value"] = -1980; }, "boost_clock_mhz.value");
    refused([](auto& j) { j["detect"]["dram_clock_mhz"] = 0; }, "detect.dram_clock_mhz");
    // JSON has no infinity; a literal past the double range reads as one.
    auto inf = text;
    const std::string from = "\"value\": 1980";
    REQUIRE(inf.find(from) != std::string::npos);
    inf.replace(inf.find(from), from.size(), "\"value\": 1e999");
    CHECK_THROWS_WITH_AS(parse_gpu_spec(inf, "my.json"), doctest::Contains("my.json: a number out of range"),
                         input_error);
}

TEST_CASE("tensor figures quoted at a lower clock than the CUDA-core ones carry that clock, and scale from it") {
    auto specs = load_gpu_specs();
    const gpu_spec& pcie = spec_named(specs, "h100-pcie");
    for (resource r : {resource::tensor_tf32, resource::tensor_fp16, resource::tensor_bf16, resource::tensor_fp8,
                       resource::tensor_int8}) {
        CAPTURE(name(r));
        CHECK(pcie.peaks_tflops.at(r).at_clock_mhz == 1620.0);
    }
    CHECK_FALSE(pcie.peaks_tflops.at(resource::tensor_fp64).at_clock_mhz.has_value());  // FP64 tensor holds at 1755 MHz
    CHECK_FALSE(pcie.peaks_tflops.at(resource::fp32).at_clock_mhz.has_value());
    CHECK(peak(pcie, resource::tensor_fp16) == 756);
    // 756 TFLOP/s is 114 SMs x 4096 FLOP/clk at 1620 MHz: at that clock the roof is the figure, and
    // at the CUDA-core clock (1755 MHz) it is 8% higher, not the figure itself.
    CHECK(*spec_peak_per_second(pcie, resource::tensor_fp16, 1620e6) == doctest::Approx(756e12));
    CHECK(*spec_peak_per_second(pcie, resource::tensor_fp16, 1755e6) == doctest::Approx(756e12 * 1755 / 1620));
    CHECK(*spec_peak_per_second(pcie, resource::fp32, 1755e6) == doctest::Approx(51e12));

    const gpu_spec& b200 = spec_named(specs, "b200");
    for (resource r : {resource::tensor_tf32, resource::tensor_fp16, resource::tensor_bf16, resource::tensor_fp8,
                       resource::tensor_int8, resource::tensor_fp4}) {
        CAPTURE(name(r));
        CHECK(b200.peaks_tflops.at(r).at_clock_mhz == 1856.0);
    }
    CHECK_FALSE(b200.peaks_tflops.at(resource::tensor_fp64).at_clock_mhz.has_value());
    CHECK(*spec_peak_per_second(b200, resource::tensor_fp16, 1856e6) == doctest::Approx(2250e12));
    // The GH200s carry the H100 SXM5's figures and tensor clock.
    for (const char* id : {"gh200-96gb", "gh200-144gb"}) {
        CAPTURE(id);
        CHECK(peak(spec_named(specs, id), resource::tensor_fp16) ==
              peak(spec_named(specs, "h100-sxm"), resource::tensor_fp16));
        CHECK(spec_named(specs, id).peaks_tflops.at(resource::tensor_fp16).at_clock_mhz == 1830.0);
    }
    CHECK(spec_named(specs, "gh200-96gb").dram_bandwidth_tbs.value == 4.0);
    CHECK(spec_named(specs, "gh200-144gb").dram_bandwidth_tbs.value == 4.9);
}

TEST_CASE("the A100s carry BF16's CUDA-core rate beside FP16's; GeForce parts their FP16-accumulate tensor rates") {
    auto specs = load_gpu_specs();
    for (const char* id : {"a100-sxm4-80gb", "a100-sxm4-40gb", "a100-pcie-80gb"}) {
        CAPTURE(id);
        const gpu_spec& s = spec_named(specs, id);
        CHECK(peak(s, resource::fp16) == 78);
        REQUIRE(s.fp16_bf16.has_value());
        CHECK(s.fp16_bf16->value == 39);
    }
    CHECK(spec_named(specs, "a100-sxm4-40gb").dram_bandwidth_tbs.value == 1.555);
    CHECK(spec_named(specs, "a100-pcie-80gb").dram_bandwidth_tbs.value == 1.935);
    CHECK_FALSE(spec_named(specs, "h100-sxm").fp16_bf16.has_value());  // Hopper runs BF16 at the FP16 rate

    const gpu_spec& g5 = spec_named(specs, "rtx-5090");
    CHECK(peak(g5, resource::fp16) == 104.8);
    CHECK(peak(g5, resource::tensor_tf32) == 104.8);
    CHECK(peak(g5, resource::tensor_int8) == 838);
    CHECK(peak(g5, resource::tensor_fp16) == 209.5);
    CHECK(g5.fp16_accumulate.at(resource::tensor_fp16).value == 419);
    CHECK(peak(g5, resource::tensor_fp8) == 419);
    CHECK(g5.fp16_accumulate.at(resource::tensor_fp8).value == 838);
    CHECK(g5.fp16_accumulate.count(resource::tensor_bf16) == 0);  // BF16 accumulates in FP32 only

    const gpu_spec& g4 = spec_named(specs, "rtx-4090");
    CHECK(peak(g4, resource::tensor_fp16) == 165.2);
    CHECK(g4.fp16_accumulate.at(resource::tensor_fp16).value == 330.3);
    // Data-center parts run both accumulate types at one rate: no second figure.
    for (const char* id : {"l4", "l40s", "a100-sxm4-80gb", "h100-sxm", "t4"}) {
        CAPTURE(id);
        CHECK(spec_named(specs, id).fp16_accumulate.empty());
    }
    // Dense figures: the datasheets' sparse figures halved.
    CHECK(peak(spec_named(specs, "l4"), resource::tensor_fp16) == 121);
    CHECK(peak(spec_named(specs, "l40s"), resource::tensor_fp8) == 733);
    CHECK(peak(spec_named(specs, "a10g"), resource::tensor_bf16) == 70);
    CHECK(peak(spec_named(specs, "t4"), resource::tensor_fp16) == 65);
}

TEST_CASE("a second rate is refused where it means nothing") {
    auto j = nlohmann::json::parse(roofline::test::read_text(roofline::test::source_path("hwspecs/rtx-5090.json")));
    CHECK_NOTHROW(parse_gpu_spec(j.dump(), "my.json"));
    auto bad = j;
    bad["peaks_tflops"]["fp32"]["fp16_accumulate"] = {{"value", 1}, {"source", "x"}};
    CHECK(located_spec_error(bad.dump()) ==
          std::string("my.json: field \"peaks_tflops.fp32.fp16_accumulate\": only a tensor precision has an "
                      "accumulate type [docs/gpu-spec.schema.json#/properties/peaks_tflops]"));
    bad = j;
    bad["peaks_tflops"]["tensor_bf16"]["bf16"] = {{"value", 1}, {"source", "x"}};
    CHECK(located_spec_error(bad.dump()) ==
          std::string("my.json: field \"peaks_tflops.tensor_bf16.bf16\": only fp16 (half-precision CUDA-core work) "
                      "has a BF16 rate [docs/gpu-spec.schema.json#/properties/peaks_tflops]"));
    bad = j;
    bad["peaks_tflops"]["tensor_fp16"]["fp16_accumulate"]["value"] = nullptr;
    CHECK(located_spec_error(bad.dump()).find("peaks_tflops.tensor_fp16.fp16_accumulate.value\": required") !=
          std::string::npos);
}

TEST_CASE(
    "every GPU has a practical share for every roof the H100 measured: its own, or the H100 SXM's as a marked "
    "default") {
    auto specs = load_gpu_specs();
    const gpu_spec& h100 = spec_named(specs, "h100-sxm");
    // The defaults are the H100 SXM's measured shares: recalibrating the H100 without updating the
    // table in models/roofline_model.cpp fails here.
    const gpu_spec& l4 = spec_named(specs, "l4");
    REQUIRE(l4.practical_fraction.empty());
    for (const auto& [r, n] : h100.practical_fraction) {
        CAPTURE(name(r));
        auto p = practical_share_of(l4, r);
        CHECK(p.is_default);
        CHECK(p.share == *n.value);
        CHECK(p.origin == practical_origin::default_share);
        const std::string why = practical_source_text(r, p);
        CHECK(why.find("default") == 0);
        CHECK(why.find("H100 SXM") != std::string::npos);
    }
    // A tensor precision the H100 did not measure takes the mean of the default tensor shares.
    auto fp8 = practical_share_of(l4, resource::tensor_fp8);
    CHECK(fp8.is_default);
    CHECK(fp8.share == doctest::Approx((0.832 + 0.903 + 0.882) / 3));
    CHECK(fp8.origin == practical_origin::default_tensor_mean);
    // On a GPU that measured some tensor precisions, an unmeasured one takes their mean, and says which.
    auto h100_fp8 = practical_share_of(h100, resource::tensor_fp8);
    REQUIRE(h100_fp8.origin == practical_origin::tensor_mean);
    CHECK_FALSE(h100_fp8.is_default);
    CHECK(practical_source_text(resource::tensor_fp8, h100_fp8).find("none measured for tensor_fp8; the mean of") == 0);
    // Roofs measured nowhere stay at the raw peak, and are no default.
    CHECK_FALSE(practical_share_of(l4, resource::l1).is_default);
    CHECK(practical_share_of(l4, resource::l1).share == 1.0);
    for (const auto& s : specs) {
        CAPTURE(s.id);
        const auto defaults = default_practical_resources(s);
        const bool measured = s.id == "h100-sxm" || s.id == "h200";
        CHECK(defaults.empty() == measured);
        if (!measured) CHECK(std::find(defaults.begin(), defaults.end(), resource::dram) != defaults.end());
        for (resource r : {resource::dram, resource::l2, resource::fp32, resource::tensor_bf16})
            CHECK(practical_share_of(s, r).share < 1.0);  // measured or default, never the raw peak
    }
    // A GPU's own measurement wins over the default.
    CHECK_FALSE(practical_share_of(spec_named(specs, "h200"), resource::dram).is_default);
    CHECK(practical_share_of(spec_named(specs, "h200"), resource::dram).share == 0.85);
}

TEST_CASE("a spec error names the line and column of the value that is wrong, from the parser") {
    // The shipped file as written (one field a line): its dram_bandwidth_tbs value made text.
    const auto text = roofline::test::read_text(roofline::test::source_path("hwspecs/h100-sxm.json"));
    const auto key = text.find("\"dram_bandwidth_tbs\"");
    REQUIRE(key != std::string::npos);
    const auto value = text.find("\"value\": ", key) + 9;
    const auto end = text.find_first_of(",}\n", value);
    const std::string bad = text.substr(0, value) + "\"fast\"" + text.substr(end);
    try {
        (void)parse_gpu_spec(bad, "h100.json");
        FAIL("the spec loaded");
    } catch (const input_error& e) {
        CHECK(e.line() == std::size_t(std::count(bad.begin(), bad.begin() + long(value), '\n') + 1));
        // The string's first character, past its opening quote (as a rule file's expressions are located).
        CHECK(e.column() == value - bad.rfind('\n', value) + 1);
        CHECK(e.detail().find("dram_bandwidth_tbs.value") != std::string::npos);
    }
}
