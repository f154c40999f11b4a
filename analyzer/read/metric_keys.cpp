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
    static interner instance;
    return instance;
}

// A lookup under the table's shared lock (a name's reference stays valid after: the deque never moves it).
template <class Lookup>
decltype(auto) read_table(Lookup&& lookup) {
    interner& interned = table();
    std::shared_lock<std::shared_mutex> reading(interned.lock);
    return lookup(static_cast<const interner&>(interned));
}

}  // namespace

metric_key intern_metric(std::string_view id) {
    interner& interned = table();
    {
        std::shared_lock<std::shared_mutex> reading(interned.lock);
        if (auto it = interned.index.find(id); it != interned.index.end()) return it->second;
    }
    std::unique_lock<std::shared_mutex> writing(interned.lock);
    if (auto it = interned.index.find(id); it != interned.index.end())
        return it->second;  // another thread made it meanwhile
    const auto key = metric_key(interned.names.size());
    interned.names.emplace_back(id);
    interned.index.emplace(interned.names.back(), key);
    interned.additive.push_back(metric_is_additive(interned.names.back()));
    if (engine_reads(interned.names.back())) {
        interned.read_index.push_back(int(interned.read_keys.size()));
        interned.read_keys.push_back(key);
    } else {
        interned.read_index.push_back(-1);
    }
    return key;
}

std::optional<metric_key> find_metric_key(std::string_view id) {
    return read_table([&](const interner& interned) -> std::optional<metric_key> {
        if (auto it = interned.index.find(id); it != interned.index.end()) return it->second;
        return std::nullopt;
    });
}

const std::string& metric_name(metric_key key) {
    return read_table([&](const interner& interned) -> const std::string& { return interned.names.at(key); });
}
std::size_t metric_key_count() {
    return read_table([](const interner& interned) { return interned.names.size(); });
}
bool metric_key_is_additive(metric_key key) {
    return read_table([&](const interner& interned) { return bool(interned.additive.at(key)); });
}
int metric_read_index(metric_key key) {
    return read_table([&](const interner& interned) { return interned.read_index.at(key); });
}
std::size_t metric_read_count() {
    return read_table([](const interner& interned) { return interned.read_keys.size(); });
}
metric_key metric_read_key(std::size_t read_index) {
    return read_table([&](const interner& interned) { return interned.read_keys.at(read_index); });
}

}  // namespace roofline
