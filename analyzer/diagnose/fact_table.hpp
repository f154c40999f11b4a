// The derived facts a rule can read (kernel_facts.hpp), as one table: name, type, meaning and how
// to compute it. Internal to the diagnose stage.
#pragma once

#include "analyzer/diagnose/expression.hpp"
#include "models/kernel_result.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace roofline::diagnose::detail {

// A derived value: exact, bounded (fact_value::between, with the metrics that would decide it) or
// unknown. An unknown value need not list its missing metrics: kernel_facts() adds the metrics the
// getter looked up and did not find.
using getter = std::function<fact_value(const kernel_result&, const gpu_spec&)>;

struct fact {
    std::string name;
    value_type type;
    std::string doc;
    getter get;
};

// Every derived fact, in the order rules/README.md lists them; nullptr for an unknown name.
const std::vector<fact>& facts();
const fact* find_fact(const std::string& name);

// A metric of the kernel's capture by id, or nullopt (the miss is logged: metric_miss_log).
std::optional<double> metric(const kernel_result& kernel, const char* id);
// 1 or 0, as booleans are.
inline fact_value flag(bool condition) { return condition ? 1.0 : 0.0; }
// A boolean the capture leaves open: [0, 1], with what would decide it.
fact_value undecided(std::vector<std::string> missing);
// The roof's own bounds: [lo, hi] with every metric the roofline lacks.
fact_value roof_between(const kernel_result& kernel, double lo, double hi);

}  // namespace roofline::diagnose::detail
