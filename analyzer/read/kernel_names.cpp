#include "analyzer/read/kernel_names.hpp"

#include <cctype>

#include <algorithm>

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
    std::string signature = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
    int depth = 0;
    for (std::size_t i = 0; i < signature.size(); ++i) {
        if (signature[i] == '<')
            ++depth;
        else if (signature[i] == '>')
            depth = depth > 0 ? depth - 1 : 0;
        else if (signature[i] == '(' && depth == 0 && i > 0) {
            // nsys and c++filt write an anonymous namespace as "(anonymous namespace)::": part of
            // the name, not its parameter list.
            if (signature.compare(i, anonymous.size(), anonymous) == 0) {
                i += anonymous.size() - 1;
                continue;
            }
            return signature.substr(0, i);
        }
    }
    return signature;
}

// The namespaces go: everything up to the last "::" outside template arguments, so that
// at::<unnamed>::softmax<float, at::<unnamed>::Epilogue> keeps its own name and arguments.
std::string plain_name(const std::string& name) {
    const std::string short_form = short_name(name);
    std::size_t after = 0;
    int depth = 0;
    for (std::size_t i = 0; i + 1 < short_form.size(); ++i) {
        if (short_form[i] == '<')
            ++depth;
        else if (short_form[i] == '>')
            depth = depth > 0 ? depth - 1 : 0;
        else if (depth == 0 && short_form[i] == ':' && short_form[i + 1] == ':')
            after = i + 2;
    }
    return short_form.substr(after);
}

bool is_mangled(std::string_view name) { return name.size() > 2 && name[0] == '_' && name[1] == 'Z'; }

std::string function_name(const std::string& name) {
    std::string demangled = name;
    if (is_mangled(name)) {
        int status = 0;
        std::unique_ptr<char, void (*)(void*)> demangled_buf(
            abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
        if (status == 0 && demangled_buf) demangled = demangled_buf.get();
    }
    // Template arguments go, wherever they are (ns<T>::kernel<U>); a '>' with no '<' is ncu's
    // "unnamed>::" and goes too.
    const std::string short_form = short_name(demangled);
    std::string bare;
    int depth = 0;
    for (char ch : short_form) {
        if (ch == '<')
            ++depth;
        else if (ch == '>')
            depth = depth > 0 ? depth - 1 : 0;
        else if (depth == 0)
            bare += ch;
    }
    auto at = bare.rfind("::");
    return at == std::string::npos ? bare : bare.substr(at + 2);
}

std::vector<std::string> portable_name_tokens(std::string_view name) {
    static const std::vector<std::string_view> dropped = {"void",    "at",       "native", "anonymous", "namespace",
                                                          "unnamed", "instance", "u",      "l",         "ul",
                                                          "lu",      "ll",       "ull",    "llu"};
    std::vector<std::string> out;
    int parens = 0;
    auto word_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
    for (std::size_t i = 0; i < name.size();) {
        const char ch = name[i];
        if (ch == '(') {
            ++parens, ++i;
        } else if (ch == ')') {
            parens = parens > 0 ? parens - 1 : 0;
            ++i;
        } else if (word_char(ch)) {
            std::size_t token_end = i;
            // A number ends where its digits do: "2ul" is 2 and the suffix ul.
            if (std::isdigit(static_cast<unsigned char>(ch)))
                while (token_end < name.size() && std::isdigit(static_cast<unsigned char>(name[token_end])))
                    ++token_end;
            else
                while (token_end < name.size() && word_char(name[token_end])) ++token_end;
            const std::string_view token = name.substr(i, token_end - i);
            // A lambda's number after '#' is Kineto's; ncu puts it in parentheses ("(instance 2)").
            const bool lambda_number = i > 0 && name[i - 1] == '#';
            if (parens == 0 && !lambda_number && std::find(dropped.begin(), dropped.end(), token) == dropped.end())
                out.emplace_back(token);
            i = token_end;
        } else {
            ++i;
        }
    }
    return out;
}

std::string ncu_name_regex(std::string_view name) {
    const auto tokens = portable_name_tokens(name);
    if (tokens.empty()) return {};
    // Each token starts a word (a character that is no part of a word, or the start, before it); the
    // function name also ends one. At most the first 12: enough to tell a kernel's instantiations apart
    // (on the captures of examples/user_level and the nsys summary of tests/data/nsys), and few enough
    // that a backtracking matcher stays fast on a name that does not match.
    constexpr std::size_t most = 12;
    const std::string word = "[^A-Za-z0-9_]";
    // Between two tokens: one such character, or a run that starts and ends with one.
    std::string regex_text = "(^|" + word + ")" + tokens[0];
    for (std::size_t i = 1; i < tokens.size() && i < most; ++i) regex_text += word + "(.*" + word + ")?" + tokens[i];
    return tokens.size() == 1 ? regex_text + "($|" + word + ")" : regex_text;
}

bool valid_utf8(std::string_view bytes) {
    std::size_t pos = 0;
    while (pos < bytes.size()) {
        const auto lead = static_cast<unsigned char>(bytes[pos]);
        std::size_t extra = lead < 0x80           ? 0
                            : (lead >> 5) == 0x6  ? 1
                            : (lead >> 4) == 0xE  ? 2
                            : (lead >> 3) == 0x1E ? 3
                                                  : 4;
        if (extra == 4 || (extra == 1 && lead < 0xC2) || pos + extra >= bytes.size() + (extra ? 0 : 1)) return false;
        for (std::size_t offset = 1; offset <= extra; ++offset)
            if ((static_cast<unsigned char>(bytes[pos + offset]) >> 6) != 0x2) return false;
        pos += extra + 1;
    }
    return true;
}

std::string printable(std::string_view text) {
    std::string out(text);
    for (char& ch : out)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
    return out;
}

std::string kernel_label(const std::string& full) {
    const std::string short_form = short_name(full);
    // The last "::" outside template arguments and parentheses ends the namespaces; ncu's
    // "unnamed>::" has no '<', so depth never goes below zero.
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < short_form.size(); ++i) {
        const char ch = short_form[i];
        if (ch == '<' || ch == '(')
            ++depth;
        else if (ch == '>' || ch == ')')
            depth = depth > 0 ? depth - 1 : 0;
        else if (ch == ':' && depth == 0 && i + 1 < short_form.size() && short_form[i + 1] == ':')
            start = i + 2;
    }
    std::string out = short_form.substr(start);
    constexpr std::size_t longest = 40;
    if (out.size() > longest) {
        const auto open = out.find('<');
        // One plain name as the only template argument (cuBLAS's Kernel2<cutlass_75_..._align1>) says what
        // runs: it stays, cut at the end like any long name. Other template arguments are elided.
        const bool one_name =
            open != std::string::npos && out.back() == '>' && out.find_first_of("<>,: *&", open + 1) == out.size() - 1;
        if (open != std::string::npos && open > 0 && !one_name) out = out.substr(0, open) + "<...>";
        if (out.size() > longest) {
            out.resize(longest - 3);
            while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
            out += "...";
        }
    }
    return out.empty() ? short_form : out;
}

}  // namespace roofline
