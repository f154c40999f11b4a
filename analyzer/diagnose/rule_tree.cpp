#include "analyzer/diagnose/rule_tree.hpp"

#include "analyzer/base/embedded.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/base/json_files.hpp"
#include "analyzer/base/json_positions.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace roofline::diagnose {

const char* name(fix_kind kind) {
    switch (kind) {
        case fix_kind::removes_waste:
            return "removes_waste";
        case fix_kind::moves_work:
            return "moves_work";
        case fix_kind::restructures:
            return "restructures";
        case fix_kind::adds_parallelism:
            return "adds_parallelism";
    }
    return "adds_parallelism";
}
namespace {

constexpr int max_tree_depth = 32;

using json = nlohmann::json;

class loader {
public:
    loader(std::string file, const value_positions& positions) : file_(std::move(file)), positions_(positions) {}

    rule_tree tree(const json& doc) {
        rule_tree loaded;
        loaded.file = file_;
        loaded.id = text(doc, "id", "tree");
        loaded.title = text(doc, "title", "tree");
        loaded.description =
            doc.contains("description") && doc["description"].is_string() ? doc["description"].get<std::string>() : "";
        if (doc.contains("precedence")) {
            if (!doc["precedence"].is_number_integer())
                fail("tree", "\"precedence\": expected a whole number (lowest is walked first)");
            loaded.precedence = doc["precedence"].get<int>();
        }
        if (!doc.contains("roots") || !doc["roots"].is_array() || doc["roots"].empty())
            fail("tree", "\"roots\": expected a non-empty list of nodes");
        for (const auto& root_json : doc["roots"]) loaded.roots.push_back(node(root_json));
        return loaded;
    }

private:
    [[noreturn]] void fail(const std::string& where, const std::string& what, std::size_t line = 0,
                           std::size_t column = 0) {
        throw input_error(error_code::bad_rule, file_, line, column,
                          where + ": " + what + " [" + schema_rule(where, what) + "]");
    }

    // The rule of docs/rule-tree.schema.json the error breaks: the part (the tree, a node, a fix, an
    // estimate, one of its changes) and the field the message names first ("estimate.changes.on").
    static std::string schema_rule(const std::string& where, const std::string& what) {
        std::string part = where == "tree"                                ? ""
                           : where.find(" estimate") != std::string::npos ? "estimate"
                           : where.find(" fix") != std::string::npos      ? "fix"
                                                                          : "node";
        std::string field;
        if (what.size() > 1 && what[0] == '"') field = what.substr(1, what.find('"', 1) - 1);
        if (field.rfind("estimate.changes", 0) == 0) {
            part = "change";
            field = field.size() > 17 ? field.substr(17) : "";
        } else if (field.rfind("estimate.", 0) == 0) {
            part = "estimate";
            field = field.substr(9);
        } else if (field.rfind("fixes.", 0) == 0) {
            part = "fix";
            field = field.substr(6);
        }
        static const std::set<std::string> properties = {
            "id",   "title",   "description", "precedence",      "roots",          "explain",
            "when", "finding", "estimate",    "evidence",        "fixes",          "children",
            "text", "why",     "fix",         "keeps_latency",   "changes",        "at_least",
            "on",   "scale",   "add_ns",      "removes_atomics", "removes_launch", "for"};
        if (!properties.count(field)) field.clear();
        return "docs/rule-tree.schema.json#" + (part.empty() ? std::string() : "/$defs/" + part) +
               (field.empty() ? std::string() : "/properties/" + field);
    }

    // A fix's "for": origin kinds (kernel_origin.hpp), "library" (every kind the user does not own) or "any".
    unsigned audience(const json& audience_json, const std::string& where) {
        if (!audience_json.is_array() || audience_json.empty())
            fail(where, "\"fixes.for\": expected a non-empty list of origin kinds");
        unsigned bits = 0;
        for (const auto& entry : audience_json) {
            const std::string kind_name = entry.is_string() ? entry.get<std::string>() : std::string();
            if (kind_name == "any") {
                bits = ~0u;
            } else if (kind_name == "library") {
                // origin_kind's values run from user to library (kernel_origin.hpp).
                for (unsigned origin_index = 0; origin_index <= static_cast<unsigned>(origin_kind::library);
                     ++origin_index)
                    if (!source_owned(static_cast<origin_kind>(origin_index)))
                        bits |= fix::bit(static_cast<origin_kind>(origin_index));
            } else if (auto kind = origin_kind_named(kind_name)) {
                bits |= fix::bit(*kind);
            } else {
                fail(where, "\"fixes.for\": \"" + kind_name +
                                "\" is not an origin kind (user, cutlass, cublas, cudnn, attention, triton, aten, cub, "
                                "nccl, cupy, library) nor \"any\"");
            }
        }
        return bits;
    }

