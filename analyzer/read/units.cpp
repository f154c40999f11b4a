#include "analyzer/read/units.hpp"

#include <array>
#include <utility>

namespace roofline {
namespace {

struct term {
    double factor;
    std::string base;
    bool is_time;
};

// Time terms convert to ns as a quantity and to s under a '/' (rates are per second).
std::optional<term> time_term(std::string_view unit_word) {
    static const std::array<std::pair<std::string_view, double>, 12> ns_per = {{
        {"ns", 1.0},
        {"nsecond", 1.0},
        {"us", 1e3},
        {"usecond", 1e3},
        {"ms", 1e6},
        {"msecond", 1e6},
        {"s", 1e9},
        {"second", 1e9},
        {"sec", 1e9},
        {"nsec", 1.0},
        {"usec", 1e3},
        {"msec", 1e6},
    }};
    for (auto& [name, factor] : ns_per)
        if (unit_word == name) return term{factor, "ns", true};
    return std::nullopt;
}

std::optional<term> plain_term(std::string_view unit_word) {
    // Prefixed families: byte and hz take K/M/G/T (and P for bytes).
    static const std::array<std::pair<char, double>, 5> prefixes = {{
        {'K', 1e3},
        {'M', 1e6},
        {'G', 1e9},
        {'T', 1e12},
        {'P', 1e15},
    }};
    auto with_prefix = [&](std::string_view word, std::string_view base) -> std::optional<term> {
        if (word == base) return term{1.0, std::string(base), false};
        if (word.size() == base.size() + 1 && word.substr(1) == base)
            for (auto& [prefix, factor] : prefixes)
                if (word[0] == prefix || word[0] == char(prefix - 'A' + 'a'))
                    return term{factor, std::string(base), false};
        return std::nullopt;
    };
    if (auto found = with_prefix(unit_word, "byte")) return found;
    if (auto found = with_prefix(unit_word, "hz")) return found;
    if (unit_word == "bytes") return term{1.0, "byte", false};
    if (unit_word == "sectors") return term{1.0, "sector", false};
    if (unit_word == "%") return term{1.0, "%", false};
    // Units that are already counts: keep them as they are.
    static const std::array<std::string_view, 18> counts = {
        "cycle",   "inst",     "sector", "request", "warp",      "thread",      "block",     "register", "SM",
        "cluster", "branches", "pass",   "sample",  "wavefront", "instruction", "operation", "op",       "ops",
    };
    for (auto count_unit : counts)
        if (unit_word == count_unit) return term{1.0, std::string(unit_word), false};
    return std::nullopt;
}

std::optional<term> any_term(std::string_view unit_word) {
    if (auto found = time_term(unit_word)) return found;
    return plain_term(unit_word);
}

}  // namespace

std::optional<unit_scale> to_base_unit(std::string_view unit) {
    if (unit.empty()) return unit_scale{1.0, ""};
    auto slash = unit.find('/');
    if (slash == std::string_view::npos) {
        auto found = any_term(unit);
        if (!found) return std::nullopt;
        return unit_scale{found->factor, found->base};
    }
    auto num = any_term(unit.substr(0, slash));
    auto den = any_term(unit.substr(slash + 1));
    if (!num || !den) return std::nullopt;
    // Per ns becomes per s; a time numerator stays in ns ("ns/inst" style units).
    const double factor = num->factor / (den->is_time ? den->factor / 1e9 : den->factor);
    return unit_scale{factor, num->base + (den->is_time ? std::string("/s") : "/" + den->base)};
}

std::optional<std::string> unit_mismatch(std::string_view metric, const unit_scale& unit) {
    auto has = [&](std::string_view part) { return metric.find(part) != std::string_view::npos; };
    auto ends = [&](std::string_view tail) {
        return metric.size() >= tail.size() && metric.substr(metric.size() - tail.size()) == tail;
    };
    const std::string& base = unit.base;
    // ncu's derived__ metrics carry units of their own making ("Tbyte" for
    // derived__lts__lts2xbar_bytes.sum.per_second): their names promise nothing.
    if (metric.rfind("derived__", 0) == 0) return std::nullopt;
    if (ends(".per_second")) {
        if (base.find("/s") == std::string::npos && base != "hz") return "a rate (per second)";
        return std::nullopt;
    }
    if (has("__time_duration") && base != "ns") return "a duration";
    if (has(".pct") && base != "%") return "a percentage";
    if (has("bytes") && ends(".sum") && !has(".sum.") && base != "byte") return "bytes";
    return std::nullopt;
}

}  // namespace roofline
