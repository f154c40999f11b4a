#include "analyzer/read/kernel_names.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace roofline {

namespace {
const std::string anonymous = "(anonymous namespace)";
}

// ncu writes anonymous namespaces as "unnamed>::" (no opening '<', so depth never goes below zero)
// or "<unnamed>::".
std::string short_name(const std::string& name) {
    std::string s = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<')
            ++depth;
        else if (s[i] == '>')
            depth = depth > 0 ? depth - 1 : 0;
        else if (s[i] == '(' && depth == 0 && i > 0) {
            // nsys and c++filt write an anonymous namespace as "(anonymous namespace)::": part of
            // the name, not its parameter list.
            if (s.compare(i, anonymous.size(), anonymous) == 0) {
                i += anonymous.size() - 1;
                continue;
            }
            return s.substr(0, i);
        }
    }
    return s;
}

// The namespaces go: everything up to the last "::" outside template arguments, so that
// at::<unnamed>::softmax<float, at::<unnamed>::Epilogue> keeps its own name and arguments.
std::string plain_name(const std::string& name) {
    const std::string s = short_name(name);
    std::size_t after = 0;
    int depth = 0;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
        if (s[i] == '<')
            ++depth;
        else if (s[i] == '>')
            depth = depth > 0 ? depth - 1 : 0;
        else if (depth == 0 && s[i] == ':' && s[i + 1] == ':')
            after = i + 2;
    }
    return s.substr(after);
}

bool is_mangled(std::string_view name) { return name.size() > 2 && name[0] == '_' && name[1] == 'Z'; }

std::string function_name(const std::string& name) {
    std::string demangled = name;
    if (is_mangled(name)) {
        int status = 0;
        std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                 std::free);
        if (status == 0 && d) demangled = d.get();
    }
    // Template arguments go, wherever they are (ns<T>::kernel<U>); a '>' with no '<' is ncu's
    // "unnamed>::" and goes too.
    const std::string s = short_name(demangled);
    std::string bare;
    int depth = 0;
    for (char c : s) {
        if (c == '<')
            ++depth;
        else if (c == '>')
            depth = depth > 0 ? depth - 1 : 0;
        else if (depth == 0)
            bare += c;
    }
    auto at = bare.rfind("::");
    return at == std::string::npos ? bare : bare.substr(at + 2);
}

bool valid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : 4;
        if (extra == 4 || (extra == 1 && c < 0xC2) || i + extra >= s.size() + (extra ? 0 : 1)) return false;
        for (std::size_t k = 1; k <= extra; ++k)
            if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
        i += extra + 1;
    }
    return true;
}

std::string printable(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    return out;
}

}  // namespace roofline
