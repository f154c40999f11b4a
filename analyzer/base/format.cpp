#include "analyzer/base/format.hpp"

#include <charconv>
#include <cmath>

namespace roofline {
namespace {

std::string chars(double v, std::chars_format f, int precision) {
    char buf[400];  // %.Nf of 1e308 needs 309 digits before the point
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, f, precision);
    if (ec != std::errc()) return "?";
    return std::string(buf, end);
}

// Three significant digits without an exponent.
std::string three_digits(double v) {
    double a = std::fabs(v);
    if (a >= 100) return fixed(v, 0);
    if (a >= 10) return fixed(v, 1);
    return fixed(v, 2);
}

}  // namespace

std::string fixed(double v, int decimals) { return chars(v, std::chars_format::fixed, decimals); }
std::string general(double v, int significant) { return chars(v, std::chars_format::general, significant); }
std::string signed_fixed(double v, int decimals) { return (std::signbit(v) || std::isnan(v) ? "" : "+") + fixed(v, decimals); }

std::string format_duration_ns(double ns) {
    if (ns >= 1e9) return three_digits(ns / 1e9) + " s";
    if (ns >= 1e6) return three_digits(ns / 1e6) + " ms";
    if (ns >= 1e3) return three_digits(ns / 1e3) + " us";
    return three_digits(ns) + " ns";
}

std::string format_si(double value, const std::string& unit) {
    static const struct {
        double f;
        const char* p;
    } prefixes[] = {
        {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"},
    };
    for (const auto& p : prefixes)
        if (std::fabs(value) >= p.f) return three_digits(value / p.f) + " " + p.p + unit;
    return three_digits(value) + " " + unit;
}

std::string format_percent(double fraction) { return fixed(fraction * 100.0, 1) + "%"; }

std::string format_number(double v) {
    if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) return general(v, 3);
    return three_digits(v);
}

std::string format_times(double v) { return fixed(v, v >= 10 ? 1 : 2) + "x"; }

}  // namespace roofline
