#include "analyzer/base/format.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace roofline {
namespace {

// The value at three significant digits, so a prefix is chosen after rounding (999.6 k is 1.00 M).
double round3(double value) {
    if (!std::isfinite(value) || value == 0) return value;
    const std::string text = significant(value, 3);
    double rounded = value;
    std::from_chars(text.data(), text.data() + text.size(), rounded);  // no locale, unlike std::stod
    return rounded;
}

// Three significant digits without an exponent; 0 is "0". Under 1e-6 (no report shows such a
// value without a unit prefix) the exponent form is kept rather than a run of zeros.
std::string three_digits(double value) {
    if (value == 0) return "0";
    if (!std::isfinite(value)) return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
    const double rounded = round3(value);
    const double magnitude = std::fabs(rounded);
    if (magnitude >= 100) return decimals(rounded, 0);
    if (magnitude >= 10) return decimals(rounded, 1);
    if (magnitude >= 1) return decimals(rounded, 2);
    if (magnitude < 1e-6) return significant(rounded, 3);
    return decimals(rounded, 2 - int(std::floor(std::log10(magnitude))));
}

struct prefix {
    double factor;
    const char* symbol;
};
constexpr prefix prefixes[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};

// Three significant digits with an SI prefix from k up: (16389, " ") -> "16.4 k".
std::string with_prefix(double value, const char* gap) {
    const double rounded = round3(value);
    for (const auto& scale : prefixes)
        if (std::fabs(rounded) >= scale.factor) return three_digits(rounded / scale.factor) + gap + scale.symbol;
    return three_digits(rounded);
}

}  // namespace

// {fmt} writes no locale and exact digits (printf's %.Nf and %.Ng rounding of the binary value), as
// std::to_chars did; it also spells non-finite values the same way.
std::string decimals(double value, int places) { return fmt::format("{:.{}f}", value, places); }
std::string significant(double value, int digits) { return fmt::format("{:.{}g}", value, digits); }
std::string signed_decimals(double value, int places) {
    return (std::signbit(value) || std::isnan(value) ? "" : "+") + decimals(value, places);
}

std::string format_duration_ns(double ns) {
    const double rounded = round3(ns);
    if (std::fabs(rounded) >= 1e9) return three_digits(rounded / 1e9) + " s";
    if (std::fabs(rounded) >= 1e6) return three_digits(rounded / 1e6) + " ms";
    if (std::fabs(rounded) >= 1e3) return three_digits(rounded / 1e3) + " us";
    return three_digits(rounded) + " ns";
}

std::string format_si(double value, const std::string& unit) {
    std::string text = with_prefix(value, " ");
    // "118 MB" but "3.00 B": the prefix and the unit share the space.
    return text.back() >= 'A' ? text + unit : text + " " + unit;
}

std::string format_percent(double fraction) { return decimals(fraction * 100.0, 1) + "%"; }

std::string format_number(double value) {
    // A count under a thousand is written whole: "4 blocks", not "4.00 blocks".
    if (std::fabs(value) < 1000 && value == std::floor(value)) return decimals(value, 0);
    return with_prefix(value, "");
}

std::string format_times(double value) { return decimals(value, value >= 10 ? 1 : 2) + "x"; }

}  // namespace roofline
