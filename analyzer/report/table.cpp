#include "analyzer/report/table.hpp"

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

table& table::row(std::vector<std::string> cells) {
    if (cells.size() != header_.size())
        throw std::logic_error("table row of " + std::to_string(cells.size()) + " cells under " + std::to_string(header_.size()) +
                               " columns");
    rows_.push_back(std::move(cells));
    return *this;
}

std::string table::markdown() const {
    std::string out;
    markdown_row(out, header_);
    out += "|";
    for (std::size_t i = 0; i < header_.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& r : rows_) markdown_row(out, r);
    return out;
}

std::string code(const std::string& text) {
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

}  // namespace roofline
