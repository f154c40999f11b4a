// What the spec and rule-tree loaders share: reading a folder of *.json files in name order,
// and turning a JSON parse error into file:line:column.
#pragma once

#include "analyzer/base/input_error.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace roofline {

// (path, contents) of every *.json in `dir`, sorted by name; throws input_error (io).
std::vector<std::pair<std::string, std::string>> read_json_folder(const std::string& dir, const std::string& what);

// The shipped files (compiled in, parsed once per process by the caller's static) and then every
// *.json of `extra_dir` ("" for none), parsed with `parse(text, path)`: a file whose id is already
// there replaces it, any other is added. What the spec and rule-tree loaders share.
template <class Item, class Parse>
std::vector<Item> with_overrides(const std::vector<Item>& shipped, const std::string& extra_dir,
                                 const std::string& what, Parse parse) {
    std::vector<Item> all = shipped;
    if (extra_dir.empty()) return all;
    for (const auto& [path, text] : read_json_folder(extra_dir, what)) {
        Item item = parse(text, path);
        auto same = std::find_if(all.begin(), all.end(), [&](const Item& other) { return other.id == item.id; });
        if (same != all.end())
            *same = std::move(item);
        else
            all.push_back(std::move(item));
    }
    return all;
}

// Parses `text`; a syntax error becomes input_error(code, file, line, column, "not valid JSON").
template <class Json>
Json parse_json_file(const std::string& text, const std::string& file, error_code code) {
    try {
        return Json::parse(text);
    } catch (const typename Json::parse_error& failure) {
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i + 1 < failure.byte && i < text.size(); ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw input_error(code, file, line, col, "not valid JSON");
    } catch (const typename Json::out_of_range& failure) {
        // A number past the range of a double (1e999): the parser says which, not where.
        throw input_error(code, file, 0, 0, std::string("a number out of range: ") + failure.what());
    }
}

}  // namespace roofline
