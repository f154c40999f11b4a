#include "analyzer/diagnose/expression.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace roofline::diagnose {

struct expression::node {
    enum class kind {
        number,
        name,
        negate,
        logical_not,
        add,
        sub,
        mul,
        div,
        lt,
        le,
        gt,
        ge,
        eq,
        ne,
        logical_and,
        logical_or,
        max,
        min
    };
    kind node_kind = kind::number;
    double value = 0.0;
    std::string name;
    value_type type = value_type::number;
    std::unique_ptr<node> lhs, rhs;
};

namespace {

using node = expression::node;
using kind = node::kind;

// Bounds that keep parsing and evaluation off the end of the stack: a rule's condition is a line or
// two, nested a few levels; the shipped trees' longest is under 400 characters, 6 levels deep.
constexpr std::size_t max_expression_chars = 2000;
constexpr int max_expression_depth = 96;  // each parenthesis costs three: or, not, minus

const char* type_name(value_type type) { return type == value_type::number ? "a number" : "true/false"; }

class parser {
public:
    parser(const std::string& text, const name_types& types, std::vector<std::string>& names)
        : s_(text), types_(types), names_(names) {}

    std::unique_ptr<node> parse() {
        auto root = parse_or();
        skip_space();
        if (i_ < s_.size()) fail(i_, "unexpected \"" + s_.substr(i_, 1) + "\"");
        return root;
    }

private:
    [[noreturn]] void fail(std::size_t at, const std::string& what) { throw expression_error(at + 1, what); }

    void skip_space() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    bool word(const char* keyword) {
        skip_space();
        std::size_t length = std::char_traits<char>::length(keyword);
        if (s_.compare(i_, length, keyword) != 0) return false;
        if (i_ + length < s_.size() &&
            (std::isalnum(static_cast<unsigned char>(s_[i_ + length])) || s_[i_ + length] == '_'))
            return false;
        i_ += length;
        return true;
    }
    bool symbol(const char* sym) {
        skip_space();
        std::size_t length = std::char_traits<char>::length(sym);
        if (s_.compare(i_, length, sym) != 0) return false;
        i_ += length;
        return true;
    }

    std::unique_ptr<node> make(kind op_kind, std::unique_ptr<node> lhs, std::unique_ptr<node> rhs, value_type type) {
        auto result = std::make_unique<node>();
        result->node_kind = op_kind;
        result->lhs = std::move(lhs);
        result->rhs = std::move(rhs);
        result->type = type;
        return result;
    }
    void want(const node& operand, value_type type, std::size_t at, const char* role) {
        if (operand.type != type)
            fail(at, std::string(role) + " needs " + type_name(type) + ", got " + type_name(operand.type));
    }

    // Counts the nesting of one parse: parentheses, calls, "not" and unary minus each go one deeper.
    struct deeper {
        parser& owner_;
        explicit deeper(parser& owner) : owner_(owner) {
            if (++owner_.depth_ > max_expression_depth)
                owner_.fail(owner_.i_,
                            "nested too deeply for a rule (parentheses, calls, not and minus within one another)");
        }
        ~deeper() { --owner_.depth_; }
    };

