// Human-readable quantities for reports: SI prefixes, fixed significant digits, so the same
// numbers always print the same text.
#pragma once

#include <string>

namespace roofline {

std::string format_duration_ns(double ns);               // "182.3 us"
std::string format_si(double value, const std::string& unit);  // "2.84 TB/s", "53.2 TFLOP/s", "518 MB"
std::string format_percent(double fraction);              // 0.853 -> "85.3%"
std::string format_number(double v);                      // "%.3g"-like, no exponent below 1e6
std::string format_fixed(const char* printf_format, double v);  // one number through a printf format: ("%.2f", 1.5) -> "1.50"

}  // namespace roofline
