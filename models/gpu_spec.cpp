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

const json& member(const json& j, const std::string& key, const std::string& file, const std::string& path) {
    if (!j.is_object() || !j.contains(key)) fail(file, path.empty() ? key : path + "." + key, "missing", &j);
    return j.at(key);
}

std::string text(const json& j, const std::string& key, const std::string& file, const std::string& path = "") {
    const json& v = member(j, key, file, path);
    if (!v.is_string() || v.get<std::string>().empty())
        fail(file, path.empty() ? key : path + "." + key, "expected a non-empty string", &v);
    return v.get<std::string>();
}

// A figure a roof is built from: a number, finite and above zero (a zero clock would make every
// peak scaled from it infinite).
double positive(const json& v, const std::string& file, const std::string& where) {
    if (!v.is_number()) fail(file, where, "expected a number", &v);
    const double x = v.get<double>();
    if (!std::isfinite(x) || x <= 0) fail(file, where, "must be a finite number above zero", &v);
    return x;
}

sourced_number number(const json& j, const std::string& key, const std::string& file, const std::string& path = "") {
    std::string where = path.empty() ? key : path + "." + key;
    const json& v = member(j, key, file, path);
    if (!v.is_object()) fail(file, where, "expected {\"value\": number or null, \"source\": \"...\"}", &v);
    sourced_number out;
    const json& value = member(v, "value", file, where);
    if (value.is_number()) {
        out.value = positive(value, file, where + ".value");
    } else if (!value.is_null()) {
        fail(file, where + ".value", "expected a number or null", &value);
    }
    out.source = text(v, "source", file, where);
    if (v.contains("at_clock_mhz")) out.at_clock_mhz = positive(v["at_clock_mhz"], file, where + ".at_clock_mhz");
    if (v.contains("estimated")) {
        if (!v["estimated"].is_boolean()) fail(file, where + ".estimated", "expected true or false", &v["estimated"]);
        out.estimated = v["estimated"].get<bool>();
    }
    return out;
}

// An optional second rate inside a peak's object ("fp16_accumulate": {"value", "source"}).
std::optional<alternate_rate> alternate(const json& peak, const std::string& key, const std::string& file,
                                        const std::string& where) {
    if (!peak.is_object() || !peak.contains(key)) return std::nullopt;
    sourced_number n = number(peak, key, file, where);
    if (!n.value)
        fail(file, where + "." + key + ".value", "required (leave the field out where the rate is not published)",
             &peak.at(key).at("value"));
    return alternate_rate{*n.value, n.source};
}

required_number required(const json& j, const std::string& key, const std::string& file) {
    sourced_number n = number(j, key, file);
    if (!n.value) fail(file, key + ".value", "required", &j.at(key).at("value"));
    return {*n.value, n.source, n.estimated};
}

}  // namespace

