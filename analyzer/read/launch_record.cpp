#include "analyzer/read/launch_record.hpp"

#include <charconv>

namespace roofline {

std::optional<launch_dims> parse_launch_dims(std::string_view text) {
    // "(x, y, z)": three non-negative integers, ", " between them, in parentheses.
    if (text.size() < 7 || text.front() != '(' || text.back() != ')') return std::nullopt;
    std::string_view rest = text.substr(1, text.size() - 2);
    launch_dims parsed;
    for (std::size_t i = 0; i < 3; ++i) {
        auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), parsed.xyz[i]);
        if (ec != std::errc() || parsed.xyz[i] < 0) return std::nullopt;
        rest.remove_prefix(std::size_t(end - rest.data()));
        if (i < 2) {
            if (rest.substr(0, 2) != ", ") return std::nullopt;
            rest.remove_prefix(2);
        }
    }
    if (!rest.empty()) return std::nullopt;
    return parsed;
}

std::string to_string(const launch_dims& shape) {
    return "(" + std::to_string(shape.xyz[0]) + ", " + std::to_string(shape.xyz[1]) + ", " +
           std::to_string(shape.xyz[2]) + ")";
}

}  // namespace roofline
