#include "models/gpu_spec.hpp"

#include "analyzer/base/did_you_mean.hpp"
#include "analyzer/base/embedded.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/base/json_positions.hpp"
#include "analyzer/base/json_files.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace roofline {

namespace {

using json = nlohmann::json;

// Where the values of the file being parsed start (parse_gpu_spec sets it for the parse): each error
// names the line and column of the value that is wrong, or of the object that lacks a field.
thread_local const value_positions* parsing = nullptr;

// The error names the field and the rule of docs/gpu-spec.schema.json it breaks (the field's top-level
// property; a peak's or a figure's own fields are in the schema's $defs), at the value `at` names.
[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& what,
                       const json* at = nullptr) {
    const auto [line, column] = parsing && at ? parsing->of(*at) : std::pair<std::size_t, std::size_t>{0, 0};
    throw input_error(error_code::bad_spec, file, line, column,
                      "field \"" + field + "\": " + what + " [docs/gpu-spec.schema.json#/properties/" +
                          field.substr(0, field.find('.')) + "]");
}

const json& member(const json& parent, const std::string& key, const std::string& file, const std::string& path) {
    if (!parent.is_object() || !parent.contains(key))
        fail(file, path.empty() ? key : path + "." + key, "missing", &parent);
    return parent.at(key);
}

std::string text(const json& parent, const std::string& key, const std::string& file, const std::string& path = "") {
    const json& value = member(parent, key, file, path);
    if (!value.is_string() || value.get<std::string>().empty())
        fail(file, path.empty() ? key : path + "." + key, "expected a non-empty string", &value);
    return value.get<std::string>();
}

// A figure a roof is built from: a number, finite and above zero (a zero clock would make every
// peak scaled from it infinite).
double positive(const json& value, const std::string& file, const std::string& where) {
    if (!value.is_number()) fail(file, where, "expected a number", &value);
    const double figure = value.get<double>();
    if (!std::isfinite(figure) || figure <= 0) fail(file, where, "must be a finite number above zero", &value);
    return figure;
}

sourced_number number(const json& parent, const std::string& key, const std::string& file,
                      const std::string& path = "") {
    std::string where = path.empty() ? key : path + "." + key;
    const json& entry = member(parent, key, file, path);
    if (!entry.is_object()) fail(file, where, "expected {\"value\": number or null, \"source\": \"...\"}", &entry);
    sourced_number out;
    const json& value = member(entry, "value", file, where);
    if (value.is_number()) {
        out.value = positive(value, file, where + ".value");
    } else if (!value.is_null()) {
        fail(file, where + ".value", "expected a number or null", &value);
    }
    out.source = text(entry, "source", file, where);
    if (entry.contains("at_clock_mhz"))
        out.at_clock_mhz = positive(entry["at_clock_mhz"], file, where + ".at_clock_mhz");
    if (entry.contains("estimated")) {
        if (!entry["estimated"].is_boolean())
            fail(file, where + ".estimated", "expected true or false", &entry["estimated"]);
        out.estimated = entry["estimated"].get<bool>();
    }
    return out;
}

// An optional second rate inside a peak's object ("fp16_accumulate": {"value", "source"}).
std::optional<alternate_rate> alternate(const json& peak, const std::string& key, const std::string& file,
                                        const std::string& where) {
    if (!peak.is_object() || !peak.contains(key)) return std::nullopt;
    sourced_number rate = number(peak, key, file, where);
    if (!rate.value)
        fail(file, where + "." + key + ".value", "required (leave the field out where the rate is not published)",
             &peak.at(key).at("value"));
    return alternate_rate{*rate.value, rate.source};
}

required_number required(const json& parent, const std::string& key, const std::string& file) {
    sourced_number figure = number(parent, key, file);
    if (!figure.value) fail(file, key + ".value", "required", &parent.at(key).at("value"));
    return {*figure.value, figure.source, figure.estimated};
}

}  // namespace

