#include "analyzer/read/metric_values.hpp"

#include <algorithm>
#include <stdexcept>

namespace roofline {
namespace {

bool key_less(const std::pair<metric_key, double>& entry, metric_key key) { return entry.first < key; }

thread_local metric_read_log* innermost_log = nullptr;
thread_local metric_miss_log* innermost_miss_log = nullptr;

}  // namespace

metric_read_log::metric_read_log() : outer_(innermost_log) { innermost_log = this; }
metric_read_log::~metric_read_log() { innermost_log = outer_; }
void metric_read_log::note(std::string_view id) {
    for (metric_read_log* log = innermost_log; log; log = log->outer_) log->ids_.emplace(id);
}

metric_values::metric_values(std::initializer_list<std::pair<std::string_view, double>> values) {
    for (const auto& [id, value] : values) (*this)[id] = value;
}

metric_values::metric_values(const std::map<std::string, double>& values) {
    for (const auto& [id, value] : values) (*this)[id] = value;
}

metric_miss_log::metric_miss_log() : outer_(innermost_miss_log) { innermost_miss_log = this; }
metric_miss_log::~metric_miss_log() { innermost_miss_log = outer_; }

std::optional<double> metric_values::find(std::string_view id) const {
    metric_read_log::note(id);
    auto value = peek(id);
    if (!value)
        for (metric_miss_log* log = innermost_miss_log; log; log = log->outer_)
            if (std::find(log->ids_.begin(), log->ids_.end(), id) == log->ids_.end()) log->ids_.emplace_back(id);
    return value;
}

std::optional<double> metric_values::peek(std::string_view id) const {
    const auto key = find_metric_key(id);
    if (!key) return std::nullopt;
    auto it = std::lower_bound(entries_.begin(), entries_.end(), *key, key_less);
    if (it == entries_.end() || it->first != *key) return std::nullopt;
    return it->second;
}

double metric_values::at(std::string_view id) const {
    if (auto value = find(id)) return *value;
    throw std::out_of_range("metric_values::at: no " + std::string(id));
}

double& metric_values::operator[](std::string_view id) {
    const metric_key key = intern_metric(id);
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key, key_less);
    if (it == entries_.end() || it->first != key) it = entries_.insert(it, {key, 0.0});
    return it->second;
}

void metric_values::erase(std::string_view id) {
    const auto key = find_metric_key(id);
    if (!key) return;
    auto it = std::lower_bound(entries_.begin(), entries_.end(), *key, key_less);
    if (it != entries_.end() && it->first == *key) entries_.erase(it);
}

void metric_values::set(metric_key key, double value) {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key, key_less);
    if (it == entries_.end() || it->first != key)
        entries_.insert(it, {key, value});
    else
        it->second = value;
}

}  // namespace roofline
