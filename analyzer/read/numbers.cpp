#include "analyzer/read/numbers.hpp"

#include "analyzer/base/input_error.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace roofline {
namespace {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// The aggregate of a metric-instance cell: the text before " (".
std::string_view aggregate_part(std::string_view s) {
    auto p = s.find('(');
    if (p != std::string_view::npos) s = s.substr(0, p);
    return trim(s);
}

bool is_missing_marker(std::string_view s) {
    if (s.empty()) return true;
    if (std::isdigit(static_cast<unsigned char>(s[0]))) return false;  // most cells: a number
    auto is = [&](std::string_view marker) {
        return s.size() == marker.size() && std::equal(s.begin(), s.end(), marker.begin(), [](char a, char b) {
                   return std::tolower(static_cast<unsigned char>(a)) == b;
               });
    };
    return is("n/a") || is("nan") || is("-nan") || is("no data") || is("-") || is("none");
}

// A plain decimal number ("182336", "0.182336", "-2", "1e-05"): no group separator, no instances,
// no spaces. Read straight from the text; anything else takes the full path.
bool plain_number(std::string_view s, double& v) {
    if (s.empty() || s.size() > 64) return false;
    for (char c : s)
        if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == 'e' || c == 'E'))
            return false;
    if (!std::isdigit(static_cast<unsigned char>(s[0])) &&
        !(s[0] == '-' && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))))
        return false;
    auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    return res.ec == std::errc() && res.ptr == s.data() + s.size() && std::isfinite(v);
}

// Digits and separators with an optional sign and exponent: the shape of a number.
bool number_shaped(std::string_view s) {
    if (s.empty()) return false;
    std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    bool digit = false;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (std::isdigit(static_cast<unsigned char>(c)))
            digit = true;
        else if (c == ',' || c == '.')
            continue;
        else if ((c == 'e' || c == 'E') && digit) {
            std::size_t j = i + 1;
            if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
            if (j == s.size()) return false;
            for (; j < s.size(); ++j)
                if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
            return true;
        } else
            return false;
    }
    return digit;
}

// Checks that `group` separators fall every three digits before the decimal mark.
bool groups_valid(std::string_view integer_part, char group) {
    auto first = integer_part.find(group);
    if (first == std::string_view::npos) return true;
    if (first == 0 || first > 3) return false;
    std::size_t run = 0;
    for (std::size_t i = first + 1; i < integer_part.size(); ++i) {
        if (integer_part[i] == group) {
            if (run != 3) return false;
            run = 0;
        } else
            ++run;
    }
    return run == 3;
}

// Most cells are an optional '-', then digits with ',' and '.' among them, ending in a digit
// ("16,896", "0.009397", "1,478,132,678,132.68"). One pass finds what the style and the value need;
// any other shape takes the general path, which gives the same answers for these.
struct simple_cell {
    bool ok = false;
    std::size_t commas = 0, points = 0;
    std::size_t last_comma = 0, last_point = 0;
};

simple_cell simple_shape(std::string_view s) {
    simple_cell r;
    const std::size_t first = !s.empty() && s[0] == '-' ? 1 : 0;
    if (s.size() <= first || s.size() > 64 || !is_digit(s[first]) || !is_digit(s.back())) return r;
    for (std::size_t i = first + 1; i < s.size(); ++i) {
        const char c = s[i];
        if (is_digit(c)) continue;
        if (c == ',') {
            ++r.commas;
            r.last_comma = i;
        } else if (c == '.') {
            ++r.points;
            r.last_point = i;
        } else {
            return r;
        }
    }
    r.ok = true;
    return r;
}

// style_evidence() for a simple cell (it has no exponent, space or instance list).
number_style simple_evidence(const simple_cell& c, std::size_t size) {
    if (c.commas && c.points) return c.last_comma > c.last_point ? number_style::comma : number_style::point;
    if (c.commas > 1) return number_style::point;
    if (c.points > 1) return number_style::comma;
    if (c.commas == 1 || c.points == 1) {
        const std::size_t after = size - (c.commas ? c.last_comma : c.last_point) - 1;
        if (after == 3) return number_style::unknown;  // "1,056": a group or a decimal
        return c.commas ? number_style::comma : number_style::point;
    }
    return number_style::unknown;
}

