// The small expression language of the rule trees (rules/*.json): numbers, names, + - * /,
// comparisons, and/or/not, parentheses, true/false, max(a, b, ...) and min(a, b, ...). Names are ncu metric ids
// (`lts__t_sector_hit_rate.pct`) or the engine's derived values (`pct_of_roof`, `util_dram`, ...).
// Parsed and type-checked once, at load time; evaluated per kernel.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofline::diagnose {

enum class value_type { number, boolean };

// A parse or type error at a 1-based column of the expression text.
class expression_error : public std::runtime_error {
public:
    expression_error(std::size_t column, const std::string& what) : std::runtime_error(what), column_(column) {}
    std::size_t column() const { return column_; }

private:
    std::size_t column_;
};

// The type of a name, or nullopt when the name is unknown.
using name_types = std::function<std::optional<value_type>(const std::string&)>;

// Lower and upper bounds of a value; equal where the value is exact. Booleans are 1 or 0, and [0, 1]
// where the capture does not decide them.
struct value_range {
    double lo = 0.0, hi = 0.0;
    bool exact() const { return lo == hi; }
};

// A name's value for one kernel, as the capture decides it: exact, only within bounds, or unknown
// (no range). `missing`: the metrics whose absence leaves it open (empty where it is exact).
struct fact_value {
    std::optional<value_range> range;
    std::vector<std::string> missing;
    fact_value() = default;
    fact_value(std::nullopt_t) {}                                                     // NOLINT: unknown
    fact_value(double exact_value) : range(value_range{exact_value, exact_value}) {}  // NOLINT: exact
    fact_value(std::optional<double> exact_value)
        : range(exact_value ? std::optional(value_range{*exact_value, *exact_value}) : std::nullopt) {}  // NOLINT
    static fact_value between(double lo, double hi, std::vector<std::string> missing);
    bool exact() const { return range && range->exact(); }
    // The value where it is exact.
    std::optional<double> value() const { return exact() ? std::optional<double>(range->lo) : std::nullopt; }
};

// A name's value for one kernel.
using name_values = std::function<fact_value(const std::string&)>;

// What an expression comes to on one kernel: a range (exact, or within bounds where a name it reads is
// only bounded), or nothing where a name is unknown or a non-zero number is divided by zero.
struct evaluation {
    std::optional<value_range> range;
    std::vector<std::string> open_names;  // the names whose values were not exact, in order of first use
    std::vector<std::string> missing;     // their missing metrics, each once
    std::optional<double> value() const {
        return range && range->exact() ? std::optional<double>(range->lo) : std::nullopt;
    }
    // A boolean's outcome: 1 or 0 where decided.
    bool decided() const { return value().has_value(); }
};

class expression {
public:
    // Throws expression_error on a syntax error, an unknown name or a type mismatch.
    static expression parse(const std::string& text, const name_types& types);
    expression();  // the empty expression: true
    // Copies share the parsed tree, which nothing changes once parsed.
    expression(const expression&);
    expression& operator=(const expression&);
    expression(expression&&) noexcept;
    expression& operator=(expression&&) noexcept;
    ~expression();

    value_type type() const;
    const std::string& text() const { return text_; }
    // The names it reads, in order of first use.
    const std::vector<std::string>& names() const { return names_; }
    // Interval arithmetic over the names' ranges: a comparison is decided where the ranges do not
    // overlap across it, `and` by a decided false, `or` by a decided true. 0 / 0 is 0 (two idle counters).
    evaluation evaluate_range(const name_values& values) const;
    // The exact value: nullopt where a name is unknown or only bounded (each such name listed in
    // `open_names`), or a non-zero number is divided by zero.
    std::optional<double> evaluate(const name_values& values, std::vector<std::string>* open_names = nullptr) const;

    struct node;

private:
    std::string text_;
    std::vector<std::string> names_;
    std::shared_ptr<const node> root_;
};

}  // namespace roofline::diagnose
