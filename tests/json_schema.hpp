// A JSON Schema validator for the subset docs/report.schema.json uses (no validator library is
// among the project's dependencies): type (a name or a list, "null" for nullable), enum,
// properties, required, additionalProperties (false or a schema), items, minItems, maxItems,
// minimum, exclusiveMinimum, maximum, minLength, oneOf and "$ref" into the document's "$defs". Any other keyword is an
// error, so the schema cannot use one this validator would silently skip.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace roofline::test {

class schema_validator {
public:
    explicit schema_validator(nlohmann::json schema) : root_(std::move(schema)) {}

    // Every place the document breaks the schema, as "/kernels/0/grid_size: expected array or null, got string".
    std::vector<std::string> errors(const nlohmann::json& doc) const {
        std::vector<std::string> out;
        check(root_, doc, "", out);
        return out;
    }

private:
    nlohmann::json root_;

    static bool is_type(const nlohmann::json& v, const std::string& t) {
        if (t == "null") return v.is_null();
        if (t == "boolean") return v.is_boolean();
        if (t == "integer") return v.is_number_integer();
        if (t == "number") return v.is_number();
        if (t == "string") return v.is_string();
        if (t == "array") return v.is_array();
        if (t == "object") return v.is_object();
        throw std::runtime_error("schema: unknown type " + t);
    }

    const nlohmann::json& resolve(const std::string& ref) const {
        const std::string prefix = "#/$defs/";
        if (ref.rfind(prefix, 0) != 0 || !root_.contains("$defs") ||
            !root_["$defs"].contains(ref.substr(prefix.size())))
            throw std::runtime_error("schema: cannot resolve " + ref);
        return root_["$defs"][ref.substr(prefix.size())];
    }

    void check(const nlohmann::json& s, const nlohmann::json& v, const std::string& at,
               std::vector<std::string>& out) const {
        const std::string where = at.empty() ? "/" : at;
        for (const auto& [key, rule] : s.items()) {
            if (key == "$schema" || key == "$defs" || key == "title" || key == "description") continue;
            if (key == "$ref") {
                check(resolve(rule.get<std::string>()), v, at, out);
            } else if (key == "type") {
                const auto types = rule.is_array() ? rule : nlohmann::json::array({rule});
                bool ok = false;
                std::string names;
                for (const auto& t : types) {
                    ok |= is_type(v, t.get<std::string>());
                    names += (names.empty() ? "" : " or ") + t.get<std::string>();
                }
                if (!ok) out.push_back(where + ": expected " + names + ", got " + v.type_name());
            } else if (key == "enum") {
                bool ok = false;
                for (const auto& e : rule) ok |= e == v;
                if (!ok) out.push_back(where + ": " + v.dump() + " is not one of " + rule.dump());
            } else if (key == "minimum") {
                if (v.is_number() && v.get<double>() < rule.get<double>())
                    out.push_back(where + ": " + v.dump() + " < " + rule.dump());
            } else if (key == "maximum") {
                if (v.is_number() && v.get<double>() > rule.get<double>())
                    out.push_back(where + ": " + v.dump() + " > " + rule.dump());
            } else if (key == "exclusiveMinimum") {
                if (v.is_number() && v.get<double>() <= rule.get<double>())
                    out.push_back(where + ": " + v.dump() + " <= " + rule.dump());
            } else if (key == "minLength") {
                if (v.is_string() && v.get<std::string>().size() < rule.get<std::size_t>())
                    out.push_back(where + ": shorter than " + rule.dump() + " characters");
            } else if (key == "minItems") {
                if (v.is_array() && v.size() < rule.get<std::size_t>())
                    out.push_back(where + ": fewer than " + rule.dump() + " items");
            } else if (key == "maxItems") {
                if (v.is_array() && v.size() > rule.get<std::size_t>())
                    out.push_back(where + ": more than " + rule.dump() + " items");
            } else if (key == "items") {
                if (v.is_array())
                    for (std::size_t i = 0; i < v.size(); ++i) check(rule, v[i], at + "/" + std::to_string(i), out);
            } else if (key == "required") {
                if (v.is_object())
                    for (const auto& r : rule)
                        if (!v.contains(r.get<std::string>())) out.push_back(where + ": lacks " + r.get<std::string>());
            } else if (key == "properties") {
                if (v.is_object())
                    for (const auto& [name, sub] : rule.items())
                        if (v.contains(name)) check(sub, v[name], at + "/" + name, out);
            } else if (key == "additionalProperties") {
                if (!v.is_object()) continue;
                for (const auto& [name, value] : v.items()) {
                    if (s.contains("properties") && s["properties"].contains(name)) continue;
                    if (rule.is_boolean()) {
                        if (!rule.get<bool>()) out.push_back(where + ": unexpected " + name);
                    } else {
                        check(rule, value, at + "/" + name, out);
                    }
                }
            } else if (key == "oneOf") {
                std::size_t matched = 0;
                for (const auto& alt : rule) {
                    std::vector<std::string> e;
                    check(alt, v, at, e);
                    matched += e.empty();
                }
                if (matched != 1)
                    out.push_back(where + ": matches " + std::to_string(matched) + " of the oneOf schemas, not 1");
            } else {
                throw std::runtime_error("schema: keyword " + key + " is not supported by tests/json_schema.hpp");
            }
        }
    }
};

}  // namespace roofline::test
