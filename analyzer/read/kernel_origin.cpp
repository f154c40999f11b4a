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
// no_mma: the kernel's kind runs no tensor-core instruction at all (ATen's own elementwise, reduction, norm and
// copy kernels: 103 of them on the raw pages of examples/, none with MMA work).
constexpr std::array<const char*, 9> math_values = {"fp32_simt",   "fp64_simt",   "tf32_tensor",
                                                    "bf16_tensor", "fp16_tensor", "int8_tensor",
                                                    "fp8_tensor",  "fp64_tensor", "no_mma"};
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

std::string text_field(const json& object, const char* key, const std::string& file, const std::string& where) {
    if (!object.contains(key) || !object[key].is_string() || object[key].get<std::string>().empty())
        fail(file, where + ": \"" + key + "\": expected a non-empty string");
    return object[key].get<std::string>();
}

std::regex compile(const std::string& text, const std::string& file, const std::string& where) {
    try {
        return std::regex(text, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& error) {
        fail(file, where + ": not a regular expression: \"" + text + "\" (" + error.what() + ")");
    }
}

std::vector<pattern> parse_patterns(const std::string& text, const std::string& file) {
    const json doc = parse_json_file<json>(text, file, error_code::bad_rule);
    if (!doc.is_object() || !doc.contains("origins") || !doc["origins"].is_array())
        fail(file, "expected an object with a list \"origins\"");
    std::vector<pattern> out;
    for (const json& origin : doc["origins"]) {
        pattern parsed;
        parsed.id = text_field(origin, "id", file, "an origin");
        const std::string where = "origin \"" + parsed.id + "\"";
        const auto kind = origin_kind_named(text_field(origin, "kind", file, where));
        if (!kind)
            fail(file, where +
                           ": \"kind\": not one of user, cutlass, cublas, cudnn, attention, triton, aten, cub, nccl, "
                           "cupy, library");
        parsed.kind = *kind;
        parsed.library = text_field(origin, "library", file, where);
        if (!origin.contains("contains") || !origin["contains"].is_array() || origin["contains"].empty())
            fail(file, where + ": \"contains\": expected a non-empty list of texts");
        for (const json& contained : origin["contains"]) {
            if (!contained.is_string() || contained.get<std::string>().empty())
                fail(file, where + ": \"contains\": expected texts");
            parsed.contains.push_back(contained.get<std::string>());
        }
        parsed.match = compile(text_field(origin, "match", file, where), file, where + " match");
        if (origin.contains("facts")) {
            if (!origin["facts"].is_array()) fail(file, where + ": \"facts\": expected a list");
            for (const json& fact_entry : origin["facts"]) {
                const std::string fact = text_field(fact_entry, "fact", file, where + " fact");
                auto named = std::find_if(fact_names.begin(), fact_names.end(),
                                          [&](const auto& known) { return fact == known.second; });
                if (named == fact_names.end()) fail(file, where + ": unknown fact \"" + fact + "\"");
                fact_reader reader{named->first,
                                   compile(text_field(fact_entry, "regex", file, where + " fact"), file, where), ""};
                if (fact_entry.contains("value")) reader.value = text_field(fact_entry, "value", file, where + " fact");
                if (reader.field == fact_field::math &&
                    std::find(math_values.begin(), math_values.end(), reader.value) == math_values.end())
                    fail(file, where + ": math: \"" + reader.value +
                                   "\" is not one of fp32_simt, fp64_simt, tf32_tensor, "
                                   "bf16_tensor, fp16_tensor, int8_tensor, fp8_tensor, fp64_tensor, no_mma");
                if (reader.field == fact_field::mma_path &&
                    std::find(mma_path_values.begin(), mma_path_values.end(), reader.value) == mma_path_values.end())
                    fail(file, where + ": mma_path: \"" + reader.value + "\" is not one of wgmma, mma_sync");
                parsed.facts.push_back(std::move(reader));
            }
        }
        if (origin.contains("levers")) {
            if (!origin["levers"].is_array()) fail(file, where + ": \"levers\": expected a list of texts");
            for (const json& lever : origin["levers"]) {
                if (!lever.is_string() || lever.get<std::string>().empty())
                    fail(file, where + ": \"levers\": expected texts");
                parsed.levers.push_back(lever.get<std::string>());
            }
        }
        if (!source_owned(parsed.kind) && parsed.levers.empty())
            fail(file, where + ": \"levers\": a library's origin needs what its caller can change");
        out.push_back(std::move(parsed));
    }
    return out;
}

const std::vector<pattern>& patterns() {
    static const std::vector<pattern> all = [] {
        std::vector<pattern> loaded;
        for (const auto& origin_file : embedded_origins()) {
            auto more = parse_patterns(origin_file.contents, origin_file.name);
            loaded.insert(loaded.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        }
        return loaded;
    }();
    return all;
}

int number_of(const std::string& text) {
    int number = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), number);
    return result.ec == std::errc() ? number : 0;
}

