#include "analyzer/base/format.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace roofline {
namespace {

// The value at three significant digits, so a prefix is chosen after rounding (999.6 k is 1.00 M).
double round3(double v) {
    if (!std::isfinite(v) || v == 0) return v;
    const std::string t = significant(v, 3);
    double r = v;
    std::from_chars(t.data(), t.data() + t.size(), r);  // no locale, unlike std::stod
    return r;
}

// Three significant digits without an exponent; 0 is "0". Under 1e-6 (no report shows such a
// value without a unit prefix) the exponent form is kept rather than a run of zeros.
std::string three_digits(double v) {
    if (v == 0) return "0";
    if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
    const double r = round3(v);
    const double a = std::fabs(r);
    if (a >= 100) return decimals(r, 0);
    if (a >= 10) return decimals(r, 1);
    if (a >= 1) return decimals(r, 2);
    if (a < 1e-6) return significant(r, 3);
    return decimals(r, 2 - int(std::floor(std::log10(a))));
}

struct prefix {
    double f;
    const char* p;
};
constexpr prefix prefixes[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};

// Three significant digits with an SI prefix from k up: (16389, " ") -> "16.4 k".
std::string with_prefix(double value, const char* gap) {
    const double r = round3(value);
    for (const auto& p : prefixes)
        if (std::fabs(r) >= p.f) return three_digits(r / p.f) + gap + p.p;
    return three_digits(r);
}

}  // namespace

// {fmt} writes no locale and exact digits (printf's %.Nf and %.Ng rounding of the binary value), as
// std::to_chars did; it also spells non-finite values the same way.
std::string decimals(double v, int places) { return fmt::format("{:.{}f}", v, places); }
std::string significant(double v, int digits) { return fmt::format("{:.{}g}", v, digits); }
std::string signed_decimals(double v, int places) {
    return (std::signbit(v) || std::isnan(v) ? "" : "+") + decimals(v, places);
}

std::string format_duration_ns(double ns) {
    const double r = round3(ns);
    if (std::fabs(r) >= 1e9) return three_digits(r / 1e9) + " s";
    if (std::fabs(r) >= 1e6) return three_digits(r / 1e6) + " ms";
    if (std::fabs(r) >= 1e3) return three_digits(r / 1e3) + " us";
    return three_digits(r) + " ns";
}

std::string format_si(double value, const std::string& unit) {
    std::string t = with_prefix(value, " ");
    // "118 MB" but "3.00 B": the prefix and the unit share the space.
    return t.back() >= 'A' ? t + unit : t + " " + unit;
}

std::string format_percent(double fraction) { return decimals(fraction * 100.0, 1) + "%"; }

std::string format_number(double v) {
    // A count under a thousand is written whole: "4 blocks", not "4.00 blocks".
    if (std::fabs(v) < 1000 && v == std::floor(v)) return decimals(v, 0);
    return with_prefix(v, "");
}

std::string format_times(double v) { return decimals(v, v >= 10 ? 1 : 2) + "x"; }

}  // namespace roofline
