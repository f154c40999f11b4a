// How every JSON output writes a number. A count that is whole up to a double's rounding noise is
// written as that integer (67112959.99999359 -> 67112960: bytes and FLOPs are sums of counters); any
// other value at six significant digits (0.8490000000000001 -> 0.849; ncu's counters carry no more),
// as an integer where that is one. NaN and infinities are null. A template on the JSON type, so this
// header needs no JSON library: json_number<nlohmann::ordered_json>(v).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <system_error>

namespace roofline {

template <class Json>
Json json_number(double value) {
    if (!std::isfinite(value)) return nullptr;
    constexpr double exact = 9007199254740992.0;  // 2^53: every integer below it is a double
    const double whole = std::round(value);
    if (std::fabs(value) >= 1 && std::fabs(whole) < exact && std::fabs(value - whole) <= 1e-9 * std::fabs(value))
        return static_cast<std::int64_t>(whole);
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, 6);
    double six_digits = value;
    if (ec == std::errc()) std::from_chars(buf, end, six_digits);
    if (std::fabs(six_digits) < exact && six_digits == std::floor(six_digits))
        return static_cast<std::int64_t>(six_digits);
    return six_digits;
}

// How every JSON output is written out: two-space indent, and bytes that are not UTF-8 (a kernel name
// from a capture, a path) replaced by U+FFFD rather than thrown on. One function for every command.
template <class Json>
std::string json_text(const Json& value) {
    return value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace roofline
