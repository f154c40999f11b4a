// Metric ids interned once per process: the reader resolves a column (or a details-page metric name)
// to a small integer once, and every cell after that is a store into a flat array, not a map insert
// with a string key. The names stay available for every later stage. Thread-safe: analyses on several
// threads share the table (a key, once made, never changes; a name's address never moves).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace roofline {

using metric_key = std::uint32_t;

// The key of a metric id, made on first sight.
metric_key intern_metric(std::string_view id);
// The key of an id already seen, without making one.
std::optional<metric_key> find_metric_key(std::string_view id);
const std::string& metric_name(metric_key key);
// How many keys exist: every key is below it.
std::size_t metric_key_count();
// Whether the metric adds up over launches (a counter) or is averaged (a rate or ratio), decided
// once per key (kernel_table.hpp says how).
bool metric_key_is_additive(metric_key key);
// The metrics some stage reads (engine_reads(), the metric catalogue) are numbered 0.. in order of
// first sight: the kernel table keeps one slot per such metric and no other. -1: no stage reads it.
int metric_read_index(metric_key key);
std::size_t metric_read_count();
metric_key metric_read_key(std::size_t read_index);

}  // namespace roofline
