// Converts the unit strings ncu prints into base units, once, at the edge: durations to ns,
// frequencies to hz, sizes to bytes, every rate to per second. ncu's prefixes are decimal
// (1 Kbyte = 1000 byte; read off dram__bytes.sum.peak_sustained: "1.28 Kbyte/cycle" in the
// auto-unit export against "1,280 byte/cycle" in --print-units base).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace roofline {

struct unit_scale {
    double factor = 1.0;  // multiply a value in the given unit by this
    std::string base;     // the unit after conversion, e.g. "byte/s"
};

// nullopt when the unit is not one the engine knows how to convert.
std::optional<unit_scale> to_base_unit(std::string_view unit);

// What kind of unit a metric must have where its name says ("a duration" for gpu__time_duration.sum,
// "a percentage" for *.pct*, "bytes" for *bytes*.sum, "a rate" for *.per_second), when `unit`
// (converted) is not of that kind: a units row shifted against its header, or missing. nullopt when
// the unit fits or the name says nothing (ncu's derived__ metrics, whose units follow no rule).
std::optional<std::string> unit_mismatch(std::string_view metric, const unit_scale& unit);

}  // namespace roofline
