// The derived facts a rule can read (kernel_facts.hpp), as one table: name, type, meaning and how
// to compute it. Internal to the diagnose stage.
#pragma once

#include "analyzer/diagnose/expression.hpp"
#include "models/kernel_result.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace roofline::rules::detail {

using getter = std::function<std::optional<double>(const kernel_result&, const gpu_spec&)>;

struct fact {
    std::string name;
    value_type type;
    std::string doc;
    getter get;
};

// Every derived fact, in the order rules/README.md lists them; nullptr for an unknown name.
const std::vector<fact>& facts();
const fact* find_fact(const std::string& name);

// A metric of the kernel's capture by id, or nullopt.
std::optional<double> number(const kernel_result& k, const char* id);
// 1 or 0, as booleans are.
inline std::optional<double> flag(bool b) { return b ? 1.0 : 0.0; }

}  // namespace roofline::rules::detail
