// A table as data, built apart from how it is printed (as nvbench builds its tables): a header and
// rows of plain-text cells. The printer escapes what its format needs, so no caller does.
#pragma once

#include <string>
#include <vector>

namespace roofline {

class table {
public:
    explicit table(std::vector<std::string> header) : header_(std::move(header)) {}
    // Throws std::logic_error when the row has a different number of cells than the header.
    table& row(std::vector<std::string> cells);
    bool empty() const { return rows_.empty(); }
    // GitHub-flavoured markdown: '|' in a cell is escaped and a line break becomes a space.
    std::string markdown() const;

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

// A markdown code span: "`text`", with a longer fence where the text holds backticks and spaces for
// line breaks. The table escapes any '|' in it.
std::string code(const std::string& text);

}  // namespace roofline
