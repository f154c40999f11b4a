#include "analyzer/read/kernel_origin.hpp"

#include "analyzer/base/embedded.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/base/json_files.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <regex>

namespace roofline {
namespace {

// Each kind's name (rules/origins/*.json, the JSON report) and its one-word label (tables).
struct kind_words {
    origin_kind kind;
    const char *name, *label;
};
constexpr std::array<kind_words, 11> kind_names = {{
    {origin_kind::user, "user", "user"},
    {origin_kind::cutlass, "cutlass", "CUTLASS"},
    {origin_kind::cublas, "cublas", "cuBLAS"},
    {origin_kind::cudnn, "cudnn", "cuDNN"},
    {origin_kind::attention, "attention", "attention"},
    {origin_kind::triton, "triton", "Triton"},
    {origin_kind::aten, "aten", "ATen"},
    {origin_kind::cub, "cub", "CUB"},
    {origin_kind::nccl, "nccl", "NCCL"},
    {origin_kind::cupy, "cupy", "CuPy"},
    {origin_kind::library, "library", "library"},
}};

// The facts a pattern may read, each into one field of origin_facts.
enum class fact_field { built_for_sm, alignment, vector_width, split_k, tile, math, mma_path, path, fused_ops };
constexpr std::array<std::pair<fact_field, const char*>, 9> fact_names = {{
    {fact_field::built_for_sm, "built_for_sm"},
    {fact_field::alignment, "alignment"},
    {fact_field::vector_width, "vector_width"},
    {fact_field::split_k, "split_k"},
    {fact_field::tile, "tile"},
    {fact_field::math, "math"},
    {fact_field::mma_path, "mma_path"},
    {fact_field::path, "path"},
    {fact_field::fused_ops, "fused_ops"},
}};
// The values `math` may take: the rule facts (name_fp32_simt, ...) read them.
constexpr std::array<const char*, 8> math_values = {"fp32_simt",   "fp64_simt",   "tf32_tensor", "bf16_tensor",
                                                    "fp16_tensor", "int8_tensor", "fp8_tensor",  "fp64_tensor"};
// The values `mma_path` may take: the warp_specialised and tensor-floor facts read them.
constexpr std::array<const char*, 2> mma_path_values = {"wgmma", "mma_sync"};

struct fact_reader {
    fact_field field;
    std::regex expression;
    std::string value;  // "" takes the first group that matched
};

struct pattern {
    std::string id;
    origin_kind kind;
    std::string library;
    std::vector<std::string> contains;
    std::regex match;
    std::vector<fact_reader> facts;
    std::vector<std::string> levers;
};

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& file, const std::string& what) {
    throw input_error(error_code::bad_rule, file, 0, 0, what);
}

std::string text_field(const json& j, const char* key, const std::string& file, const std::string& where) {
    if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
        fail(file, where + ": \"" + key + "\": expected a non-empty string");
    return j[key].get<std::string>();
}

std::regex compile(const std::string& text, const std::string& file, const std::string& where) {
    try {
        return std::regex(text, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
        fail(file, where + ": not a regular expression: \"" + text + "\" (" + e.what() + ")");
    }
}

std::vector<pattern> parse_patterns(const std::string& text, const std::string& file) {
    const json doc = parse_json_file<json>(text, file, error_code::bad_rule);
    if (!doc.is_object() || !doc.contains("origins") || !doc["origins"].is_array())
        fail(file, "expected an object with a list \"origins\"");
    std::vector<pattern> out;
    for (const json& o : doc["origins"]) {
        pattern p;
        p.id = text_field(o, "id", file, "an origin");
        const std::string where = "origin \"" + p.id + "\"";
        const auto kind = origin_kind_named(text_field(o, "kind", file, where));
        if (!kind)
            fail(file, where +
                           ": \"kind\": not one of user, cutlass, cublas, cudnn, attention, triton, aten, cub, nccl, "
                           "cupy, library");
        p.kind = *kind;
        p.library = text_field(o, "library", file, where);
        if (!o.contains("contains") || !o["contains"].is_array() || o["contains"].empty())
            fail(file, where + ": \"contains\": expected a non-empty list of texts");
        for (const json& c : o["contains"]) {
            if (!c.is_string() || c.get<std::string>().empty()) fail(file, where + ": \"contains\": expected texts");
            p.contains.push_back(c.get<std::string>());
        }
        p.match = compile(text_field(o, "match", file, where), file, where + " match");
        if (o.contains("facts")) {
            if (!o["facts"].is_array()) fail(file, where + ": \"facts\": expected a list");
            for (const json& f : o["facts"]) {
                const std::string fact = text_field(f, "fact", file, where + " fact");
                auto named =
                    std::find_if(fact_names.begin(), fact_names.end(), [&](const auto& n) { return fact == n.second; });
                if (named == fact_names.end()) fail(file, where + ": unknown fact \"" + fact + "\"");
                fact_reader r{named->first, compile(text_field(f, "regex", file, where + " fact"), file, where), ""};
                if (f.contains("value")) r.value = text_field(f, "value", file, where + " fact");
                if (r.field == fact_field::math &&
                    std::find(math_values.begin(), math_values.end(), r.value) == math_values.end())
                    fail(file, where + ": math: \"" + r.value +
                                   "\" is not one of fp32_simt, fp64_simt, tf32_tensor, "
                                   "bf16_tensor, fp16_tensor, int8_tensor, fp8_tensor, fp64_tensor");
                if (r.field == fact_field::mma_path &&
                    std::find(mma_path_values.begin(), mma_path_values.end(), r.value) == mma_path_values.end())
                    fail(file, where + ": mma_path: \"" + r.value + "\" is not one of wgmma, mma_sync");
                p.facts.push_back(std::move(r));
            }
        }
        if (o.contains("levers")) {
            if (!o["levers"].is_array()) fail(file, where + ": \"levers\": expected a list of texts");
            for (const json& l : o["levers"]) {
                if (!l.is_string() || l.get<std::string>().empty()) fail(file, where + ": \"levers\": expected texts");
                p.levers.push_back(l.get<std::string>());
            }
        }
        if (!source_owned(p.kind) && p.levers.empty())
            fail(file, where + ": \"levers\": a library's origin needs what its caller can change");
        out.push_back(std::move(p));
    }
    return out;
}

const std::vector<pattern>& patterns() {
    static const std::vector<pattern> all = [] {
        std::vector<pattern> v;
        for (const auto& f : embedded_origins()) {
            auto more = parse_patterns(f.contents, f.name);
            v.insert(v.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        }
        return v;
    }();
    return all;
}

int number_of(const std::string& s) {
    int v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() ? v : 0;
}

// The text a fact reader gives on a match: its fixed value, or the first group that matched.
std::string captured(const std::smatch& m, const fact_reader& r) {
    if (!r.value.empty()) return r.value;
    for (std::size_t i = 1; i < m.size(); ++i)
        if (m[i].matched && m[i].length() > 0) return m[i].str();
    return m.str();
}

void read_facts(const pattern& p, const std::string& name, origin_facts& out) {
    std::vector<fact_field> done;
    for (const auto& r : p.facts) {
        if (std::find(done.begin(), done.end(), r.field) != done.end()) continue;
        if (r.field == fact_field::alignment) {  // the smallest operand alignment the name states
            int smallest = 0;
            for (auto it = std::sregex_iterator(name.begin(), name.end(), r.expression); it != std::sregex_iterator();
                 ++it) {
                const int a = number_of(captured(*it, r));
                if (a > 0 && (smallest == 0 || a < smallest)) smallest = a;
            }
            if (smallest > 0) {
                out.alignment = smallest;
                done.push_back(r.field);
            }
            continue;
        }
        std::smatch m;
        if (!std::regex_search(name, m, r.expression)) continue;
        const std::string v = captured(m, r);
        done.push_back(r.field);
        switch (r.field) {
            case fact_field::built_for_sm:
                out.built_for_sm = number_of(v);
                break;
            case fact_field::vector_width:
                out.vector_width = number_of(v);
                break;
            case fact_field::split_k:
                out.split_k = true;
                break;
            case fact_field::tile:
                out.tile = v;
                break;
            case fact_field::math:
                out.math = v;
                break;
            case fact_field::mma_path:
                out.mma_path = v;
                break;
            case fact_field::path:
                out.path = v;
                break;
            case fact_field::fused_ops:
                out.fused_ops = v;
                break;
            case fact_field::alignment:
                break;
        }
    }
}

}  // namespace

const char* name(origin_kind k) {
    for (const auto& w : kind_names)
        if (w.kind == k) return w.name;
    return "user";
}

const char* label(origin_kind k) {
    for (const auto& w : kind_names)
        if (w.kind == k) return w.label;
    return "user";
}

std::optional<origin_kind> origin_kind_named(std::string_view text) {
    for (const auto& w : kind_names)
        if (text == w.name) return w.kind;
    return std::nullopt;
}

std::optional<bool> wgmma_named(const origin_facts& facts) {
    if (facts.mma_path == "wgmma") return true;
    if (facts.mma_path == "mma_sync" || (facts.built_for_sm > 0 && facts.built_for_sm < 90)) return false;
    return std::nullopt;
}

kernel_origin classify_origin(std::string_view kernel_name) {
    kernel_origin out;
    // std::regex matches by recursion: a name of megabytes (a hostile or broken file) could exhaust the
    // stack. Real names are far shorter (the longest in examples/: 753 bytes; CuTe kernels a few KiB), so
    // a longer one is classified by its first 16 KiB.
    constexpr std::size_t longest = 16 * 1024;
    const std::string name(kernel_name.substr(0, longest));
    for (const auto& p : patterns()) {
        const bool candidate = std::any_of(p.contains.begin(), p.contains.end(),
                                           [&](const std::string& c) { return name.find(c) != std::string::npos; });
        if (!candidate || !std::regex_search(name, p.match)) continue;
        out.kind = p.kind;
        out.pattern = p.id;
        out.library = p.library;
        read_facts(p, name, out.facts);
        break;
    }
    return out;
}

const std::vector<std::string>& origin_levers(std::string_view pattern_id) {
    static const std::vector<std::string> none;
    for (const auto& p : patterns())
        if (p.id == pattern_id) return p.levers;
    return none;
}

void check_origin_patterns(const std::string& json_text, const std::string& file) { parse_patterns(json_text, file); }

}  // namespace roofline
