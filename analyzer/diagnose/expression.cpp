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
    kind k = kind::number;
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

const char* type_name(value_type t) { return t == value_type::number ? "a number" : "true/false"; }

class parser {
public:
    parser(const std::string& text, const name_types& types, std::vector<std::string>& names)
        : s_(text), types_(types), names_(names) {}

    std::unique_ptr<node> parse() {
        auto n = parse_or();
        skip_space();
        if (i_ < s_.size()) fail(i_, "unexpected \"" + s_.substr(i_, 1) + "\"");
        return n;
    }

private:
    [[noreturn]] void fail(std::size_t at, const std::string& what) { throw expression_error(at + 1, what); }

    void skip_space() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    bool word(const char* w) {
        skip_space();
        std::size_t n = std::char_traits<char>::length(w);
        if (s_.compare(i_, n, w) != 0) return false;
        if (i_ + n < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_ + n])) || s_[i_ + n] == '_'))
            return false;
        i_ += n;
        return true;
    }
    bool symbol(const char* sym) {
        skip_space();
        std::size_t n = std::char_traits<char>::length(sym);
        if (s_.compare(i_, n, sym) != 0) return false;
        i_ += n;
        return true;
    }

    std::unique_ptr<node> make(kind k, std::unique_ptr<node> l, std::unique_ptr<node> r, value_type t) {
        auto n = std::make_unique<node>();
        n->k = k;
        n->lhs = std::move(l);
        n->rhs = std::move(r);
        n->type = t;
        return n;
    }
    void want(const node& n, value_type t, std::size_t at, const char* role) {
        if (n.type != t) fail(at, std::string(role) + " needs " + type_name(t) + ", got " + type_name(n.type));
    }

    // Counts the nesting of one parse: parentheses, calls, "not" and unary minus each go one deeper.
    struct deeper {
        parser& p;
        explicit deeper(parser& owner) : p(owner) {
            if (++p.depth_ > max_expression_depth)
                p.fail(p.i_, "nested too deeply for a rule (parentheses, calls, not and minus within one another)");
        }
        ~deeper() { --p.depth_; }
    };

    std::unique_ptr<node> parse_or() {
        deeper guard(*this);
        std::size_t at = (skip_space(), i_);
        auto l = parse_and();
        while (true) {
            std::size_t op = (skip_space(), i_);
            if (!word("or")) return l;
            want(*l, value_type::boolean, at, "\"or\"");
            std::size_t rat = (skip_space(), i_);
            auto r = parse_and();
            want(*r, value_type::boolean, rat, "\"or\"");
            (void)op;
            l = make(kind::logical_or, std::move(l), std::move(r), value_type::boolean);
        }
    }
    std::unique_ptr<node> parse_and() {
        std::size_t at = (skip_space(), i_);
        auto l = parse_not();
        while (true) {
            if (!word("and")) return l;
            want(*l, value_type::boolean, at, "\"and\"");
            std::size_t rat = (skip_space(), i_);
            auto r = parse_not();
            want(*r, value_type::boolean, rat, "\"and\"");
            l = make(kind::logical_and, std::move(l), std::move(r), value_type::boolean);
        }
    }
    std::unique_ptr<node> parse_not() {
        deeper guard(*this);
        if (word("not")) {
            std::size_t at = (skip_space(), i_);
            auto v = parse_not();
            want(*v, value_type::boolean, at, "\"not\"");
            return make(kind::logical_not, std::move(v), nullptr, value_type::boolean);
        }
        return parse_compare();
    }
    std::unique_ptr<node> parse_compare() {
        std::size_t at = (skip_space(), i_);
        auto l = parse_sum();
        static const std::pair<const char*, kind> ops[] = {{"<=", kind::le}, {">=", kind::ge}, {"==", kind::eq},
                                                           {"!=", kind::ne}, {"<", kind::lt},  {">", kind::gt}};
        for (const auto& [sym, k] : ops) {
            if (!symbol(sym)) continue;
            want(*l, value_type::number, at, "a comparison");
            std::size_t rat = (skip_space(), i_);
            auto r = parse_sum();
            want(*r, value_type::number, rat, "a comparison");
            return make(k, std::move(l), std::move(r), value_type::boolean);
        }
        return l;
    }
    std::unique_ptr<node> parse_sum() {
        std::size_t at = (skip_space(), i_);
        auto l = parse_product();
        while (true) {
            kind k;
            if (symbol("+"))
                k = kind::add;
            else if (symbol("-"))
                k = kind::sub;
            else
                return l;
            want(*l, value_type::number, at, "arithmetic");
            std::size_t rat = (skip_space(), i_);
            auto r = parse_product();
            want(*r, value_type::number, rat, "arithmetic");
            l = make(k, std::move(l), std::move(r), value_type::number);
        }
    }
    std::unique_ptr<node> parse_product() {
        std::size_t at = (skip_space(), i_);
        auto l = parse_unary();
        while (true) {
            kind k;
            if (symbol("*"))
                k = kind::mul;
            else if (symbol("/"))
                k = kind::div;
            else
                return l;
            want(*l, value_type::number, at, "arithmetic");
            std::size_t rat = (skip_space(), i_);
            auto r = parse_unary();
            want(*r, value_type::number, rat, "arithmetic");
            l = make(k, std::move(l), std::move(r), value_type::number);
        }
    }
    std::unique_ptr<node> parse_unary() {
        deeper guard(*this);
        std::size_t at = (skip_space(), i_);
        if (symbol("-")) {
            auto v = parse_unary();
            want(*v, value_type::number, at, "\"-\"");
            return make(kind::negate, std::move(v), nullptr, value_type::number);
        }
        return parse_primary();
    }
    std::unique_ptr<node> parse_primary() {
        skip_space();
        if (i_ >= s_.size()) fail(i_, "the expression ends too early");
        std::size_t at = i_;
        if (symbol("(")) {
            auto v = parse_or();
            if (!symbol(")")) fail(i_, "expected \")\" to close the \"(\" at column " + std::to_string(at + 1));
            return v;
        }
        char c = s_[i_];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            double v = 0;
            auto res = std::from_chars(s_.data() + i_, s_.data() + s_.size(), v);
            if (res.ec != std::errc()) fail(i_, "not a number");
            i_ = std::size_t(res.ptr - s_.data());
            auto n = std::make_unique<node>();
            n->value = v;
            return n;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t start = i_;
            while (i_ < s_.size() &&
                   (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.'))
                ++i_;
            std::string name = s_.substr(start, i_ - start);
            if ((name == "max" || name == "min") && symbol("("))
                return parse_call(name == "max" ? kind::max : kind::min, start);
            auto n = std::make_unique<node>();
            if (name == "true" || name == "false") {
                n->value = name == "true";
                n->type = value_type::boolean;
                return n;
            }
            auto t = types_(name);
            if (!t)
                fail(start,
                     "unknown name \"" + name +
                         "\" (neither a derived value nor a metric in the catalogue, analyzer/base/metrics.json)");
            n->k = kind::name;
            n->name = name;
            n->type = *t;
            if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
            return n;
        }
        fail(i_, "unexpected \"" + s_.substr(i_, 1) + "\"");
    }

    // max(a, b, ...) and min(a, b, ...): folded into a chain of two-argument nodes.
    std::unique_ptr<node> parse_call(kind k, std::size_t start) {
        std::size_t at = (skip_space(), i_);
        auto acc = parse_or();
        want(*acc, value_type::number, at, k == kind::max ? "max()" : "min()");
        while (symbol(",")) {
            std::size_t rat = (skip_space(), i_);
            auto r = parse_or();
            want(*r, value_type::number, rat, k == kind::max ? "max()" : "min()");
            acc = make(k, std::move(acc), std::move(r), value_type::number);
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

void add_once(std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

range exactly(double v) { return {v, v}; }
const range undecided{0.0, 1.0};

// Every value of the range is true (non-zero), every one false (the range is 0), or neither.
bool all_true(const range& r) { return r.lo > 0.0 || r.hi < 0.0; }
bool all_false(const range& r) { return r.lo == 0.0 && r.hi == 0.0; }

range product(const range& l, const range& r) {
    const double a = l.lo * r.lo, b = l.lo * r.hi, c = l.hi * r.lo, d = l.hi * r.hi;
    return {std::min({a, b, c, d}), std::max({a, b, c, d})};
}

// lt, le: decided where the ranges do not overlap across the comparison.
range less(const range& l, const range& r, bool or_equal) {
    if (or_equal ? l.hi <= r.lo : l.hi < r.lo) return exactly(1.0);
    if (or_equal ? l.lo > r.hi : l.lo >= r.hi) return exactly(0.0);
    return undecided;
}

std::optional<range> eval(const node& n, const name_values& values, evaluation& out) {
    switch (n.k) {
        case kind::number:
            return exactly(n.value);
        case kind::name: {
            fact_value v = values(n.name);
            if (!v.exact()) {
                add_once(out.open_names, n.name);
                for (const auto& m : v.missing) add_once(out.missing, m);
            }
            return v.range;
        }
        case kind::negate: {
            auto v = eval(*n.lhs, values, out);
            return v ? std::optional<range>(range{-v->hi, -v->lo}) : std::nullopt;
        }
        case kind::logical_not: {
            auto v = eval(*n.lhs, values, out);
            if (!v) return std::nullopt;
            return all_false(*v) ? exactly(1.0) : all_true(*v) ? exactly(0.0) : undecided;
        }
        default:
            break;
    }
    // Both sides are evaluated, so every open name is reported, not only the first.
    auto l = eval(*n.lhs, values, out);
    auto r = eval(*n.rhs, values, out);
    // Three-valued logic: a decided false decides "and", a decided true decides "or", whatever the
    // other side lacks (a small-grid kernel has no waves to ask about).
    if (n.k == kind::logical_and && ((l && all_false(*l)) || (r && all_false(*r)))) return exactly(0.0);
    if (n.k == kind::logical_or && ((l && all_true(*l)) || (r && all_true(*r)))) return exactly(1.0);
    if (!l || !r) return std::nullopt;
    switch (n.k) {
        case kind::add:
            return range{l->lo + r->lo, l->hi + r->hi};
        case kind::sub:
            return range{l->lo - r->hi, l->hi - r->lo};
        case kind::mul:
            return product(*l, *r);
        // A ratio of two zero counters means nothing happened (no shared loads, no conflicts): 0. A
        // divisor that may be zero leaves the quotient unbounded: unknown.
        case kind::div:
            if (r->exact() && r->lo == 0.0) return all_false(*l) ? std::optional<range>(exactly(0.0)) : std::nullopt;
            if (r->lo <= 0.0 && r->hi >= 0.0) return std::nullopt;
            return product(*l, range{1.0 / r->hi, 1.0 / r->lo});
        case kind::lt:
            return less(*l, *r, false);
        case kind::le:
            return less(*l, *r, true);
        case kind::gt:
            return less(*r, *l, false);
        case kind::ge:
            return less(*r, *l, true);
        case kind::eq:
            if (l->exact() && r->exact()) return exactly(double(l->lo == r->lo));
            return l->hi < r->lo || r->hi < l->lo ? exactly(0.0) : undecided;
        case kind::ne:
            if (l->exact() && r->exact()) return exactly(double(l->lo != r->lo));
            return l->hi < r->lo || r->hi < l->lo ? exactly(1.0) : undecided;
        case kind::logical_and:
            return all_true(*l) && all_true(*r) ? exactly(1.0) : undecided;
        case kind::logical_or:
            return all_false(*l) && all_false(*r) ? exactly(0.0) : undecided;
        case kind::max:
            return range{std::max(l->lo, r->lo), std::max(l->hi, r->hi)};
        case kind::min:
            return range{std::min(l->lo, r->lo), std::min(l->hi, r->hi)};
        default:
            return std::nullopt;
    }
}

}  // namespace

expression expression::parse(const std::string& text, const name_types& types) {
    if (text.size() > max_expression_chars)
        throw expression_error(max_expression_chars + 1,
                               "longer than " + std::to_string(max_expression_chars) + " characters");
    expression e;
    e.text_ = text;
    parser p(e.text_, types, e.names_);
    e.root_ = p.parse();
    return e;
}

expression::expression() : text_("true") {}
expression::expression(const expression&) = default;
expression& expression::operator=(const expression&) = default;
expression::expression(expression&&) noexcept = default;
expression& expression::operator=(expression&&) noexcept = default;
expression::~expression() = default;

value_type expression::type() const { return root_ ? root_->type : value_type::boolean; }

fact_value fact_value::between(double lo, double hi, std::vector<std::string> missing) {
    fact_value v;
    v.range = value_range{lo, std::max(lo, hi)};  // an upper bound never under what is proven
    if (!v.range->exact()) v.missing = std::move(missing);
    return v;
}

evaluation expression::evaluate_range(const name_values& values) const {
    evaluation out;
    out.range = root_ ? eval(*root_, values, out) : exactly(1.0);
    return out;
}

std::optional<double> expression::evaluate(const name_values& values, std::vector<std::string>* open_names) const {
    evaluation e = evaluate_range(values);
    if (open_names)
        for (const auto& n : e.open_names) add_once(*open_names, n);
    return e.value();
}

}  // namespace roofline::diagnose
