// One kernel's metrics, by interned key (metric_keys.hpp), in a sorted flat array: about 2 KB for
// the ~150 metrics the engine reads, where a map from names took some 20 KB (a node and a name
// string per metric). Looked up by name like a map.
#pragma once

#include "analyzer/read/metric_keys.hpp"

#include <cstddef>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofline {

// While one is alive, every id looked up by metric_values::find() on this thread is added to its set:
// `roofline metrics` runs the model and the rule trees over a kernel holding every metric, to learn
// which metrics each of them reads (analyzer/diagnose/metric_plan.cpp). Nested logs all record.
class metric_read_log {
public:
    metric_read_log();
    ~metric_read_log();
    metric_read_log(const metric_read_log&) = delete;
    metric_read_log& operator=(const metric_read_log&) = delete;
    const std::set<std::string>& ids() const { return ids_; }
    // Records a read that does not go through find() (a walk over entries() that picks metrics by name).
    static void note(std::string_view id);

private:
    friend class metric_values;
    std::set<std::string> ids_;
    metric_read_log* outer_;
};

// While one is alive, every id metric_values::find() on this thread looks up and does not find is added
// to its set: a derived value that comes out unknown names the metrics it lacked
// (analyzer/diagnose/kernel_facts.cpp). Nested logs all record.
class metric_miss_log {
public:
    metric_miss_log();
    ~metric_miss_log();
    metric_miss_log(const metric_miss_log&) = delete;
    metric_miss_log& operator=(const metric_miss_log&) = delete;
    const std::vector<std::string>& ids() const { return ids_; }  // in order of first miss

private:
    friend class metric_values;
    std::vector<std::string> ids_;
    metric_miss_log* outer_;
};

class metric_values {
public:
    metric_values() = default;
    metric_values(std::initializer_list<std::pair<std::string_view, double>> values);
    metric_values(const std::map<std::string, double>& values);  // NOLINT: as a map converts, for tests and tools

    std::optional<double> find(std::string_view id) const;
    // As find(), without recording the read in a metric_read_log: for the reader's own bookkeeping
    // (mapping a chip's names onto catalogue ids), which no stage's plan should count.
    std::optional<double> peek(std::string_view id) const;
    // The value; std::out_of_range when the kernel lacks the metric.
    double at(std::string_view id) const;
    std::size_t count(std::string_view id) const { return find(id) ? 1 : 0; }
    // The value, made 0 if the kernel lacked it, as std::map's operator[].
    double& operator[](std::string_view id);
    void set(metric_key key, double value);
    void erase(std::string_view id);
    std::size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    // (key, value) in key order: metric_name(key) gives the name.
    const std::vector<std::pair<metric_key, double>>& entries() const { return entries_; }

private:
    std::vector<std::pair<metric_key, double>> entries_;  // sorted by key
};

}  // namespace roofline
