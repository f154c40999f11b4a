// How every JSON output writes a number. A count that is whole up to a double's rounding noise is
// written as that integer (67112959.99999359 -> 67112960: bytes and FLOPs are sums of counters); any
// other value at six significant digits (0.8490000000000001 -> 0.849; ncu's counters carry no more),
// as an integer where that is one. NaN and infinities are null. A template on the JSON type, so this
// header needs no JSON library: json_number<nlohmann::ordered_json>(v).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>

namespace roofline {

template <class Json>
Json json_number(double v) {
    if (!std::isfinite(v)) return nullptr;
    constexpr double exact = 9007199254740992.0;  // 2^53: every integer below it is a double
    const double whole = std::round(v);
    if (std::fabs(v) >= 1 && std::fabs(whole) < exact && std::fabs(v - whole) <= 1e-9 * std::fabs(v))
        return static_cast<std::int64_t>(whole);
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
    double r = v;
    if (ec == std::errc()) std::from_chars(buf, end, r);
    if (std::fabs(r) < exact && r == std::floor(r)) return static_cast<std::int64_t>(r);
    return r;
}

}  // namespace roofline
