#include "analyzer/render/table.hpp"

#include <algorithm>
#include <stdexcept>

namespace roofline {
namespace {

std::string markdown_cell(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        if (ch == '|')
            out += "\\|";
        else if (ch == '\n')
            out += ' ';
        else
            out += ch;
    }
    return out;
}

void markdown_row(std::string& out, const std::vector<std::string>& cells) {
    out += "|";
    for (const auto& cell : cells) out += cell.empty() ? " |" : " " + markdown_cell(cell) + " |";
    out += "\n";
}

}  // namespace

std::string pad(const std::string& text, std::size_t width, align side, bool cut) {
    if (text.size() > width && cut) return width == 0 ? std::string() : text.substr(0, width - 1) + "~";
    if (text.size() >= width) return text;
    const std::string fill(width - text.size(), ' ');
    return side == align::right ? fill + text : text + fill;
}

table::table(std::vector<std::string> header) {
    for (auto& title : header) columns_.push_back({std::move(title)});
}

table& table::row(std::vector<std::string> cells) {
    if (cells.size() != columns_.size())
        throw std::logic_error("table row of " + std::to_string(cells.size()) + " cells under " +
                               std::to_string(columns_.size()) + " columns");
    rows_.push_back(std::move(cells));
    return *this;
}

std::string table::markdown() const {
    std::string out;
    std::vector<std::string> header;
    for (const auto& col : columns_) header.push_back(col.title);
    markdown_row(out, header);
    out += "|";
    for (std::size_t i = 0; i < columns_.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& row_cells : rows_) markdown_row(out, row_cells);
    return out;
}

std::string table::text(const text_layout& layout) const {
    std::vector<std::size_t> width;
    for (std::size_t col_index = 0; col_index < columns_.size(); ++col_index) {
        std::size_t col_width = columns_[col_index].width;
        if (col_width == 0) {
            col_width = layout.header ? columns_[col_index].title.size() : 0;
            for (const auto& row_cells : rows_) col_width = std::max(col_width, row_cells[col_index].size());
        }
        width.push_back(col_width);
    }
    // One line of `cells`, each painted by `paint` after padding.
    auto line = [&](const std::vector<std::string>& cells,
                    const std::function<std::string(std::size_t, const std::string&)>& paint) {
        std::size_t end = cells.size();
        while (end > 1 && cells[end - 1].empty()) --end;
        std::string out;
        for (std::size_t col_index = 0; col_index < end; ++col_index) {
            const column& col = columns_[col_index];
            const bool last = col_index + 1 == end;
            out += std::string(col.gap, ' ');
            // The line's last cell, left-aligned, is not padded (no trailing spaces); it is still cut.
            const bool unpadded =
                last && col.side == align::left && !(col.cut && cells[col_index].size() > width[col_index]);
            const std::string cell =
                unpadded ? cells[col_index] : pad(cells[col_index], width[col_index], col.side, col.cut);
            out += paint ? paint(col_index, cell) : cell;
        }
        return out;
    };
    std::string out;
    if (layout.header) {
        std::vector<std::string> titles;
        for (const auto& col : columns_) titles.push_back(col.title);
        const std::string head = line(titles, nullptr);
        out += (layout.paint_header ? layout.paint_header(head) : head) + "\n";
    }
    for (std::size_t row_index = 0; row_index < rows_.size(); ++row_index) {
        std::function<std::string(std::size_t, const std::string&)> paint;
        if (layout.paint_cell)
            paint = [&](std::size_t col_index, const std::string& cell) {
                return layout.paint_cell(row_index, col_index, cell);
            };
        out += line(rows_[row_index], paint);
        if (layout.after_row) out += layout.after_row(row_index);
        out += "\n";
    }
    return out;
}

std::string code_span(const std::string& text) {
    // A span holds backticks when its fence is longer than any run of them inside (CommonMark).
    std::size_t run = 0, longest = 0;
    std::string body;
    for (char ch : text) {
        run = ch == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
        // Line breaks would end the row or the item; other control characters would act on the
        // terminal of whoever prints the report.
        body += (ch == '\n' || ch == '\r') ? ' ' : (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ? '?' : ch;
    }
    const std::string fence(longest + 1, '`');
    const bool pad = longest > 0 && (body.front() == '`' || body.back() == '`');
    return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string markdown_text(const std::string& text) {
    static const std::string special = "\\`*_{}[]<>()#+-.!|~&";
    std::string out;
    for (char ch : text) {
        if (ch == '\n' || ch == '\r' || ch == '\t')
            out += ' ';
        else if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
            out += '?';
        else if (special.find(ch) != std::string::npos)
            out += std::string("\\") + ch;
        else
            out += ch;
    }
    return out;
}

}  // namespace roofline
