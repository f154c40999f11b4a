#include "analyzer/report/table.hpp"

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

std::string code(const std::string& text) { return "`" + text + "`"; }

}  // namespace roofline