    std::string text(const json& object, const char* key, const std::string& where) {
        if (!object.is_object() || !object.contains(key) || !object[key].is_string() ||
            object[key].get<std::string>().empty())
            fail(where, std::string("\"") + key + "\": expected a non-empty string");
        return object[key].get<std::string>();
    }

    // An expression as an error quotes it: whole up to 160 characters, else the 160 around the column
    // the error names (a 280 KB expression was echoed on one line before).
    static std::string quoted(const std::string& source, std::size_t column = 0) {
        constexpr std::size_t most = 160;
        if (source.size() <= most) return source;
        const std::size_t from = column > most / 2 ? std::min(column - most / 2, source.size() - most) : 0;
        return (from > 0 ? "..." : "") + source.substr(from, most) + (from + most < source.size() ? "..." : "") + " (" +
               std::to_string(source.size()) + " characters)";
    }

    // `at`: the JSON string the expression was read from (its position, for the error's line and column).
    expression expr(const std::string& source, const std::string& where, const char* field, value_type want,
                    const json& at) {
        auto [line, column] = positions_.of(at);
        try {
            expression parsed = expression::parse(source, fact_type);
            if (parsed.type() != want)
                fail(where,
                     std::string("\"") + field + "\": expected " +
                         (want == value_type::boolean ? "a true/false condition" : "a number") + ", \"" +
                         quoted(source) + "\" is " + (parsed.type() == value_type::boolean ? "true/false" : "a number"),
                     line, column);
            return parsed;
        } catch (const expression_error& error) {
            // Columns inside the expression count from 1; the file's column adds the string's start.
            fail(where,
                 std::string("\"") + field + "\" column " + std::to_string(error.column()) + ": " + error.what() +
                     " in \"" + quoted(source, error.column()) + "\"",
                 line, line ? column + error.column() - 1 : 0);
        }
    }

    estimate_spec estimate(const json& spec_json, const std::string& where) {
        if (!spec_json.is_object())
            fail(where, "\"estimate\": expected {\"why\": ..., \"changes\": [...], \"at_least\": ...}");
        estimate_spec spec;
        spec.why = text(spec_json, "why", where + " estimate");
        if (spec_json.contains("changes")) {
            if (!spec_json["changes"].is_array())
                fail(where, "\"estimate.changes\": expected a list of {\"on\": [...], \"scale\" or \"add_ns\": ...}");
            for (const auto& change_json : spec_json["changes"]) {
                work_change change;
                if (!change_json.is_object() || !change_json.contains("on") || !change_json["on"].is_array() ||
                    change_json["on"].empty())
                    fail(where, "\"estimate.changes\": each change needs \"on\", a non-empty list of resources");
                for (const auto& resource_json : change_json["on"]) {
                    const auto named =
                        resource_json.is_string() ? resource_named(resource_json.get<std::string>()) : std::nullopt;
                    if (!named) {
                        auto [line, column] = positions_.of(resource_json);
                        fail(where,
                             "\"estimate.changes.on\": " + resource_json.dump() +
                                 " is not a resource (known: fp64, fp32, ..., dram, l2, l1, issue, pipe_alu, ...)",
                             line, column);
                    }
                    change.on.push_back(*named);
                }
                const bool scale = change_json.contains("scale"), add = change_json.contains("add_ns");
                if (scale == add)
                    fail(where, "\"estimate.changes\": each change needs exactly one of \"scale\" and \"add_ns\"");
                change.add = add;
                change.amount = expr(text(change_json, add ? "add_ns" : "scale", where + " estimate"), where,
                                     add ? "estimate.changes.add_ns" : "estimate.changes.scale", value_type::number,
                                     change_json[add ? "add_ns" : "scale"]);
                spec.changes.push_back(std::move(change));
            }
        }
        if (spec_json.contains("at_least"))
            spec.at_least = expr(text(spec_json, "at_least", where + " estimate"), where, "estimate.at_least",
                                 value_type::number, spec_json["at_least"]);
        spec.kind = spec.changes.empty() ? fix_kind::adds_parallelism : fix_kind::moves_work;
        if (spec_json.contains("fix")) {
            const auto& fix_json = spec_json["fix"];
            const std::string given = fix_json.is_string() ? fix_json.get<std::string>() : fix_json.dump();
            bool known = false;
            for (fix_kind candidate :
                 {fix_kind::removes_waste, fix_kind::moves_work, fix_kind::restructures, fix_kind::adds_parallelism})
                if (given == name(candidate)) {
                    spec.kind = candidate;
                    known = true;
                }
            if (!known) {
                auto [line, column] = positions_.of(fix_json);
                fail(where,
                     "\"estimate.fix\": " + fix_json.dump() +
                         " is not a kind of fix (removes_waste, moves_work, restructures, adds_parallelism)",
                     line, column);
            }
        }
        // The older spelling of removes_waste.
        if (spec_json.contains("keeps_latency")) {
            if (!spec_json["keeps_latency"].is_boolean())
                fail(where, "\"estimate.keeps_latency\": expected true or false");
            if (spec_json["keeps_latency"].get<bool>()) spec.kind = fix_kind::removes_waste;
        }
        if ((spec.kind == fix_kind::removes_waste || spec.kind == fix_kind::moves_work) && spec.changes.empty())
            fail(where, std::string("\"estimate.fix\": ") + name(spec.kind) +
                            " needs \"changes\": the work it removes or moves");
        if (spec_json.contains("removes_atomics")) {
            if (!spec_json["removes_atomics"].is_boolean())
                fail(where, "\"estimate.removes_atomics\": expected true or false");
            spec.removes_atomics = spec_json["removes_atomics"].get<bool>();
        }
        if (spec_json.contains("removes_launch")) {
            if (!spec_json["removes_launch"].is_boolean())
                fail(where, "\"estimate.removes_launch\": expected true or false");
            spec.removes_launch = spec_json["removes_launch"].get<bool>();
        }
        return spec;
    }