// read_cell() for a simple cell: groups of three digits before at most one decimal mark. The digits
// are gathered as an integer on the way; where they fit in 53 bits and the scale is at most 10^22,
// both are exact doubles and one IEEE division rounds correctly (Clinger's fast path), which is
// std::from_chars's result; other cells go through std::from_chars.
cell_value simple_value(std::string_view s, const simple_cell& c, number_style style) {
    static constexpr double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const bool comma_style = style == number_style::comma;
    const char group = comma_style ? '.' : ',';
    const std::size_t decimals_marks = comma_style ? c.commas : c.points;
    const std::size_t groups = comma_style ? c.points : c.commas;
    const std::size_t dec = decimals_marks ? (comma_style ? c.last_comma : c.last_point) : s.size();
    const std::size_t last_group = comma_style ? c.last_point : c.last_comma;
    cell_value out;
    out.what = cell_value::kind::text;
    if (decimals_marks > 1 || (groups && last_group > dec)) return out;  // a second decimal mark, or a group after it
    const bool negative = s[0] == '-';
    std::uint64_t mantissa = 0;
    std::size_t significant = 0;  // digits from the first non-zero one
    std::size_t i = negative ? 1 : 0;
    // Groups: one to three digits, then exactly three after each separator.
    std::size_t run = 0;
    bool grouped = false;
    for (; i < dec; ++i) {
        const char ch = s[i];
        if (ch == group) {
            if (grouped ? run != 3 : run > 3) return out;
            grouped = true;
            run = 0;
            continue;
        }
        mantissa = mantissa * 10 + std::uint64_t(ch - '0');
        significant += mantissa != 0;
        ++run;
    }
    if (grouped && run != 3) return out;
    const std::size_t decimals = dec < s.size() ? s.size() - dec - 1 : 0;
    for (i = dec + 1; i < s.size(); ++i) {
        mantissa = mantissa * 10 + std::uint64_t(s[i] - '0');
        significant += mantissa != 0;
    }
    double v;
    if (significant <= 15 && decimals <= 22) {
        v = double(mantissa) / powers[decimals];
        if (negative) v = -v;
    } else {
        char plain[64];
        std::size_t n = 0;
        for (char ch : s.substr(0, dec))
            if (ch != group) plain[n++] = ch;
        if (dec < s.size()) {
            plain[n++] = '.';
            for (char ch : s.substr(dec + 1)) plain[n++] = ch;
        }
        std::from_chars(plain, plain + n, v);
    }
    if (!std::isfinite(v)) return out;
    out.what = cell_value::kind::number;
    out.number = v;
    return out;
}

}  // namespace

const char* number_style_name(number_style s) {
    switch (s) {
        case number_style::point:
            return "point (1,234.5)";
        case number_style::comma:
            return "comma (1.234,5)";
        default:
            return "unknown";
    }
}

number_style style_evidence(std::string_view token) {
    if (const simple_cell c = simple_shape(token); c.ok) return simple_evidence(c, token.size());
    std::string_view s = aggregate_part(trim(token));
    if (!number_shaped(s)) return number_style::unknown;
    if (s.find_first_of("eE") != std::string_view::npos) return number_style::unknown;
    auto commas = std::count(s.begin(), s.end(), ',');
    auto points = std::count(s.begin(), s.end(), '.');
    if (commas && points) return s.rfind(',') > s.rfind('.') ? number_style::comma : number_style::point;
    if (commas > 1) return number_style::point;
    if (points > 1) return number_style::comma;
    if (commas == 1 || points == 1) {
        char sep = commas ? ',' : '.';
        std::size_t after = s.size() - s.find(sep) - 1;
        if (after == 3) return number_style::unknown;  // "1,056": a group or a decimal
        return sep == '.' ? number_style::point : number_style::comma;
    }
    return number_style::unknown;
}

