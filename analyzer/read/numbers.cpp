#include "analyzer/read/numbers.hpp"

#include "analyzer/base/input_error.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace roofline {
namespace {

constexpr bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

// The aggregate of a metric-instance cell: the text before " (".
std::string_view aggregate_part(std::string_view text) {
    auto paren = text.find('(');
    if (paren != std::string_view::npos) text = text.substr(0, paren);
    return trim(text);
}

bool is_missing_marker(std::string_view text) {
    if (text.empty()) return true;
    if (std::isdigit(static_cast<unsigned char>(text[0]))) return false;  // most cells: a number
    auto is = [&](std::string_view marker) {
        return text.size() == marker.size() &&
               std::equal(text.begin(), text.end(), marker.begin(), [](char cell_ch, char marker_ch) {
                   return std::tolower(static_cast<unsigned char>(cell_ch)) == marker_ch;
               });
    };
    return is("n/a") || is("nan") || is("-nan") || is("no data") || is("-") || is("none");
}

// A plain decimal number ("182336", "0.182336", "-2", "1e-05"): no group separator, no instances,
// no spaces. Read straight from the text; anything else takes the full path.
bool plain_number(std::string_view text, double& value) {
    if (text.empty() || text.size() > 64) return false;
    for (char ch : text)
        if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == 'e' || ch == 'E'))
            return false;
    if (!std::isdigit(static_cast<unsigned char>(text[0])) &&
        !(text[0] == '-' && text.size() > 1 && std::isdigit(static_cast<unsigned char>(text[1]))))
        return false;
    auto res = std::from_chars(text.data(), text.data() + text.size(), value);
    return res.ec == std::errc() && res.ptr == text.data() + text.size() && std::isfinite(value);
}