gpu_spec parse_gpu_spec(const std::string& json_text, const std::string& file) {
    (void)parse_json_file<json>(json_text, file, error_code::bad_spec);  // a syntax error, with its position
    json j;
    const value_positions positions(json_text, j);
    struct parsing_this {
        explicit parsing_this(const value_positions& p) { parsing = &p; }
        ~parsing_this() { parsing = nullptr; }
    } in_progress(positions);
    gpu_spec s;
    s.file = file;
    s.id = text(j, "id", file);
    s.name = text(j, "name", file);
    s.compute_capability = text(j, "compute_capability", file);
    const json& detect = member(j, "detect", file, "");
    const json& names = member(detect, "device_names", file, "detect");
    if (!names.is_array() || names.empty())
        fail(file, "detect.device_names", "expected a non-empty list of device names", &names);
    for (const auto& n : names) {
        if (!n.is_string()) fail(file, "detect.device_names", "expected strings", &n);
        s.device_names.push_back(n.get<std::string>());
    }
    if (detect.contains("dram_clock_mhz"))
        s.detect_dram_clock_mhz = positive(detect["dram_clock_mhz"], file, "detect.dram_clock_mhz");
    s.sm_count = required(j, "sm_count", file);
    s.boost_clock_mhz = required(j, "boost_clock_mhz", file);
    const json& peaks = member(j, "peaks_tflops", file, "");
    for (resource p : precisions()) {
        s.peaks_tflops[p] = number(peaks, name(p), file, "peaks_tflops");
        const std::string where = std::string("peaks_tflops.") + name(p);
        if (auto a = alternate(peaks.at(name(p)), "fp16_accumulate", file, where)) {
            if (!info(p).tensor)
                fail(file, where + ".fp16_accumulate", "only a tensor precision has an accumulate type",
                     &peaks.at(name(p)).at("fp16_accumulate"));
            s.fp16_accumulate[p] = *a;
        }
        if (auto a = alternate(peaks.at(name(p)), "bf16", file, where)) {
            if (p != resource::fp16)
                fail(file, where + ".bf16", "only fp16 (half-precision CUDA-core work) has a BF16 rate",
                     &peaks.at(name(p)).at("bf16"));
            s.fp16_bf16 = *a;
        }
    }
    for (auto it = peaks.begin(); it != peaks.end(); ++it) {
        auto r = resource_named(it.key());
        if (!r || !info(*r).precision)
            fail(file, "peaks_tflops." + it.key(), "unknown precision (known: " + resource_names(true) + ")",
                 &it.value());
    }
    s.dram_bandwidth_tbs = required(j, "dram_bandwidth_tbs", file);
    s.l2_mib = number(j, "l2_mib", file);
    s.l1_bytes_per_clock_per_sm = number(j, "l1_bytes_per_clock_per_sm", file);
    s.l2_bytes_per_clock = number(j, "l2_bytes_per_clock", file);
    if (j.contains("practical_fraction")) {
        const json& pf = j["practical_fraction"];
        if (!pf.is_object())
            fail(file, "practical_fraction", "expected {\"dram\": {\"value\": 0.88, \"source\": \"...\"}, ...}", &pf);
        for (auto it = pf.begin(); it != pf.end(); ++it) {
            auto r = resource_named(it.key());
            if (!r)
                fail(file, "practical_fraction." + it.key(), "unknown resource (known: " + resource_names() + ")",
                     &it.value());
            sourced_number n = number(pf, it.key(), file, "practical_fraction");
            if (n.value && *n.value > 1.0)
                fail(file, "practical_fraction." + it.key() + ".value", "must be at most 1", &it.value().at("value"));
            s.practical_fraction[*r] = n;
        }
    }
    if (j.contains("min_kernel_ns")) s.min_kernel_ns = number(j, "min_kernel_ns", file);
    if (j.contains("same_line_atomic_cycles")) s.same_line_atomic_cycles = number(j, "same_line_atomic_cycles", file);
    if (j.contains("notes") && j["notes"].is_string()) s.notes = j["notes"].get<std::string>();
    return s;
}

std::vector<gpu_spec> load_gpu_specs(const std::string& extra_dir) {
    static const std::vector<gpu_spec> shipped = [] {  // parsed once per process
        std::vector<gpu_spec> s;
        for (const auto& f : embedded_hwspecs()) s.push_back(parse_gpu_spec(f.contents, f.name));
        return s;
    }();
    return with_overrides(shipped, extra_dir, "GPU spec files", parse_gpu_spec);
}

}  // namespace roofline

namespace roofline {
namespace {

std::string lowered(const std::string& s) {
    std::string out;
    for (char c : s) out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The words of a name, lower case: "NVIDIA GeForce RTX 4090" -> nvidia, geforce, rtx, 4090.
std::vector<std::string> words_of(const std::string& s) {
    std::vector<std::string> out(1);
    for (char c : s) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            out.back() += char(std::tolower(static_cast<unsigned char>(c)));
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
    for (const auto& s : specs) {
        if (lowered(s.id) == want) return s.id;
        if (words_in(part, words_of(s.name))) by_name.push_back(&s);
    }
    if (by_name.size() == 1) return by_name.front()->id;
    if (by_name.size() > 1) {
        std::string which;
        for (const auto* s : by_name) which += (which.empty() ? "" : ", ") + s->id;
        throw input_error(error_code::unknown_gpu, option, 0, 0,
                          "\"" + text + "\" names " + std::to_string(by_name.size()) + " GPUs (" + which +
                              "): give one of their ids");
    }
    std::vector<std::string> ids;
    std::string known;
    for (const auto& s : specs) ids.push_back(s.id), known += (known.empty() ? "" : ", ") + s.id;
    throw input_error(
        error_code::unknown_gpu, option, 0, 0,
        "\"" + text + "\" names no known GPU" + did_you_mean(lowered(text), ids) + " (known: " + known + ")");
}

}  // namespace roofline
