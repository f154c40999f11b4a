#include "analyzer/read/nsys_kernsum.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/read/nsys_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string_view>

namespace roofline {
namespace {

// The header's layout: the columns the summary reads and the time unit of "Total Time".
struct nsys_layout {
    std::string name;
    std::size_t total = 0, instances = 0, name_column = 0, columns = 0;
    double ns_per_unit = 1.0;
};

// "Total Time (ns)" -> the unit's size in ns; nullopt for a unit nsys' --timeunit does not make.
std::optional<double> nsys_time_unit(std::string_view unit) {
    if (unit == "ns") return 1.0;
    if (unit == "us") return 1e3;
    if (unit == "ms") return 1e6;
    if (unit == "s") return 1e9;
    return std::nullopt;
}

// Whether the fields are a kernel summary's header (FORMATS.md, "Nsight Systems"): the first is
// "Time (%)" (current) or "Time(%)" (gpukernsum), one is "Instances" (which no other nsys summary
// has: cuda_api_sum counts "Num Calls", the memory summaries "Count") and the last is "Name".
std::optional<nsys_layout> kernsum_layout(const std::vector<nsys_field>& fields, const std::string& file,
                                          std::size_t line) {
    if (fields.size() < 4 || (fields.front().text != "Time (%)" && fields.front().text != "Time(%)") ||
        fields.back().text != "Name")
        return std::nullopt;
    nsys_layout layout;
    layout.columns = fields.size();
    layout.name_column = fields.size() - 1;
    bool total = false, instances = false, grid = false, average = false;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string& field_text = fields[i].text;
        if (field_text == "Instances") layout.instances = i, instances = true;
        if (field_text == "GridXYZ") grid = true;
        if (field_text == "Average") average = true;
        if (field_text.rfind("Total Time (", 0) == 0 && field_text.back() == ')') {
            const std::string unit = field_text.substr(12, field_text.size() - 13);
            auto scale = nsys_time_unit(unit);
            if (!scale)
                throw input_error(
                    error_code::bad_unit, file, line, fields[i].column,
                    "\"" + field_text + "\": a time unit nsys' --timeunit does not write (ns, us, ms or s)");
            layout.total = i, total = true, layout.ns_per_unit = *scale;
        }
    }
    if (!total || !instances) return std::nullopt;
    layout.name = average ? "gpukernsum" : grid ? "cuda_gpu_kern_sum (with GridXYZ, BlockXYZ)" : "cuda_gpu_kern_sum";
    return layout;
}

double nsys_number(const nsys_field& field, const std::string& column, const std::string& file, std::size_t line) {
    std::string_view trimmed = field.text;
    while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
    while (!trimmed.empty() && trimmed.back() == ' ') trimmed.remove_suffix(1);
    double value = 0.0;
    auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
    if (trimmed.empty() || ec != std::errc() || end != trimmed.data() + trimmed.size() || !std::isfinite(value) ||
        value < 0.0)
        throw input_error(error_code::bad_number, file, line, field.column,
                          "expected a number of 0 or more in column \"" + column + "\", got \"" + field.text + "\"");
    return value;
}

}  // namespace

nsys_kernsum read_nsys_kernsum(std::istream& in, const std::string& file) {
    nsys_kernsum out;
    out.file = file;
    std::optional<nsys_layout> layout;
    std::vector<nsys_field> header;
    bool in_block = false, any_line = false, looks_like_ncu = false;
    std::map<std::string, std::size_t> by_name;
    std::string text;
    std::size_t line = 0;
    while (std::getline(in, text)) {
        ++line;
        if (!text.empty() && text.back() == '\r') text.pop_back();
        if (line == 1 && text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
        if (!text.empty()) any_line = true;
        if (text.rfind("\"ID\",", 0) == 0) looks_like_ncu = true;
        // A stream of several reports: each begins with "Processing [x.sqlite] with [...]..." and ends
        // at a blank line.
        if (in_block && (text.empty() || text.rfind("Processing [", 0) == 0)) {
            in_block = false;
            continue;
        }
        if (!in_block) {
            auto split = nsys_split_line(text);
            if (split.bad_quote_column) continue;  // not a header; another report's text
            auto found = kernsum_layout(split.fields, file, line);
            if (!found) continue;
            if (layout)
                throw input_error(error_code::unknown_format, file, line, 1,
                                  "a second kernel summary (the first starts at line " +
                                      std::to_string(out.header_line) + "): give one report's output");
            layout = found;
            header = split.fields;
            out.layout = layout->name;
            out.header_line = line;
            in_block = true;
            continue;
        }
        auto split = nsys_split_line(text);
        if (split.bad_quote_column)
            throw input_error(error_code::bad_quote, file, line, split.bad_quote_column, split.bad_quote_what);
        if (split.fields.size() != layout->columns) {
            const std::size_t column =
                split.fields.size() > layout->columns ? split.fields[layout->columns].column : text.size() + 1;
            throw input_error(
                error_code::column_count, file, line, column,
                std::to_string(split.fields.size()) + " fields, but the header (line " +
                    std::to_string(out.header_line) + ") has " + std::to_string(layout->columns) +
                    (split.fields.size() > layout->columns ? " (a name with a comma must be quoted)" : ""));
        }
        const double total =
            nsys_number(split.fields[layout->total], header[layout->total].text, file, line) * layout->ns_per_unit;
        const double instances =
            nsys_number(split.fields[layout->instances], header[layout->instances].text, file, line);
        const std::string& name = split.fields[layout->name_column].text;
        if (name.empty())
            throw input_error(error_code::unknown_format, file, line, split.fields[layout->name_column].column,
                              "a kernel without a name");
        auto it = by_name.find(name);
        if (it == by_name.end()) {
            by_name.emplace(name, out.kernels.size());
            out.kernels.push_back({name, total, instances, line, 1});
        } else {
            auto& kernel = out.kernels[it->second];
            kernel.total_ns += total;
            kernel.instances += instances;
            ++kernel.rows;
        }
    }
    if (!any_line) throw input_error(error_code::empty_input, file, 0, 0, "the input is empty");
    if (!layout)
        throw input_error(
            error_code::unknown_format, file, 1, 1,
            looks_like_ncu
                ? std::string("this is an Nsight Compute export: analyse it with `roofline analyze`")
                : std::string("no Nsight Systems kernel summary: expected the header of `nsys stats --report "
                              "cuda_gpu_kern_sum --format csv` (Time (%),Total Time (ns),Instances,...,Name) "
                              "or of the older gpukernsum report"));
    if (out.kernels.empty())
        throw input_error(error_code::header_only, file, out.header_line, 1,
                          "a kernel summary header but no kernel rows");
    return out;
}

nsys_kernsum read_nsys_kernsum_file(const std::string& path) {
    if (path == "-") return read_nsys_kernsum(std::cin, "<stdin>");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(error_code::io, path, 0, 0, "cannot open the file");
    return read_nsys_kernsum(in, path);
}

}  // namespace roofline