// The text a fact reader gives on a match: its fixed value, or the first group that matched.
std::string captured(const std::smatch& match, const fact_reader& reader) {
    if (!reader.value.empty()) return reader.value;
    for (std::size_t i = 1; i < match.size(); ++i)
        if (match[i].matched && match[i].length() > 0) return match[i].str();
    return match.str();
}

void read_facts(const pattern& matched, const std::string& name, origin_facts& out) {
    std::vector<fact_field> done;
    for (const auto& reader : matched.facts) {
        if (std::find(done.begin(), done.end(), reader.field) != done.end()) continue;
        if (reader.field == fact_field::alignment) {  // the smallest operand alignment the name states
            int smallest = 0;
            for (auto it = std::sregex_iterator(name.begin(), name.end(), reader.expression);
                 it != std::sregex_iterator(); ++it) {
                const int alignment = number_of(captured(*it, reader));
                if (alignment > 0 && (smallest == 0 || alignment < smallest)) smallest = alignment;
            }
            if (smallest > 0) {
                out.alignment = smallest;
                done.push_back(reader.field);
            }
            continue;
        }
        std::smatch match;
        if (!std::regex_search(name, match, reader.expression)) continue;
        const std::string value = captured(match, reader);
        done.push_back(reader.field);
        switch (reader.field) {
            case fact_field::built_for_sm:
                out.built_for_sm = number_of(value);
                break;
            case fact_field::vector_width:
                out.vector_width = number_of(value);
                break;
            case fact_field::split_k:
                out.split_k = true;
                break;
            case fact_field::tile:
                out.tile = value;
                break;
            case fact_field::math:
                out.math = value;
                break;
            case fact_field::mma_path:
                out.mma_path = value;
                break;
            case fact_field::path:
                out.path = value;
                break;
            case fact_field::fused_ops:
                out.fused_ops = value;
                break;
            case fact_field::alignment:
                break;
        }
    }
}

}  // namespace

const char* name(origin_kind kind) {
    for (const auto& words : kind_names)
        if (words.kind == kind) return words.name;
    return "user";
}

const char* label(origin_kind kind) {
    for (const auto& words : kind_names)
        if (words.kind == kind) return words.label;
    return "user";
}

std::optional<origin_kind> origin_kind_named(std::string_view text) {
    for (const auto& words : kind_names)
        if (text == words.name) return words.kind;
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
    for (const auto& listed : patterns()) {
        const bool candidate =
            std::any_of(listed.contains.begin(), listed.contains.end(),
                        [&](const std::string& part) { return name.find(part) != std::string::npos; });
        if (!candidate || !std::regex_search(name, listed.match)) continue;
        out.kind = listed.kind;
        out.pattern = listed.id;
        out.library = listed.library;
        read_facts(listed, name, out.facts);
        break;
    }
    return out;
}

const std::vector<std::string>& origin_levers(std::string_view pattern_id) {
    static const std::vector<std::string> none;
    for (const auto& listed : patterns())
        if (listed.id == pattern_id) return listed.levers;
    return none;
}

void check_origin_patterns(const std::string& json_text, const std::string& file) { parse_patterns(json_text, file); }

}  // namespace roofline
