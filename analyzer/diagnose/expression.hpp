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

namespace roofline::rules {

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
// A name's value for one kernel, or nullopt when the capture lacks it. Booleans are 1 or 0.
using name_values = std::function<std::optional<double>(const std::string&)>;

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
    // nullopt when a name has no value (listed in `missing`) or a non-zero number is divided by
    // zero; 0 / 0 is 0 (two idle counters).
    std::optional<double> evaluate(const name_values& values, std::vector<std::string>* missing = nullptr) const;

    struct node;

private:
    std::string text_;
    std::vector<std::string> names_;
    std::shared_ptr<const node> root_;
};

}  // namespace roofline::rules
