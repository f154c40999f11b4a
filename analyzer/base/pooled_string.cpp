#include "analyzer/base/pooled_string.hpp"

#include <functional>
#include <mutex>
#include <unordered_set>

namespace roofline {

namespace {

struct text_hash {
    using is_transparent = void;  // look up by string_view, without making a std::string
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

struct pool {
    std::mutex lock;
    std::unordered_set<std::string, text_hash, std::equal_to<>> texts;  // node-based: a text's address never moves
};

pool& the_pool() {
    static pool* instance = new pool;  // never destroyed: pooled strings may outlive static destruction
    return *instance;
}

}  // namespace

const std::string& pooled_string::intern(std::string_view text) {
    pool& text_pool = the_pool();
    std::lock_guard<std::mutex> hold(text_pool.lock);
    if (auto it = text_pool.texts.find(text); it != text_pool.texts.end()) return *it;
    return *text_pool.texts.emplace(text).first;
}

const std::string& pooled_string::empty_text() {
    static const std::string& empty_string = intern("");
    return empty_string;
}

}  // namespace roofline
