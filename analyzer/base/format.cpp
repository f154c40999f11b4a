#include "analyzer/base/format.hpp"

#include <cmath>
#include <cstdio>

namespace roofline {

namespace {
std::string printf_str(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}
// Three significant digits without an exponent.
std::string three_digits(double v) {
    double a = std::fabs(v);
    if (a >= 100) return printf_str("%.0f", v);
    if (a >= 10) return printf_str("%.1f", v);
    return printf_str("%.2f", v);
}
}  // namespace

std::string format_duration_ns(double ns) {
    if (ns >= 1e9) return three_digits(ns / 1e9) + " s";
    if (ns >= 1e6) return three_digits(ns / 1e6) + " ms";
    if (ns >= 1e3) return three_digits(ns / 1e3) + " us";
    return three_digits(ns) + " ns";
}

std::string format_si(double value, const std::string& unit) {
    static const struct { double f; const char* p; } prefixes[] = {
        {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"},
    };
    for (const auto& p : prefixes)
        if (std::fabs(value) >= p.f) return three_digits(value / p.f) + " " + p.p + unit;
    return three_digits(value) + " " + unit;
}

std::string format_percent(double fraction) { return printf_str("%.1f%%", fraction * 100.0); }

std::string format_number(double v) {
    if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) return printf_str("%.3g", v);
    return three_digits(v);
}

std::string format_fixed(const char* printf_format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, printf_format, v);
    return buf;
}

}  // namespace roofline
