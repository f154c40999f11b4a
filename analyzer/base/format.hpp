// The one number formatter: every number the engine writes goes through these, so the same value
// prints the same text on every machine ({fmt}: no locale, exact shortest or fixed-precision digits).
#pragma once

#include <string>

namespace roofline {

std::string decimals(double value, int places);         // "{:.Nf}": (1.5, 2) -> "1.50"
std::string significant(double value, int digits);      // "{:.Ng}": (0.000123456, 3) -> "0.000123"
std::string signed_decimals(double value, int places);  // "{:+.Nf}": (12.3, 0) -> "+12"

// The report's one number style: three significant digits, SI prefixes, no exponent (0 is "0").
std::string format_duration_ns(double ns);                     // "182 us", "3.46 ms", "0 ns"
std::string format_si(double value, const std::string& unit);  // "2.84 TB/s", "53.2 TFLOP/s", "518 MB", "0.150 B"
std::string format_percent(double fraction);                   // 0.853 -> "85.3%"
// A plain number: 16389 -> "16.4k", 1.13e6 -> "1.13M", 0.15 -> "0.150", 0.00081 -> "0.000810", 4 -> "4".
std::string format_number(double value);
std::string format_times(double value);  // a speedup: "1.87x", "12.2x" (one decimal from 10x)

}  // namespace roofline
