// Names that explain themselves (issue 36): in the engine's sources (analyzer/, models/), one-letter
// identifiers only as loop indices (i, j) and under 8% of identifier tokens. Counted as a reader sees the
// code: comments, string and character literals (raw strings included) and #include lines left out, C++
// keywords not counted as identifiers.
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace {

// The text of a source file with its comments, literals and #include lines blanked out.
std::string code_only(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    std::size_t at = 0;
    const auto starts = [&](const char* what) {
        return text.compare(at, std::char_traits<char>::length(what), what) == 0;
    };
    while (at < text.size()) {
        if (starts("//") || starts("#include")) {  // to the end of the line
            while (at < text.size() && text[at] != '\n') ++at;
        } else if (starts("/*")) {
            const auto end = text.find("*/", at + 2);
            at = end == std::string::npos ? text.size() : end + 2;
            out += ' ';
        } else if (starts("R\"")) {  // R"delimiter( ... )delimiter"
            const auto open = text.find('(', at);
            const std::string close = ")" + text.substr(at + 2, open - at - 2) + "\"";
            const auto end = text.find(close, open);
            at = end == std::string::npos ? text.size() : end + close.size();
            out += "\"\"";
        } else if (text[at] == '\'' && at > 0 && std::isdigit(static_cast<unsigned char>(text[at - 1])) &&
                   at + 1 < text.size() && std::isxdigit(static_cast<unsigned char>(text[at + 1]))) {
            out += text[at++];  // a digit separator (10'000), not a character literal
        } else if (text[at] == '"' || text[at] == '\'') {
            const char quote = text[at++];
            while (at < text.size() && text[at] != quote) at += text[at] == '\\' ? 2 : 1;
            ++at;
            out += "\"\"";
        } else {
            out += text[at++];
        }
    }
    return out;
}

const std::set<std::string>& keywords() {
    static const std::set<std::string> words = {
        "alignas",       "alignof",     "and",     "auto",     "bool",      "break",        "case",
        "catch",         "char",        "class",   "const",    "constexpr", "const_cast",   "continue",
        "decltype",      "default",     "delete",  "do",       "double",    "dynamic_cast", "else",
        "enum",          "explicit",    "extern",  "false",    "float",     "for",          "friend",
        "goto",          "if",          "inline",  "int",      "long",      "mutable",      "namespace",
        "new",           "noexcept",    "not",     "nullptr",  "operator",  "or",           "private",
        "protected",     "public",      "return",  "short",    "signed",    "sizeof",       "static",
        "static_assert", "static_cast", "struct",  "switch",   "template",  "this",         "throw",
        "true",          "try",         "typedef", "typeid",   "typename",  "union",        "unsigned",
        "using",         "virtual",     "void",    "volatile", "while",     "std",          "size_t",
        "define",        "pragma",      "once",    "override", "final"};
    return words;
}

}  // namespace

TEST_CASE("the engine's identifiers: one letter only as a loop index, and under 8% of them") {
    std::size_t tokens = 0, one_letter = 0;
    std::map<std::string, std::size_t> other_one_letter;  // "file: x" -> count, for a failure to name
    for (const char* stage : {"analyzer", "models"})
        for (const auto& entry : std::filesystem::recursive_directory_iterator(roofline::test::source_path(stage))) {
            const auto extension = entry.path().extension();
            if (extension != ".cpp" && extension != ".hpp") continue;
            std::ifstream in(entry.path());
            std::stringstream text;
            text << in.rdbuf();
            const std::string code = code_only(text.str());
            for (std::size_t at = 0; at < code.size();) {
                const unsigned char c = static_cast<unsigned char>(code[at]);
                if (!(std::isalpha(c) || c == '_')) {
                    // A number's digits, separators and suffixes (1e9, 0x1F, 2.5f, 10'000) are not identifiers.
                    if (std::isdigit(c))
                        while (at < code.size() && (std::isalnum(static_cast<unsigned char>(code[at])) ||
                                                    code[at] == '.' || code[at] == '_' || code[at] == '\''))
                            ++at;
                    else
                        ++at;
                    continue;
                }
                std::size_t end = at;
                while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_'))
                    ++end;
                const std::string word = code.substr(at, end - at);
                at = end;
                if (keywords().count(word)) continue;
                ++tokens;
                if (word.size() != 1) continue;
                ++one_letter;
                if (word != "i" && word != "j") ++other_one_letter[entry.path().filename().string() + ": " + word];
            }
        }
    const double share = double(one_letter) / double(tokens);
    MESSAGE(one_letter << " one-letter identifier tokens of " << tokens << " (" << share * 100.0 << "%)");
    CHECK(tokens > 50000);
    CHECK(share < 0.08);
    for (const auto& [where, count] : other_one_letter) {
        CAPTURE(where);
        CAPTURE(count);
        CHECK(false);  // a one-letter name that is not a loop index i or j
    }
}
