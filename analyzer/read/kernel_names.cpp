#include "analyzer/read/kernel_names.hpp"

namespace roofline {

// ncu writes anonymous namespaces as "unnamed>::", with no opening '<', so depth never goes below zero.
std::string short_name(const std::string& name) {
    std::string s = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<')
            ++depth;
        else if (s[i] == '>')
            depth = depth > 0 ? depth - 1 : 0;
        else if (s[i] == '(' && depth == 0 && i > 0)
            return s.substr(0, i);
    }
    return s;
}

std::string plain_name(const std::string& name) {
    std::string s = short_name(name);
    auto at = s.rfind(">::");
    return at == std::string::npos ? s : s.substr(at + 3);
}

}  // namespace roofline
