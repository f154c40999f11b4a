#include "analyzer/base/pooled_string.hpp"

#include <functional>
#include <mutex>
#include <unordered_set>

namespace roofline {

namespace {

struct text_hash {
    using is_transparent = void;  // look up by string_view, without making a std::string
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct pool {
    std::mutex lock;
    std::unordered_set<std::string, text_hash, std::equal_to<>> texts;  // node-based: a text's address never moves
};

pool& the_pool() {
    static pool* p = new pool;  // never destroyed: pooled strings may outlive static destruction
    return *p;
}

}  // namespace

const std::string& pooled_string::intern(std::string_view s) {
    pool& p = the_pool();
    std::lock_guard<std::mutex> hold(p.lock);
    if (auto it = p.texts.find(s); it != p.texts.end()) return *it;
    return *p.texts.emplace(s).first;
}

const std::string& pooled_string::empty_text() {
    static const std::string& e = intern("");
    return e;
}

}  // namespace roofline
