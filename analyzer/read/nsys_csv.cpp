#include "analyzer/read/nsys_csv.hpp"

#include <algorithm>

namespace roofline {

nsys_split nsys_split_line(std::string_view line) {
    nsys_split r;
    std::size_t i = 0;
    while (true) {
        nsys_field f;
        f.column = i + 1;
        if (i < line.size() && line[i] == '"') {
            std::size_t j = i + 1;
            bool closed = false;
            while (j < line.size()) {
                if (line[j] == '"') {
                    if (j + 1 < line.size() && line[j + 1] == '"') {
                        f.text += '"';
                        j += 2;
                        continue;
                    }
                    closed = true;
                    break;
                }
                f.text += line[j++];
            }
            if (!closed) {
                r.bad_quote_column = i + 1;
                r.bad_quote_what = "a quoted field that does not end on its line";
                return r;
            }
            i = j + 1;  // past the closing quote
            if (i < line.size() && line[i] != ',') {
                r.bad_quote_column = i + 1;
                r.bad_quote_what = "text after a closing quote (a quote inside a field is written twice)";
                return r;
            }
        } else {
            const std::size_t end = std::min(line.find(',', i), line.size());
            f.text = std::string(line.substr(i, end - i));
            i = end;
        }
        r.fields.push_back(std::move(f));
        if (i >= line.size()) break;
        ++i;                     // the comma
        if (i == line.size()) {  // a trailing comma: one empty field more
            r.fields.push_back({"", i + 1});
            break;
        }
    }
    return r;
}

}  // namespace roofline
