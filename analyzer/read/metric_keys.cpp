#include "analyzer/read/metric_keys.hpp"

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/read/kernel_table.hpp"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace roofline {
namespace {

// One table for the process, shared by every analysis on every thread: interning takes the lock alone,
// every lookup shares it. The names live in a deque, so a name handed out stays where it is while
// later names are added.
struct interner {
    std::shared_mutex lock;
    std::deque<std::string> names;  // stable addresses: the map's keys view into them
    std::unordered_map<std::string_view, metric_key> index;
    std::vector<bool> additive;
    std::vector<int> read_index;
    std::vector<metric_key> read_keys;
};

interner& table() {
    static interner t;
    return t;
}

// A lookup under the table's shared lock (a name's reference stays valid after: the deque never moves it).
template <class Lookup>
decltype(auto) read_table(Lookup&& lookup) {
    interner& t = table();
    std::shared_lock<std::shared_mutex> reading(t.lock);
    return lookup(static_cast<const interner&>(t));
}

}  // namespace

metric_key intern_metric(std::string_view id) {
    interner& t = table();
    {
        std::shared_lock<std::shared_mutex> reading(t.lock);
        if (auto it = t.index.find(id); it != t.index.end()) return it->second;
    }
    std::unique_lock<std::shared_mutex> writing(t.lock);
    if (auto it = t.index.find(id); it != t.index.end()) return it->second;  // another thread made it meanwhile
    const auto k = metric_key(t.names.size());
    t.names.emplace_back(id);
    t.index.emplace(t.names.back(), k);
    t.additive.push_back(metric_is_additive(t.names.back()));
    if (engine_reads(t.names.back())) {
        t.read_index.push_back(int(t.read_keys.size()));
        t.read_keys.push_back(k);
    } else {
        t.read_index.push_back(-1);
    }
    return k;
}

std::optional<metric_key> find_metric_key(std::string_view id) {
    return read_table([&](const interner& t) -> std::optional<metric_key> {
        if (auto it = t.index.find(id); it != t.index.end()) return it->second;
        return std::nullopt;
    });
}

const std::string& metric_name(metric_key k) {
    return read_table([&](const interner& t) -> const std::string& { return t.names.at(k); });
}
std::size_t metric_key_count() {
    return read_table([](const interner& t) { return t.names.size(); });
}
bool metric_key_is_additive(metric_key k) {
    return read_table([&](const interner& t) { return bool(t.additive.at(k)); });
}
int metric_read_index(metric_key k) {
    return read_table([&](const interner& t) { return t.read_index.at(k); });
}
std::size_t metric_read_count() {
    return read_table([](const interner& t) { return t.read_keys.size(); });
}
metric_key metric_read_key(std::size_t read_index) {
    return read_table([&](const interner& t) { return t.read_keys.at(read_index); });
}

}  // namespace roofline
