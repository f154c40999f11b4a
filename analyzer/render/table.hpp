// A table as data, built apart from how it is printed (as nvbench builds its tables): columns and
// rows of plain-text cells. The printer escapes or pads what its format needs, so no caller does.
// Every table of every command prints through here: markdown (a report's document, render/document.hpp,
// prints its tables' markdown here and their HTML itself) and fixed-width text for a terminal. JSON outputs carry
// typed values (numbers, nulls), not a table's text cells, so they are written from the data.
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace roofline {

enum class align { left, right };

// The one padding helper of every fixed-width output: `text` to at least `width` characters, spaces
// after left-aligned text and before right-aligned; with `cut`, to exactly `width`, a longer text
// ending in "~" (names are ASCII: ncu writes them so, and printable() replaces the rest).
std::string pad(const std::string& text, std::size_t width, align side = align::left, bool cut = false);

struct column {
    std::string title;
    align side = align::left;
    std::size_t width = 0;  // 0: as wide as the widest cell or the title
    bool cut = false;       // cut longer cells to the width (pad's cut); otherwise they run over
    std::size_t gap = 2;    // spaces before the column; the first column's is the line's indent
};

// How a table prints as text; every part optional.
struct text_layout {
    bool header = true;
    // The header line as a whole (e.g. dimmed).
    std::function<std::string(const std::string& line)> paint_header;
    // A body cell after padding (e.g. coloured by its verdict).
    std::function<std::string(std::size_t row, std::size_t column, const std::string& padded)> paint_cell;
    // Text after a row's line, before its line break (a row's own second line, "\n     ...").
    std::function<std::string(std::size_t row)> after_row;
};

class table {
public:
    // Left-aligned columns of these titles. (The initializer list keeps table({"a", "b"}) from reading
    // as a vector<column> made from two const char* iterators.)
    explicit table(std::vector<std::string> header);
    explicit table(std::initializer_list<std::string> header) : table(std::vector<std::string>(header)) {}
    explicit table(std::vector<column> columns) : columns_(std::move(columns)) {}
    // Throws std::logic_error when the row has a different number of cells than the table has columns.
    table& row(std::vector<std::string> cells);
    bool empty() const { return rows_.empty(); }
    std::size_t size() const { return rows_.size(); }
    // GitHub-flavoured markdown: '|' in a cell is escaped and a line break becomes a space.
    std::string markdown() const;
    // Fixed-width columns, `gap` spaces apart, one line per row. The last column is not padded on the
    // right, and a row ends at its last non-empty cell (a total row of fewer cells has no trailing spaces).
    std::string text(const text_layout& layout = {}) const;

private:
    std::vector<column> columns_;
    std::vector<std::vector<std::string>> rows_;
};

// A markdown code span: "`text`", with a longer fence where the text holds backticks and spaces for
// line breaks. The table escapes any '|' in it.
std::string code_span(const std::string& text);
// Text from an input (a GPU's name, a file's) in running markdown or a heading: the characters markdown
// acts on escaped with a backslash, line breaks and other control characters replaced, so it reads as it
// is written and cannot open a link, an emphasis, a code span or a new line.
std::string markdown_text(const std::string& text);

}  // namespace roofline
