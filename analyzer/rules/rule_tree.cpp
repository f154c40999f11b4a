#include "rule_tree.hpp"

#include "analyzer/input_error.hpp"
#include "analyzer/json_files.hpp"
#include "kernel_facts.hpp"
#include "rules_embedded.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace roofline::rules {
namespace {

using json = nlohmann::json;

class loader {
public:
    explicit loader(std::string file) : file_(std::move(file)) {}

    rule_tree tree(const json& j) {
        rule_tree t;
        t.file = file_;
        t.id = text(j, "id", "tree");
        t.title = text(j, "title", "tree");
        t.description = j.contains("description") && j["description"].is_string() ? j["description"].get<std::string>() : "";
        if (!j.contains("roots") || !j["roots"].is_array() || j["roots"].empty()) fail("tree", "\"roots\": expected a non-empty list of nodes");
        for (const auto& n : j["roots"]) t.roots.push_back(node(n));
        return t;
    }

private:
    [[noreturn]] void fail(const std::string& where, const std::string& what) {
        throw input_error(error_code::bad_rule, file_, 0, 0, where + ": " + what);
    }

    std::string text(const json& j, const char* key, const std::string& where) {
        if (!j.is_object() || !j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
            fail(where, std::string("\"") + key + "\": expected a non-empty string");
        return j[key].get<std::string>();
    }

    expression expr(const std::string& source, const std::string& where, const char* field, value_type want) {
        try {
            expression e = expression::parse(source, fact_type);
            if (e.type() != want)
                fail(where, std::string("\"") + field + "\": expected " + (want == value_type::boolean ? "a true/false condition" : "a number") +
                                ", \"" + source + "\" is " + (e.type() == value_type::boolean ? "true/false" : "a number"));
            return e;
        } catch (const expression_error& e) {
            fail(where, std::string("\"") + field + "\" column " + std::to_string(e.column()) + ": " + e.what() + " in \"" + source + "\"");
        }
    }

    rule_node node(const json& j) {
        if (!j.is_object()) fail("tree", "a node must be an object");
        rule_node n;
        n.id = text(j, "id", "a node");
        const std::string where = "node \"" + n.id + "\"";
        if (!ids_.insert(n.id).second) fail(where, "the id is used twice");
        n.title = text(j, "title", where);
        n.explain = text(j, "explain", where);
        n.when = expr(text(j, "when", where), where, "when", value_type::boolean);
        if (j.contains("finding")) n.finding = text(j, "finding", where);
        if (j.contains("fixed_time")) {
            if (n.finding.empty()) fail(where, "\"fixed_time\" needs a \"finding\" to estimate");
            n.fixed_time = expr(text(j, "fixed_time", where), where, "fixed_time", value_type::number);
        }
        if (j.contains("evidence")) {
            if (!j["evidence"].is_array()) fail(where, "\"evidence\": expected a list of expressions");
            for (const auto& e : j["evidence"]) {
                if (!e.is_string()) fail(where, "\"evidence\": expected expressions as strings");
                n.evidence.push_back(expr(e.get<std::string>(), where, "evidence", value_type::number));
            }
        }
        if (j.contains("fixes")) {
            if (!j["fixes"].is_array()) fail(where, "\"fixes\": expected a list");
            for (const auto& f : j["fixes"]) {
                fix x;
                x.text = text(f, "text", where + " fix");
                if (f.contains("when")) x.when = expr(text(f, "when", where + " fix"), where, "fixes.when", value_type::boolean);
                n.fixes.push_back(std::move(x));
            }
        }
        if (j.contains("children")) {
            if (!j["children"].is_array()) fail(where, "\"children\": expected a list of nodes");
            for (const auto& c : j["children"]) n.children.push_back(node(c));
        }
        return n;
    }

    std::string file_;
    std::set<std::string> ids_;
};

}  // namespace

rule_tree parse_rule_tree(const std::string& json_text, const std::string& file) {
    json j = parse_json_file<json>(json_text, file, error_code::bad_rule);
    return loader(file).tree(j);
}

std::vector<rule_tree> load_rule_trees(const std::string& extra_dir) {
    std::vector<rule_tree> trees;
    for (const auto& f : embedded_rules()) trees.push_back(parse_rule_tree(f.contents, f.name));
    if (extra_dir.empty()) return trees;
    for (const auto& [path, text] : read_json_folder(extra_dir, "rule trees")) {
        rule_tree t = parse_rule_tree(text, path);
        auto same = std::find_if(trees.begin(), trees.end(), [&](const rule_tree& o) { return o.id == t.id; });
        if (same != trees.end()) *same = std::move(t);
        else trees.push_back(std::move(t));
    }
    return trees;
}

}  // namespace roofline::rules
