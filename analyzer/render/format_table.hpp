// A command's output formats as one table, as nvbench keeps its printers: each name --format takes, with
// the printer that writes the command's result in it. The names a command offers are its table's
// (printer_names), and its text is the chosen row's (print_as): no command spells its formats twice.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofline {

template <typename Result>
struct printer {
    const char* name;
    std::function<std::string(const Result&)> print;
};

template <typename Result>
std::vector<std::string> printer_names(const std::vector<printer<Result>>& printers) {
    std::vector<std::string> names;
    for (const auto& row : printers) names.emplace_back(row.name);
    return names;
}

// The text of `result` in `format`; throws std::invalid_argument for a name the table lacks (the caller
// chose it from another list: the engine's mistake, not the user's).
template <typename Result>
std::string print_as(const std::vector<printer<Result>>& printers, const std::string& format, const Result& result) {
    for (const auto& row : printers)
        if (format == row.name) return row.print(result);
    throw std::invalid_argument("no printer for format \"" + format + "\"");
}

}  // namespace roofline
