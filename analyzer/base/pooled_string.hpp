// A string stored once for the whole program. The model and the diagnosis give every kernel the
// same texts (a resource's formula, a rule node's title, a finding's fix), and a capture of 10,000
// distinct kernels held 10,000 copies of each; a pooled_string is one pointer to the one copy.
// Read it like a const std::string (it converts to one); assign it from any text.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace roofline {

class pooled_string {
public:
    pooled_string() : text_(&empty_text()) {}
    pooled_string(std::string_view text) : text_(&intern(text)) {}
    pooled_string(const std::string& text) : text_(&intern(text)) {}
    pooled_string(const char* text) : text_(&intern(text)) {}

    const std::string& str() const { return *text_; }
    operator const std::string&() const { return *text_; }
    operator std::string_view() const { return *text_; }

    bool empty() const { return text_->empty(); }
    std::size_t size() const { return text_->size(); }
    const char* c_str() const { return text_->c_str(); }
    auto begin() const { return text_->begin(); }
    auto end() const { return text_->end(); }
    std::size_t find(std::string_view needle, std::size_t from = 0) const { return text_->find(needle, from); }
    std::size_t rfind(std::string_view needle, std::size_t from = std::string::npos) const {
        return text_->rfind(needle, from);
    }
    std::string substr(std::size_t pos, std::size_t count = std::string::npos) const {
        return text_->substr(pos, count);
    }

    // One copy of each text for the program's life, never freed: pool only texts drawn from a fixed
    // set (what the rule trees, the specs and the model say), never one that carries a kernel's own
    // numbers (an estimate's worked figures stay std::string), or a long-lived process would grow.
    static const std::string& intern(std::string_view text);

    // Hidden friends: found only where one side is a pooled_string, so they never compete with
    // std::string_view's own comparisons.
    friend bool operator==(const pooled_string& left, const pooled_string& right) {
        return &left.str() == &right.str();
    }
    friend bool operator==(const pooled_string& left, std::string_view right) { return left.str() == right; }
    friend bool operator==(const pooled_string& left, const char* right) { return left.str() == right; }
    friend bool operator==(const pooled_string& left, const std::string& right) { return left.str() == right; }
    friend bool operator<(const pooled_string& left, const pooled_string& right) { return left.str() < right.str(); }
    friend std::string operator+(const std::string& left, const pooled_string& right) { return left + right.str(); }
    friend std::string operator+(const pooled_string& left, const std::string& right) { return left.str() + right; }
    friend std::string operator+(const char* left, const pooled_string& right) { return left + right.str(); }
    friend std::string operator+(const pooled_string& left, const char* right) { return left.str() + right; }
    friend std::string operator+(std::string&& left, const pooled_string& right) {
        return std::move(left) + right.str();
    }
    friend std::ostream& operator<<(std::ostream& out, const pooled_string& text) { return out << text.str(); }

private:
    static const std::string& empty_text();
    const std::string* text_;
};

}  // namespace roofline