gpu_spec parse_gpu_spec(const std::string& json_text, const std::string& file) {
    (void)parse_json_file<json>(json_text, file, error_code::bad_spec);  // a syntax error, with its position
    json doc;
    const value_positions positions(json_text, doc);
    struct parsing_this {
        explicit parsing_this(const value_positions& current) { parsing = &current; }
        ~parsing_this() { parsing = nullptr; }
    } in_progress(positions);
    gpu_spec spec;
    spec.file = file;
    spec.id = text(doc, "id", file);
    spec.name = text(doc, "name", file);
    spec.compute_capability = text(doc, "compute_capability", file);
    const json& detect = member(doc, "detect", file, "");
    const json& names = member(detect, "device_names", file, "detect");
    if (!names.is_array() || names.empty())
        fail(file, "detect.device_names", "expected a non-empty list of device names", &names);
    for (const auto& device_name : names) {
        if (!device_name.is_string()) fail(file, "detect.device_names", "expected strings", &device_name);
        spec.device_names.push_back(device_name.get<std::string>());
    }
    if (detect.contains("dram_clock_mhz"))
        spec.detect_dram_clock_mhz = positive(detect["dram_clock_mhz"], file, "detect.dram_clock_mhz");
    spec.sm_count = required(doc, "sm_count", file);
    spec.boost_clock_mhz = required(doc, "boost_clock_mhz", file);
    const json& peaks = member(doc, "peaks_tflops", file, "");
    for (resource precision : precisions()) {
        spec.peaks_tflops[precision] = number(peaks, name(precision), file, "peaks_tflops");
        const std::string where = std::string("peaks_tflops.") + name(precision);
        if (auto rate = alternate(peaks.at(name(precision)), "fp16_accumulate", file, where)) {
            if (!info(precision).tensor)
                fail(file, where + ".fp16_accumulate", "only a tensor precision has an accumulate type",
                     &peaks.at(name(precision)).at("fp16_accumulate"));
            spec.fp16_accumulate[precision] = *rate;
        }
        if (auto rate = alternate(peaks.at(name(precision)), "bf16", file, where)) {
            if (precision != resource::fp16)
                fail(file, where + ".bf16", "only fp16 (half-precision CUDA-core work) has a BF16 rate",
                     &peaks.at(name(precision)).at("bf16"));
            spec.fp16_bf16 = *rate;
        }
    }
    for (auto it = peaks.begin(); it != peaks.end(); ++it) {
        auto named = resource_named(it.key());
        if (!named || !info(*named).precision)
            fail(file, "peaks_tflops." + it.key(), "unknown precision (known: " + resource_names(true) + ")",
                 &it.value());
    }
    spec.dram_bandwidth_tbs = required(doc, "dram_bandwidth_tbs", file);
    spec.l2_mib = number(doc, "l2_mib", file);
    spec.l1_bytes_per_clock_per_sm = number(doc, "l1_bytes_per_clock_per_sm", file);
    spec.l2_bytes_per_clock = number(doc, "l2_bytes_per_clock", file);
    if (doc.contains("practical_fraction")) {
        const json& pf = doc["practical_fraction"];
        if (!pf.is_object())
            fail(file, "practical_fraction", "expected {\"dram\": {\"value\": 0.88, \"source\": \"...\"}, ...}", &pf);
        for (auto it = pf.begin(); it != pf.end(); ++it) {
            auto named = resource_named(it.key());
            if (!named)
                fail(file, "practical_fraction." + it.key(), "unknown resource (known: " + resource_names() + ")",
                     &it.value());
            sourced_number fraction = number(pf, it.key(), file, "practical_fraction");
            if (fraction.value && *fraction.value > 1.0)
                fail(file, "practical_fraction." + it.key() + ".value", "must be at most 1", &it.value().at("value"));
            spec.practical_fraction[*named] = fraction;
        }
    }
    if (doc.contains("min_kernel_ns")) spec.min_kernel_ns = number(doc, "min_kernel_ns", file);
    if (doc.contains("same_line_atomic_cycles"))
        spec.same_line_atomic_cycles = number(doc, "same_line_atomic_cycles", file);
    if (doc.contains("notes") && doc["notes"].is_string()) spec.notes = doc["notes"].get<std::string>();
    return spec;
}

std::vector<gpu_spec> load_gpu_specs(const std::string& extra_dir) {
    static const std::vector<gpu_spec> shipped = [] {  // parsed once per process
        std::vector<gpu_spec> specs;
        for (const auto& embedded : embedded_hwspecs())
            specs.push_back(parse_gpu_spec(embedded.contents, embedded.name));
        return specs;
    }();
    return with_overrides(shipped, extra_dir, "GPU spec files", parse_gpu_spec);
}

}  // namespace roofline

namespace roofline {
namespace {

std::string lowered(const std::string& original) {
    std::string out;
    for (char ch : original) out += char(std::tolower(static_cast<unsigned char>(ch)));
    return out;
}

// The words of a name, lower case: "NVIDIA GeForce RTX 4090" -> nvidia, geforce, rtx, 4090.
std::vector<std::string> words_of(const std::string& full_name) {
    std::vector<std::string> out(1);
    for (char ch : full_name) {
        if (std::isalnum(static_cast<unsigned char>(ch)))
            out.back() += char(std::tolower(static_cast<unsigned char>(ch)));
        else if (!out.back().empty())
            out.emplace_back();
    }
    if (out.back().empty()) out.pop_back();
    return out;
}

// Whether `part` is a run of whole words of `name` ("RTX 4090" of "NVIDIA GeForce RTX 4090"; "H20" is no word
// of "NVIDIA H200 SXM 141GB": the H20 is another GPU).
bool words_in(const std::vector<std::string>& part, const std::vector<std::string>& name) {
    if (part.empty() || part.size() > name.size()) return false;
    for (std::size_t i = 0; i + part.size() <= name.size(); ++i)
        if (std::equal(part.begin(), part.end(), name.begin() + std::ptrdiff_t(i))) return true;
    return false;
}

}  // namespace

std::string resolve_gpu(const std::vector<gpu_spec>& specs, const std::string& text, const std::string& option) {
    const std::string want = lowered(text);
    const auto part = words_of(text);
    std::vector<const gpu_spec*> by_name;
    for (const auto& spec : specs) {
        if (lowered(spec.id) == want) return spec.id;
        if (words_in(part, words_of(spec.name))) by_name.push_back(&spec);
    }
    if (by_name.size() == 1) return by_name.front()->id;
    if (by_name.size() > 1) {
        std::string which;
        for (const auto* spec : by_name) which += (which.empty() ? "" : ", ") + spec->id;
        throw input_error(error_code::unknown_gpu, option, 0, 0,
                          "\"" + text + "\" names " + std::to_string(by_name.size()) + " GPUs (" + which +
                              "): give one of their ids");
    }
    std::vector<std::string> ids;
    std::string known;
    for (const auto& spec : specs) ids.push_back(spec.id), known += (known.empty() ? "" : ", ") + spec.id;
    throw input_error(
        error_code::unknown_gpu, option, 0, 0,
        "\"" + text + "\" names no known GPU" + did_you_mean(lowered(text), ids) + " (known: " + known + ")");
}

}  // namespace roofline
