// One line of an `nsys stats --format csv` report split into fields: what the kernel summary
// (nsys_kernsum.hpp) and the timeline's GPU and API trace reports (analyzer/timeline) read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

struct nsys_field {
    std::string text;
    std::size_t column = 0;  // 1-based, where the field starts (its opening quote, if any)
};

// Fields separated by commas, a field quoted where it holds a comma or a quote (a quote inside
// doubled); where a quote is broken, the column of the fault and what is wrong.
struct nsys_split {
    std::vector<nsys_field> fields;
    std::size_t bad_quote_column = 0;  // 0: none
    std::string bad_quote_what;
};

nsys_split nsys_split_line(std::string_view line);

}  // namespace roofline