    std::unique_ptr<node> parse_or() {
        deeper guard(*this);
        std::size_t at = (skip_space(), i_);
        auto lhs = parse_and();
        while (true) {
            std::size_t op = (skip_space(), i_);
            if (!word("or")) return lhs;
            want(*lhs, value_type::boolean, at, "\"or\"");
            std::size_t rat = (skip_space(), i_);
            auto rhs = parse_and();
            want(*rhs, value_type::boolean, rat, "\"or\"");
            (void)op;
            lhs = make(kind::logical_or, std::move(lhs), std::move(rhs), value_type::boolean);
        }
    }
    std::unique_ptr<node> parse_and() {
        std::size_t at = (skip_space(), i_);
        auto lhs = parse_not();
        while (true) {
            if (!word("and")) return lhs;
            want(*lhs, value_type::boolean, at, "\"and\"");
            std::size_t rat = (skip_space(), i_);
            auto rhs = parse_not();
            want(*rhs, value_type::boolean, rat, "\"and\"");
            lhs = make(kind::logical_and, std::move(lhs), std::move(rhs), value_type::boolean);
        }
    }
    std::unique_ptr<node> parse_not() {
        deeper guard(*this);
        if (word("not")) {
            std::size_t at = (skip_space(), i_);
            auto operand = parse_not();
            want(*operand, value_type::boolean, at, "\"not\"");
            return make(kind::logical_not, std::move(operand), nullptr, value_type::boolean);
        }
        return parse_compare();
    }
    std::unique_ptr<node> parse_compare() {
        std::size_t at = (skip_space(), i_);
        auto lhs = parse_sum();
        static const std::pair<const char*, kind> ops[] = {{"<=", kind::le}, {">=", kind::ge}, {"==", kind::eq},
                                                           {"!=", kind::ne}, {"<", kind::lt},  {">", kind::gt}};
        for (const auto& [sym, op_kind] : ops) {
            if (!symbol(sym)) continue;
            want(*lhs, value_type::number, at, "a comparison");
            std::size_t rat = (skip_space(), i_);
            auto rhs = parse_sum();
            want(*rhs, value_type::number, rat, "a comparison");
            return make(op_kind, std::move(lhs), std::move(rhs), value_type::boolean);
        }
        return lhs;
    }
    std::unique_ptr<node> parse_sum() {
        std::size_t at = (skip_space(), i_);
        auto lhs = parse_product();
        while (true) {
            kind op_kind;
            if (symbol("+"))
                op_kind = kind::add;
            else if (symbol("-"))
                op_kind = kind::sub;
            else
                return lhs;
            want(*lhs, value_type::number, at, "arithmetic");
            std::size_t rat = (skip_space(), i_);
            auto rhs = parse_product();
            want(*rhs, value_type::number, rat, "arithmetic");
            lhs = make(op_kind, std::move(lhs), std::move(rhs), value_type::number);
        }
    }
    std::unique_ptr<node> parse_product() {
        std::size_t at = (skip_space(), i_);
        auto lhs = parse_unary();
        while (true) {
            kind op_kind;
            if (symbol("*"))
                op_kind = kind::mul;
            else if (symbol("/"))
                op_kind = kind::div;
            else
                return lhs;
            want(*lhs, value_type::number, at, "arithmetic");
            std::size_t rat = (skip_space(), i_);
            auto rhs = parse_unary();
            want(*rhs, value_type::number, rat, "arithmetic");
            lhs = make(op_kind, std::move(lhs), std::move(rhs), value_type::number);
        }
    }
    std::unique_ptr<node> parse_unary() {
        deeper guard(*this);
        std::size_t at = (skip_space(), i_);
        if (symbol("-")) {
            auto operand = parse_unary();
            want(*operand, value_type::number, at, "\"-\"");
            return make(kind::negate, std::move(operand), nullptr, value_type::number);
        }
        return parse_primary();
    }
    std::unique_ptr<node> parse_primary() {
        skip_space();
        if (i_ >= s_.size()) fail(i_, "the expression ends too early");
        std::size_t at = i_;
        if (symbol("(")) {
            auto inner = parse_or();
            if (!symbol(")")) fail(i_, "expected \")\" to close the \"(\" at column " + std::to_string(at + 1));
            return inner;
        }
        char first = s_[i_];
        if (std::isdigit(static_cast<unsigned char>(first)) || first == '.') {
            double literal = 0;
            auto res = std::from_chars(s_.data() + i_, s_.data() + s_.size(), literal);
            if (res.ec != std::errc()) fail(i_, "not a number");
            i_ = std::size_t(res.ptr - s_.data());
            auto leaf = std::make_unique<node>();
            leaf->value = literal;
            return leaf;
        }
        if (std::isalpha(static_cast<unsigned char>(first)) || first == '_') {
            std::size_t start = i_;
            while (i_ < s_.size() &&
                   (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.'))
                ++i_;
            std::string name = s_.substr(start, i_ - start);
            if ((name == "max" || name == "min") && symbol("("))
                return parse_call(name == "max" ? kind::max : kind::min, start);
            auto leaf = std::make_unique<node>();
            if (name == "true" || name == "false") {
                leaf->value = name == "true";
                leaf->type = value_type::boolean;
                return leaf;
            }
            auto name_type = types_(name);
            if (!name_type)
                fail(start,
                     "unknown name \"" + name +
                         "\" (neither a derived value nor a metric in the catalogue, analyzer/base/metrics.json)");
            leaf->node_kind = kind::name;
            leaf->name = name;
            leaf->type = *name_type;
            if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
            return leaf;
        }
        fail(i_, "unexpected \"" + s_.substr(i_, 1) + "\"");
    }

    // max(a, b, ...) and min(a, b, ...): folded into a chain of two-argument nodes.
    std::unique_ptr<node> parse_call(kind op_kind, std::size_t start) {
        std::size_t at = (skip_space(), i_);
        auto acc = parse_or();
        want(*acc, value_type::number, at, op_kind == kind::max ? "max()" : "min()");
        while (symbol(",")) {
            std::size_t rat = (skip_space(), i_);
            auto rhs = parse_or();
            want(*rhs, value_type::number, rat, op_kind == kind::max ? "max()" : "min()");
            acc = make(op_kind, std::move(acc), std::move(rhs), value_type::number);
        }
        if (!symbol(")")) fail(i_, "expected \")\" to close the call at column " + std::to_string(start + 1));
        return acc;
    }

    const std::string& s_;
    const name_types& types_;
    std::vector<std::string>& names_;
    std::size_t i_ = 0;
    int depth_ = 0;
};

using range = value_range;

void add_once(std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

range exactly(double value) { return {value, value}; }
const range undecided{0.0, 1.0};

// Every value of the range is true (non-zero), every one false (the range is 0), or neither.
bool all_true(const range& bounds) { return bounds.lo > 0.0 || bounds.hi < 0.0; }
bool all_false(const range& bounds) { return bounds.lo == 0.0 && bounds.hi == 0.0; }

range product(const range& lhs, const range& rhs) {
    const double lo_lo = lhs.lo * rhs.lo, lo_hi = lhs.lo * rhs.hi, hi_lo = lhs.hi * rhs.lo, hi_hi = lhs.hi * rhs.hi;
    return {std::min({lo_lo, lo_hi, hi_lo, hi_hi}), std::max({lo_lo, lo_hi, hi_lo, hi_hi})};
}

// lt, le: decided where the ranges do not overlap across the comparison.
range less(const range& lhs, const range& rhs, bool or_equal) {
    if (or_equal ? lhs.hi <= rhs.lo : lhs.hi < rhs.lo) return exactly(1.0);
    if (or_equal ? lhs.lo > rhs.hi : lhs.lo >= rhs.hi) return exactly(0.0);
    return undecided;
}

std::optional<range> eval(const node& expr_node, const name_values& values, evaluation& out) {
    switch (expr_node.node_kind) {
        case kind::number:
            return exactly(expr_node.value);
        case kind::name: {
            fact_value fact = values(expr_node.name);
            if (!fact.exact()) {
                add_once(out.open_names, expr_node.name);
                for (const auto& missing_metric : fact.missing) add_once(out.missing, missing_metric);
            }
            return fact.range;
        }
        case kind::negate: {
            auto operand = eval(*expr_node.lhs, values, out);
            return operand ? std::optional<range>(range{-operand->hi, -operand->lo}) : std::nullopt;
        }
        case kind::logical_not: {
            auto operand = eval(*expr_node.lhs, values, out);
            if (!operand) return std::nullopt;
            return all_false(*operand) ? exactly(1.0) : all_true(*operand) ? exactly(0.0) : undecided;
        }
        default:
            break;
    }
    // Both sides are evaluated, so every open name is reported, not only the first.
    auto lhs = eval(*expr_node.lhs, values, out);
    auto rhs = eval(*expr_node.rhs, values, out);
    // Three-valued logic: a decided false decides "and", a decided true decides "or", whatever the
    // other side lacks (a small-grid kernel has no waves to ask about).
    if (expr_node.node_kind == kind::logical_and && ((lhs && all_false(*lhs)) || (rhs && all_false(*rhs))))
        return exactly(0.0);
    if (expr_node.node_kind == kind::logical_or && ((lhs && all_true(*lhs)) || (rhs && all_true(*rhs))))
        return exactly(1.0);
    if (!lhs || !rhs) return std::nullopt;
    switch (expr_node.node_kind) {
        case kind::add:
            return range{lhs->lo + rhs->lo, lhs->hi + rhs->hi};
        case kind::sub:
            return range{lhs->lo - rhs->hi, lhs->hi - rhs->lo};
        case kind::mul:
            return product(*lhs, *rhs);
        // A ratio of two zero counters means nothing happened (no shared loads, no conflicts): 0. A
        // divisor that may be zero leaves the quotient unbounded: unknown.
        case kind::div:
            if (rhs->exact() && rhs->lo == 0.0)
                return all_false(*lhs) ? std::optional<range>(exactly(0.0)) : std::nullopt;
            if (rhs->lo <= 0.0 && rhs->hi >= 0.0) return std::nullopt;
            return product(*lhs, range{1.0 / rhs->hi, 1.0 / rhs->lo});
        case kind::lt:
            return less(*lhs, *rhs, false);
        case kind::le:
            return less(*lhs, *rhs, true);
        case kind::gt:
            return less(*rhs, *lhs, false);
        case kind::ge:
            return less(*rhs, *lhs, true);
        case kind::eq:
            if (lhs->exact() && rhs->exact()) return exactly(double(lhs->lo == rhs->lo));
            return lhs->hi < rhs->lo || rhs->hi < lhs->lo ? exactly(0.0) : undecided;
        case kind::ne:
            if (lhs->exact() && rhs->exact()) return exactly(double(lhs->lo != rhs->lo));
            return lhs->hi < rhs->lo || rhs->hi < lhs->lo ? exactly(1.0) : undecided;
        case kind::logical_and:
            return all_true(*lhs) && all_true(*rhs) ? exactly(1.0) : undecided;
        case kind::logical_or:
            return all_false(*lhs) && all_false(*rhs) ? exactly(0.0) : undecided;
        case kind::max:
            return range{std::max(lhs->lo, rhs->lo), std::max(lhs->hi, rhs->hi)};
        case kind::min:
            return range{std::min(lhs->lo, rhs->lo), std::min(lhs->hi, rhs->hi)};
        default:
            return std::nullopt;
    }
}

}  // namespace

expression expression::parse(const std::string& text, const name_types& types) {
    if (text.size() > max_expression_chars)
        throw expression_error(max_expression_chars + 1,
                               "longer than " + std::to_string(max_expression_chars) + " characters");
    expression parsed;
    parsed.text_ = text;
    parser expr_parser(parsed.text_, types, parsed.names_);
    parsed.root_ = expr_parser.parse();
    return parsed;
}

expression::expression() : text_("true") {}
expression::expression(const expression&) = default;
expression& expression::operator=(const expression&) = default;
expression::expression(expression&&) noexcept = default;
expression& expression::operator=(expression&&) noexcept = default;
expression::~expression() = default;

value_type expression::type() const { return root_ ? root_->type : value_type::boolean; }

fact_value fact_value::between(double lo, double hi, std::vector<std::string> missing) {
    fact_value result;
    result.range = value_range{lo, std::max(lo, hi)};  // an upper bound never under what is proven
    if (!result.range->exact()) result.missing = std::move(missing);
    return result;
}

evaluation expression::evaluate_range(const name_values& values) const {
    evaluation out;
    out.range = root_ ? eval(*root_, values, out) : exactly(1.0);
    return out;
}

std::optional<double> expression::evaluate(const name_values& values, std::vector<std::string>* open_names) const {
    evaluation result = evaluate_range(values);
    if (open_names)
        for (const auto& open_name : result.open_names) add_once(*open_names, open_name);
    return result.value();
}

}  // namespace roofline::diagnose