cell_value read_cell(std::string_view cell, number_style style) {
    if (const simple_cell c = simple_shape(cell); c.ok) return simple_value(cell, c, style);
    cell_value out;
    // The common cell: a plain number, which reads the same in either style unless it has a '.'
    // and the style is comma ("65.77" is then a group separator: the full path decides).
    if (double v; (style != number_style::comma || cell.find('.') == std::string_view::npos) && plain_number(cell, v)) {
        out.what = cell_value::kind::number;
        out.number = v;
        return out;
    }
    std::string_view s = trim(cell);
    std::string_view agg = aggregate_part(s);
    if (is_missing_marker(agg)) return out;  // also "(a; b)": instances with no aggregate
    if (!number_shaped(agg)) {
        out.what = cell_value::kind::text;
        return out;
    }
    char group = style == number_style::comma ? '.' : ',';
    char decimal = style == number_style::comma ? ',' : '.';
    auto dec = agg.find(decimal);
    std::string_view integer = agg.substr(0, dec);
    if (!integer.empty() && (integer[0] == '-' || integer[0] == '+')) integer.remove_prefix(1);
    auto exp = integer.find_first_of("eE");
    if (exp != std::string_view::npos) integer = integer.substr(0, exp);
    if (!groups_valid(integer, group) ||
        (dec != std::string_view::npos && agg.find(decimal, dec + 1) != std::string_view::npos) ||
        (dec != std::string_view::npos && agg.find(group, dec) != std::string_view::npos)) {
        out.what = cell_value::kind::text;
        return out;
    }
    std::string plain;
    plain.reserve(agg.size());
    for (char c : agg) {
        if (c == group) continue;
        plain += c == decimal ? '.' : c;
    }
    const char* b = plain.data() + (plain[0] == '+' ? 1 : 0);
    double v = 0;
    auto res = std::from_chars(b, plain.data() + plain.size(), v);
    if (res.ec != std::errc() || res.ptr != plain.data() + plain.size() || !std::isfinite(v)) {
        out.what = cell_value::kind::text;
        return out;
    }
    out.what = cell_value::kind::number;
    out.number = v;
    return out;
}

void number_reader::observe(std::string_view cell, const std::string& file, std::size_t line, std::size_t column) {
    settle(style_evidence(cell), cell, file, line, column);
}

cell_value number_reader::take(std::string_view cell, const std::string& file, std::size_t line, std::size_t column) {
    const simple_cell c = simple_shape(cell);
    if (!c.ok) {
        observe(cell, file, line, column);
        return read(cell);
    }
    settle(simple_evidence(c, cell.size()), cell, file, line, column);
    return simple_value(cell, c, style_ == number_style::unknown ? number_style::point : style_);
}

void number_reader::settle(number_style e, std::string_view cell, const std::string& file, std::size_t line,
                           std::size_t column) {
    if (e == number_style::unknown) return;
    if (style_ == number_style::unknown) {
        if (assumed_ && e != number_style::point)
            throw input_error(error_code::bad_number, file, line, column,
                              "the value \"" + std::string(cell) + "\" shows decimal commas, but the earlier value \"" +
                                  first_ambiguous_ +
                                  "\" was already read with a decimal point; rerun with --numbers comma");
        style_ = e;
        evidence_where_ = file + ":" + std::to_string(line) + ":" + std::to_string(column);
        return;
    }
    if (e != style_)
        throw input_error(
            error_code::bad_number, file, line, column,
            "the value \"" + std::string(cell) + "\" is written in the " + number_style_name(e) + " style, but " +
                (forced_ ? std::string("--numbers asked for") : "the number at " + evidence_where_ + " fixed") +
                " the " + number_style_name(style_) + " style");
}

void number_reader::note_read_while_unknown(std::string_view cell) {
    if (style_ != number_style::unknown || assumed_) return;
    if (read_cell(cell, number_style::point).what != cell_value::kind::number) return;
    std::string_view s = cell;
    if (s.find_first_of(",.") == std::string_view::npos) return;  // "42" reads the same either way
    assumed_ = true;
    first_ambiguous_ = std::string(cell);
}

}  // namespace roofline
