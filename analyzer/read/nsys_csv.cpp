#include "analyzer/read/nsys_csv.hpp"

#include <algorithm>

namespace roofline {

nsys_split nsys_split_line(std::string_view line) {
    nsys_split split;
    std::size_t pos = 0;
    while (true) {
        nsys_field field;
        field.column = pos + 1;
        if (pos < line.size() && line[pos] == '"') {
            std::size_t cursor = pos + 1;
            bool closed = false;
            while (cursor < line.size()) {
                if (line[cursor] == '"') {
                    if (cursor + 1 < line.size() && line[cursor + 1] == '"') {
                        field.text += '"';
                        cursor += 2;
                        continue;
                    }
                    closed = true;
                    break;
                }
                field.text += line[cursor++];
            }
            if (!closed) {
                split.bad_quote_column = pos + 1;
                split.bad_quote_what = "a quoted field that does not end on its line";
                return split;
            }
            pos = cursor + 1;  // past the closing quote
            if (pos < line.size() && line[pos] != ',') {
                split.bad_quote_column = pos + 1;
                split.bad_quote_what = "text after a closing quote (a quote inside a field is written twice)";
                return split;
            }
        } else {
            const std::size_t end = std::min(line.find(',', pos), line.size());
            field.text = std::string(line.substr(pos, end - pos));
            pos = end;
        }
        split.fields.push_back(std::move(field));
        if (pos >= line.size()) break;
        ++pos;                     // the comma
        if (pos == line.size()) {  // a trailing comma: one empty field more
            split.fields.push_back({"", pos + 1});
            break;
        }
    }
    return split;
}

}  // namespace roofline
