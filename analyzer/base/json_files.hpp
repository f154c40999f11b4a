// What the spec and rule-tree loaders share: reading a folder of *.json files in name order,
// and turning a JSON parse error into file:line:column.
#pragma once

#include "analyzer/base/input_error.hpp"

#include <string>
#include <utility>
#include <vector>

namespace roofline {

// (path, contents) of every *.json in `dir`, sorted by name; throws input_error (io).
std::vector<std::pair<std::string, std::string>> read_json_folder(const std::string& dir, const std::string& what);

// Parses `text`; a syntax error becomes input_error(code, file, line, column, "not valid JSON").
template <class Json>
Json parse_json_file(const std::string& text, const std::string& file, error_code code) {
    try {
        return Json::parse(text);
    } catch (const typename Json::parse_error& e) {
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw input_error(code, file, line, col, "not valid JSON");
    }
}

}  // namespace roofline