// Digits and separators with an optional sign and exponent: the shape of a number.
bool number_shaped(std::string_view text) {
    if (text.empty()) return false;
    std::size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
    bool digit = false;
    for (; i < text.size(); ++i) {
        char ch = text[i];
        if (std::isdigit(static_cast<unsigned char>(ch)))
            digit = true;
        else if (ch == ',' || ch == '.')
            continue;
        else if ((ch == 'e' || ch == 'E') && digit) {
            std::size_t j = i + 1;
            if (j < text.size() && (text[j] == '-' || text[j] == '+')) ++j;
            if (j == text.size()) return false;
            for (; j < text.size(); ++j)
                if (!std::isdigit(static_cast<unsigned char>(text[j]))) return false;
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

simple_cell simple_shape(std::string_view text) {
    simple_cell shape;
    const std::size_t first = !text.empty() && text[0] == '-' ? 1 : 0;
    if (text.size() <= first || text.size() > 64 || !is_digit(text[first]) || !is_digit(text.back())) return shape;
    for (std::size_t i = first + 1; i < text.size(); ++i) {
        const char ch = text[i];
        if (is_digit(ch)) continue;
        if (ch == ',') {
            ++shape.commas;
            shape.last_comma = i;
        } else if (ch == '.') {
            ++shape.points;
            shape.last_point = i;
        } else {
            return shape;
        }
    }
    shape.ok = true;
    return shape;
}

// style_evidence() for a simple cell (it has no exponent, space or instance list).
number_style simple_evidence(const simple_cell& shape, std::size_t size) {
    if (shape.commas && shape.points)
        return shape.last_comma > shape.last_point ? number_style::comma : number_style::point;
    if (shape.commas > 1) return number_style::point;
    if (shape.points > 1) return number_style::comma;
    if (shape.commas == 1 || shape.points == 1) {
        const std::size_t after = size - (shape.commas ? shape.last_comma : shape.last_point) - 1;
        if (after == 3) return number_style::unknown;  // "1,056": a group or a decimal
        return shape.commas ? number_style::comma : number_style::point;
    }
    return number_style::unknown;
}

// read_cell() for a simple cell: groups of three digits before at most one decimal mark. The digits
// are gathered as an integer on the way; where they fit in 53 bits and the scale is at most 10^22,
// both are exact doubles and one IEEE division rounds correctly (Clinger's fast path), which is
// std::from_chars's result; other cells go through std::from_chars.
cell_value simple_value(std::string_view text, const simple_cell& shape, number_style style) {
    static constexpr double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const bool comma_style = style == number_style::comma;
    const char group = comma_style ? '.' : ',';
    const std::size_t decimals_marks = comma_style ? shape.commas : shape.points;
    const std::size_t groups = comma_style ? shape.points : shape.commas;
    const std::size_t dec = decimals_marks ? (comma_style ? shape.last_comma : shape.last_point) : text.size();
    const std::size_t last_group = comma_style ? shape.last_point : shape.last_comma;
    cell_value out;
    out.what = cell_value::kind::text;
    if (decimals_marks > 1 || (groups && last_group > dec)) return out;  // a second decimal mark, or a group after it
    const bool negative = text[0] == '-';
    std::uint64_t mantissa = 0;
    std::size_t significant = 0;  // digits from the first non-zero one
    std::size_t i = negative ? 1 : 0;
    // Groups: one to three digits, then exactly three after each separator.
    std::size_t run = 0;
    bool grouped = false;
    for (; i < dec; ++i) {
        const char ch = text[i];
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
    const std::size_t decimals = dec < text.size() ? text.size() - dec - 1 : 0;
    for (i = dec + 1; i < text.size(); ++i) {
        mantissa = mantissa * 10 + std::uint64_t(text[i] - '0');
        significant += mantissa != 0;
    }
    double value;
    if (significant <= 15 && decimals <= 22) {
        value = double(mantissa) / powers[decimals];
        if (negative) value = -value;
    } else {
        char plain[64];
        std::size_t length = 0;
        for (char ch : text.substr(0, dec))
            if (ch != group) plain[length++] = ch;
        if (dec < text.size()) {
            plain[length++] = '.';
            for (char ch : text.substr(dec + 1)) plain[length++] = ch;
        }
        std::from_chars(plain, plain + length, value);
    }
    if (!std::isfinite(value)) return out;
    out.what = cell_value::kind::number;
    out.number = value;
    return out;
}

}  // namespace

const char* number_style_name(number_style style) {
    switch (style) {
        case number_style::point:
            return "point (1,234.5)";
        case number_style::comma:
            return "comma (1.234,5)";
        default:
            return "unknown";
    }
}

number_style style_evidence(std::string_view token) {
    if (const simple_cell shape = simple_shape(token); shape.ok) return simple_evidence(shape, token.size());
    std::string_view aggregate = aggregate_part(trim(token));
    if (!number_shaped(aggregate)) return number_style::unknown;
    if (aggregate.find_first_of("eE") != std::string_view::npos) return number_style::unknown;
    auto commas = std::count(aggregate.begin(), aggregate.end(), ',');
    auto points = std::count(aggregate.begin(), aggregate.end(), '.');
    if (commas && points)
        return aggregate.rfind(',') > aggregate.rfind('.') ? number_style::comma : number_style::point;
    if (commas > 1) return number_style::point;
    if (points > 1) return number_style::comma;
    if (commas == 1 || points == 1) {
        char sep = commas ? ',' : '.';
        std::size_t after = aggregate.size() - aggregate.find(sep) - 1;
        if (after == 3) return number_style::unknown;  // "1,056": a group or a decimal
        return sep == '.' ? number_style::point : number_style::comma;
    }
    return number_style::unknown;
}

cell_value read_cell(std::string_view cell, number_style style) {
    if (const simple_cell shape = simple_shape(cell); shape.ok) return simple_value(cell, shape, style);
    cell_value out;
    // The common cell: a plain number, which reads the same in either style unless it has a '.'
    // and the style is comma ("65.77" is then a group separator: the full path decides).
    if (double value;
        (style != number_style::comma || cell.find('.') == std::string_view::npos) && plain_number(cell, value)) {
        out.what = cell_value::kind::number;
        out.number = value;
        return out;
    }
    std::string_view trimmed = trim(cell);
    std::string_view agg = aggregate_part(trimmed);
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
    for (char ch : agg) {
        if (ch == group) continue;
        plain += ch == decimal ? '.' : ch;
    }
    const char* start = plain.data() + (plain[0] == '+' ? 1 : 0);
    double value = 0;
    auto res = std::from_chars(start, plain.data() + plain.size(), value);
    if (res.ec != std::errc() || res.ptr != plain.data() + plain.size() || !std::isfinite(value)) {
        out.what = cell_value::kind::text;
        return out;
    }
    out.what = cell_value::kind::number;
    out.number = value;
    return out;
}

void number_reader::observe(std::string_view cell, const std::string& file, std::size_t line, std::size_t column) {
    settle(style_evidence(cell), cell, file, line, column);
}

cell_value number_reader::take(std::string_view cell, const std::string& file, std::size_t line, std::size_t column) {
    const simple_cell shape = simple_shape(cell);
    if (!shape.ok) {
        observe(cell, file, line, column);
        return read(cell);
    }
    settle(simple_evidence(shape, cell.size()), cell, file, line, column);
    return simple_value(cell, shape, style_ == number_style::unknown ? number_style::point : style_);
}

void number_reader::settle(number_style evidence, std::string_view cell, const std::string& file, std::size_t line,
                           std::size_t column) {
    if (evidence == number_style::unknown) return;
    if (style_ == number_style::unknown) {
        if (assumed_ && evidence != number_style::point)
            throw input_error(error_code::bad_number, file, line, column,
                              "the value \"" + std::string(cell) + "\" shows decimal commas, but the earlier value \"" +
                                  first_ambiguous_ +
                                  "\" was already read with a decimal point; rerun with --numbers comma");
        style_ = evidence;
        evidence_where_ = file + ":" + std::to_string(line) + ":" + std::to_string(column);
        return;
    }
    if (evidence != style_)
        throw input_error(
            error_code::bad_number, file, line, column,
            "the value \"" + std::string(cell) + "\" is written in the " + number_style_name(evidence) +
                " style, but " +
                (forced_ ? std::string("--numbers asked for") : "the number at " + evidence_where_ + " fixed") +
                " the " + number_style_name(style_) + " style");
}

void number_reader::note_read_while_unknown(std::string_view cell) {
    if (style_ != number_style::unknown || assumed_) return;
    if (read_cell(cell, number_style::point).what != cell_value::kind::number) return;
    std::string_view text = cell;
    if (text.find_first_of(",.") == std::string_view::npos) return;  // "42" reads the same either way
    assumed_ = true;
    first_ambiguous_ = std::string(cell);
}

}  // namespace roofline