    // depth: of this node under its tree's root. A diagnosis tree asks a handful of questions in a
    // row (the shipped ones 4); a bound keeps every walk over a tree off the end of the stack.
    rule_node node(const json& node_json, int depth = 0) {
        if (!node_json.is_object()) fail("tree", "a node must be an object");
        if (depth > max_tree_depth)
            fail("tree", "nodes nested more than " + std::to_string(max_tree_depth) + " deep under the root");
        rule_node parsed;
        parsed.id = text(node_json, "id", "a node");
        const std::string where = "node \"" + parsed.id + "\"";
        if (!ids_.insert(parsed.id).second) fail(where, "the id is used twice");
        parsed.title = text(node_json, "title", where);
        parsed.explain = text(node_json, "explain", where);
        parsed.when = expr(text(node_json, "when", where), where, "when", value_type::boolean, node_json["when"]);
        if (node_json.contains("finding")) parsed.finding = text(node_json, "finding", where);
        if (node_json.contains("fixed_time"))
            fail(where,
                 "\"fixed_time\" is no longer read: write \"estimate\": {\"why\", \"changes\", \"at_least\"} "
                 "(rules/README.md)");
        if (node_json.contains("estimate")) {
            if (parsed.finding.empty()) fail(where, "\"estimate\" needs a \"finding\" to estimate");
            parsed.estimate = estimate(node_json["estimate"], where);
        }
        if (node_json.contains("evidence")) {
            if (!node_json["evidence"].is_array()) fail(where, "\"evidence\": expected a list of expressions");
            for (const auto& evidence_json : node_json["evidence"]) {
                if (!evidence_json.is_string()) fail(where, "\"evidence\": expected expressions as strings");
                parsed.evidence.push_back(
                    expr(evidence_json.get<std::string>(), where, "evidence", value_type::number, evidence_json));
            }
        }
        if (node_json.contains("fixes")) {
            if (!node_json["fixes"].is_array()) fail(where, "\"fixes\": expected a list");
            for (const auto& fix_json : node_json["fixes"]) {
                fix parsed_fix;
                parsed_fix.text = text(fix_json, "text", where + " fix");
                if (fix_json.contains("when"))
                    parsed_fix.when = expr(text(fix_json, "when", where + " fix"), where, "fixes.when",
                                           value_type::boolean, fix_json["when"]);
                if (fix_json.contains("for")) parsed_fix.origins = audience(fix_json["for"], where);
                parsed.fixes.push_back(std::move(parsed_fix));
            }
        }
        if (node_json.contains("children")) {
            if (!node_json["children"].is_array()) fail(where, "\"children\": expected a list of nodes");
            for (const auto& child_json : node_json["children"]) parsed.children.push_back(node(child_json, depth + 1));
        }
        return parsed;
    }

    std::string file_;
    const value_positions& positions_;
    std::set<std::string> ids_;
};

}  // namespace

rule_tree parse_rule_tree(const std::string& json_text, const std::string& file) {
    (void)parse_json_file<json>(json_text, file, error_code::bad_rule);  // a syntax error, with its position
    json doc;
    const value_positions positions(json_text, doc);
    return loader(file, positions).tree(doc);
}

std::vector<rule_tree> load_rule_trees(const std::string& extra_dir) {
    // The shipped trees are parsed once per process; copies share their parsed expressions.
    static const std::vector<rule_tree> shipped = [] {
        std::vector<rule_tree> parsed;
        for (const auto& rule_file : embedded_rules())
            parsed.push_back(parse_rule_tree(rule_file.contents, rule_file.name));
        return parsed;
    }();
    std::vector<rule_tree> trees = with_overrides(shipped, extra_dir, "rule trees", parse_rule_tree);
    std::stable_sort(trees.begin(), trees.end(), [](const rule_tree& left, const rule_tree& right) {
        return left.precedence != right.precedence ? left.precedence < right.precedence : left.id < right.id;
    });
    return trees;
}

}  // namespace roofline::diagnose
