#include "analyzer/render/table.hpp"

#include <algorithm>
#include <stdexcept>

namespace roofline {
namespace {

std::string markdown_cell(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out;
}

void markdown_row(std::string& out, const std::vector<std::string>& cells) {
    out += "|";
    for (const auto& c : cells) out += c.empty() ? " |" : " " + markdown_cell(c) + " |";
    out += "\n";
}

}  // namespace

std::string pad(const std::string& s, std::size_t width, align side, bool cut) {
    if (s.size() > width && cut) return width == 0 ? std::string() : s.substr(0, width - 1) + "~";
    if (s.size() >= width) return s;
    const std::string fill(width - s.size(), ' ');
    return side == align::right ? fill + s : s + fill;
}

table::table(std::vector<std::string> header) {
    for (auto& h : header) columns_.push_back({std::move(h)});
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
    for (const auto& c : columns_) header.push_back(c.title);
    markdown_row(out, header);
    out += "|";
    for (std::size_t i = 0; i < columns_.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& r : rows_) markdown_row(out, r);
    return out;
}

std::string table::text(const text_layout& layout) const {
    std::vector<std::size_t> width;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
        std::size_t w = columns_[c].width;
        if (w == 0) {
            w = layout.header ? columns_[c].title.size() : 0;
            for (const auto& r : rows_) w = std::max(w, r[c].size());
        }
        width.push_back(w);
    }
    // One line of `cells`, each painted by `paint` after padding.
    auto line = [&](const std::vector<std::string>& cells,
                    const std::function<std::string(std::size_t, const std::string&)>& paint) {
        std::size_t end = cells.size();
        while (end > 1 && cells[end - 1].empty()) --end;
        std::string out;
        for (std::size_t c = 0; c < end; ++c) {
            const column& col = columns_[c];
            const bool last = c + 1 == end;
            out += std::string(col.gap, ' ');
            // The line's last cell, left-aligned, is not padded (no trailing spaces); it is still cut.
            const bool unpadded = last && col.side == align::left && !(col.cut && cells[c].size() > width[c]);
            const std::string cell = unpadded ? cells[c] : pad(cells[c], width[c], col.side, col.cut);
            out += paint ? paint(c, cell) : cell;
        }
        return out;
    };
    std::string out;
    if (layout.header) {
        std::vector<std::string> titles;
        for (const auto& c : columns_) titles.push_back(c.title);
        const std::string head = line(titles, nullptr);
        out += (layout.paint_header ? layout.paint_header(head) : head) + "\n";
    }
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        std::function<std::string(std::size_t, const std::string&)> paint;
        if (layout.paint_cell)
            paint = [&](std::size_t c, const std::string& cell) { return layout.paint_cell(r, c, cell); };
        out += line(rows_[r], paint);
        if (layout.after_row) out += layout.after_row(r);
        out += "\n";
    }
    return out;
}

std::string code_span(const std::string& text) {
    // A span holds backticks when its fence is longer than any run of them inside (CommonMark).
    std::size_t run = 0, longest = 0;
    std::string body;
    for (char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
        // Line breaks would end the row or the item; other control characters would act on the
        // terminal of whoever prints the report.
        body += (c == '\n' || c == '\r') ? ' ' : (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    }
    const std::string fence(longest + 1, '`');
    const bool pad = longest > 0 && (body.front() == '`' || body.back() == '`');
    return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string markdown_text(const std::string& text) {
    static const std::string special = "\\`*_{}[]<>()#+-.!|~&";
    std::string out;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t')
            out += ' ';
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            out += '?';
        else if (special.find(c) != std::string::npos)
            out += std::string("\\") + c;
        else
            out += c;
    }
    return out;
}

}  // namespace roofline
