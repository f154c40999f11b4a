#include "analyzer/read/metric_keys.hpp"

#include "analyzer/read/kernel_table.hpp"

#include <deque>
#include <unordered_map>
#include <vector>

namespace roofline {
namespace {

struct interner {
    std::deque<std::string> names;  // stable addresses: the map's keys view into them
    std::unordered_map<std::string_view, metric_key> index;
    std::vector<bool> additive;
};

interner& table() {
    static interner t;
    return t;
}

}  // namespace

metric_key intern_metric(std::string_view id) {
    interner& t = table();
    if (auto it = t.index.find(id); it != t.index.end()) return it->second;
    const auto k = metric_key(t.names.size());
    t.names.emplace_back(id);
    t.index.emplace(t.names.back(), k);
    t.additive.push_back(metric_is_additive(t.names.back()));
    return k;
}

const std::string& metric_name(metric_key k) { return table().names.at(k); }
std::size_t metric_key_count() { return table().names.size(); }
bool metric_key_is_additive(metric_key k) { return table().additive.at(k); }

}  // namespace roofline
