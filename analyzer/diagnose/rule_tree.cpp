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

const char* name(fix_kind k) {
    switch (k) {
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

    rule_tree tree(const json& j) {
        rule_tree t;
        t.file = file_;
        t.id = text(j, "id", "tree");
        t.title = text(j, "title", "tree");
        t.description =
            j.contains("description") && j["description"].is_string() ? j["description"].get<std::string>() : "";
        if (j.contains("precedence")) {
            if (!j["precedence"].is_number_integer())
                fail("tree", "\"precedence\": expected a whole number (lowest is walked first)");
            t.precedence = j["precedence"].get<int>();
        }
        if (!j.contains("roots") || !j["roots"].is_array() || j["roots"].empty())
            fail("tree", "\"roots\": expected a non-empty list of nodes");
        for (const auto& n : j["roots"]) t.roots.push_back(node(n));
        return t;
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
    unsigned audience(const json& j, const std::string& where) {
        if (!j.is_array() || j.empty()) fail(where, "\"fixes.for\": expected a non-empty list of origin kinds");
        unsigned bits = 0;
        for (const auto& e : j) {
            const std::string v = e.is_string() ? e.get<std::string>() : std::string();
            if (v == "any") {
                bits = ~0u;
            } else if (v == "library") {
                // origin_kind's values run from user to library (kernel_origin.hpp).
                for (unsigned k = 0; k <= static_cast<unsigned>(origin_kind::library); ++k)
                    if (!source_owned(static_cast<origin_kind>(k))) bits |= fix::bit(static_cast<origin_kind>(k));
            } else if (auto kind = origin_kind_named(v)) {
                bits |= fix::bit(*kind);
            } else {
                fail(where, "\"fixes.for\": \"" + v +
                                "\" is not an origin kind (user, cutlass, cublas, cudnn, attention, triton, aten, cub, "
                                "nccl, cupy, library) nor \"any\"");
            }
        }
        return bits;
    }

    std::string text(const json& j, const char* key, const std::string& where) {
        if (!j.is_object() || !j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
            fail(where, std::string("\"") + key + "\": expected a non-empty string");
        return j[key].get<std::string>();
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
            expression e = expression::parse(source, fact_type);
            if (e.type() != want)
                fail(where,
                     std::string("\"") + field + "\": expected " +
                         (want == value_type::boolean ? "a true/false condition" : "a number") + ", \"" +
                         quoted(source) + "\" is " + (e.type() == value_type::boolean ? "true/false" : "a number"),
                     line, column);
            return e;
        } catch (const expression_error& e) {
            // Columns inside the expression count from 1; the file's column adds the string's start.
            fail(where,
                 std::string("\"") + field + "\" column " + std::to_string(e.column()) + ": " + e.what() + " in \"" +
                     quoted(source, e.column()) + "\"",
                 line, line ? column + e.column() - 1 : 0);
        }
    }

    estimate_spec estimate(const json& j, const std::string& where) {
        if (!j.is_object()) fail(where, "\"estimate\": expected {\"why\": ..., \"changes\": [...], \"at_least\": ...}");
        estimate_spec e;
        e.why = text(j, "why", where + " estimate");
        if (j.contains("changes")) {
            if (!j["changes"].is_array())
                fail(where, "\"estimate.changes\": expected a list of {\"on\": [...], \"scale\" or \"add_ns\": ...}");
            for (const auto& c : j["changes"]) {
                work_change w;
                if (!c.is_object() || !c.contains("on") || !c["on"].is_array() || c["on"].empty())
                    fail(where, "\"estimate.changes\": each change needs \"on\", a non-empty list of resources");
                for (const auto& r : c["on"]) {
                    const auto named = r.is_string() ? resource_named(r.get<std::string>()) : std::nullopt;
                    if (!named) {
                        auto [line, column] = positions_.of(r);
                        fail(where,
                             "\"estimate.changes.on\": " + r.dump() +
                                 " is not a resource (known: fp64, fp32, ..., dram, l2, l1, issue, pipe_alu, ...)",
                             line, column);
                    }
                    w.on.push_back(*named);
                }
                const bool scale = c.contains("scale"), add = c.contains("add_ns");
                if (scale == add)
                    fail(where, "\"estimate.changes\": each change needs exactly one of \"scale\" and \"add_ns\"");
                w.add = add;
                w.amount = expr(text(c, add ? "add_ns" : "scale", where + " estimate"), where,
                                add ? "estimate.changes.add_ns" : "estimate.changes.scale", value_type::number,
                                c[add ? "add_ns" : "scale"]);
                e.changes.push_back(std::move(w));
            }
        }
        if (j.contains("at_least"))
            e.at_least = expr(text(j, "at_least", where + " estimate"), where, "estimate.at_least", value_type::number,
                              j["at_least"]);
        e.kind = e.changes.empty() ? fix_kind::adds_parallelism : fix_kind::moves_work;
        if (j.contains("fix")) {
            const auto& k = j["fix"];
            const std::string given = k.is_string() ? k.get<std::string>() : k.dump();
            bool known = false;
            for (fix_kind f :
                 {fix_kind::removes_waste, fix_kind::moves_work, fix_kind::restructures, fix_kind::adds_parallelism})
                if (given == name(f)) {
                    e.kind = f;
                    known = true;
                }
            if (!known) {
                auto [line, column] = positions_.of(k);
                fail(where,
                     "\"estimate.fix\": " + k.dump() +
                         " is not a kind of fix (removes_waste, moves_work, restructures, adds_parallelism)",
                     line, column);
            }
        }
        // The older spelling of removes_waste.
        if (j.contains("keeps_latency")) {
            if (!j["keeps_latency"].is_boolean()) fail(where, "\"estimate.keeps_latency\": expected true or false");
            if (j["keeps_latency"].get<bool>()) e.kind = fix_kind::removes_waste;
        }
        if ((e.kind == fix_kind::removes_waste || e.kind == fix_kind::moves_work) && e.changes.empty())
            fail(where,
                 std::string("\"estimate.fix\": ") + name(e.kind) + " needs \"changes\": the work it removes or moves");
        if (j.contains("removes_atomics")) {
            if (!j["removes_atomics"].is_boolean()) fail(where, "\"estimate.removes_atomics\": expected true or false");
            e.removes_atomics = j["removes_atomics"].get<bool>();
        }
        if (j.contains("removes_launch")) {
            if (!j["removes_launch"].is_boolean()) fail(where, "\"estimate.removes_launch\": expected true or false");
            e.removes_launch = j["removes_launch"].get<bool>();
        }
        return e;
    }

    // depth: of this node under its tree's root. A diagnosis tree asks a handful of questions in a
    // row (the shipped ones 4); a bound keeps every walk over a tree off the end of the stack.
    rule_node node(const json& j, int depth = 0) {
        if (!j.is_object()) fail("tree", "a node must be an object");
        if (depth > max_tree_depth)
            fail("tree", "nodes nested more than " + std::to_string(max_tree_depth) + " deep under the root");
        rule_node n;
        n.id = text(j, "id", "a node");
        const std::string where = "node \"" + n.id + "\"";
        if (!ids_.insert(n.id).second) fail(where, "the id is used twice");
        n.title = text(j, "title", where);
        n.explain = text(j, "explain", where);
        n.when = expr(text(j, "when", where), where, "when", value_type::boolean, j["when"]);
        if (j.contains("finding")) n.finding = text(j, "finding", where);
        if (j.contains("fixed_time"))
            fail(where,
                 "\"fixed_time\" is no longer read: write \"estimate\": {\"why\", \"changes\", \"at_least\"} "
                 "(rules/README.md)");
        if (j.contains("estimate")) {
            if (n.finding.empty()) fail(where, "\"estimate\" needs a \"finding\" to estimate");
            n.estimate = estimate(j["estimate"], where);
        }
        if (j.contains("evidence")) {
            if (!j["evidence"].is_array()) fail(where, "\"evidence\": expected a list of expressions");
            for (const auto& e : j["evidence"]) {
                if (!e.is_string()) fail(where, "\"evidence\": expected expressions as strings");
                n.evidence.push_back(expr(e.get<std::string>(), where, "evidence", value_type::number, e));
            }
        }
        if (j.contains("fixes")) {
            if (!j["fixes"].is_array()) fail(where, "\"fixes\": expected a list");
            for (const auto& f : j["fixes"]) {
                fix x;
                x.text = text(f, "text", where + " fix");
                if (f.contains("when"))
                    x.when = expr(text(f, "when", where + " fix"), where, "fixes.when", value_type::boolean, f["when"]);
                if (f.contains("for")) x.origins = audience(f["for"], where);
                n.fixes.push_back(std::move(x));
            }
        }
        if (j.contains("children")) {
            if (!j["children"].is_array()) fail(where, "\"children\": expected a list of nodes");
            for (const auto& c : j["children"]) n.children.push_back(node(c, depth + 1));
        }
        return n;
    }

    std::string file_;
    const value_positions& positions_;
    std::set<std::string> ids_;
};

}  // namespace

rule_tree parse_rule_tree(const std::string& json_text, const std::string& file) {
    (void)parse_json_file<json>(json_text, file, error_code::bad_rule);  // a syntax error, with its position
    json j;
    const value_positions positions(json_text, j);
    return loader(file, positions).tree(j);
}

std::vector<rule_tree> load_rule_trees(const std::string& extra_dir) {
    // The shipped trees are parsed once per process; copies share their parsed expressions.
    static const std::vector<rule_tree> shipped = [] {
        std::vector<rule_tree> t;
        for (const auto& f : embedded_rules()) t.push_back(parse_rule_tree(f.contents, f.name));
        return t;
    }();
    std::vector<rule_tree> trees = with_overrides(shipped, extra_dir, "rule trees", parse_rule_tree);
    std::stable_sort(trees.begin(), trees.end(), [](const rule_tree& a, const rule_tree& b) {
        return a.precedence != b.precedence ? a.precedence < b.precedence : a.id < b.id;
    });
    return trees;
}

}  // namespace roofline::diagnose
